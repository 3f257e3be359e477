"""Human labels: a seeded sample of predictions, labelled by simulated annotators or read from a
file that people (or the annotation tool) wrote.

Sampling (docs/method.md §3): each simulated model's prediction of a riddle is labelled or not by
its own seeded coin, ``stable_uniform(seed, split, model, riddle) < share``. The decision and the
label depend on nothing else, so adding or removing a model never changes another model's
labels: a new model brings its own labels (the budget grows by ``share`` of its predictions), and
every provider gets labels in proportion to its models.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from sideways.annotation.log import primary, replay
from sideways.artifacts.schema import ANNOTATIONS, conform, records_by
from sideways.core.errors import SchemaError
from sideways.core.jsonl import read_jsonl_numbered
from sideways.core.seeding import rng_for, stable_int
from sideways.simulation.truth import truth

_UNIT = 2**128  # stable_int is a 128-bit integer


def labelled(seed: int, split: str, model: str, riddle_id: str, share: float) -> bool:
    """Whether the prediction of ``model`` on ``riddle_id`` gets a label: a coin of its own."""
    return stable_int(seed, "annotate", split, model, riddle_id) < share * _UNIT


def seeded_sample(predictions: pd.DataFrame, share: float, seed: int, split: str) -> pd.DataFrame:
    """The predictions to label, sorted by (riddle_id, model): each one decided by :func:`labelled`."""
    keep = [
        labelled(seed, split, m, r, share)
        for m, r in zip(predictions["model"], predictions["riddle_id"], strict=True)
    ]
    return predictions[keep].sort_values(["riddle_id", "model"]).reset_index(drop=True)


def simulate_labels(sample: pd.DataFrame, riddles: pd.DataFrame, seed: int = 0, noise: float = 0.0) -> pd.DataFrame:
    """Labels for the sampled simulated predictions (an ANNOTATIONS table): the truth, each field
    flipped with probability ``noise`` (noisy annotators; 0, the default, draws nothing). The
    annotator and the flips of a row are drawn from (seed, model, riddle), so no row depends on
    the other rows; ``human_both_correct`` is the AND of the two labels, as a person's would be."""
    by_id = records_by(riddles, "riddle_id")
    rows = []
    for p in sample.to_dict("records"):
        a, j = truth(by_id[p["riddle_id"]], p["answer"], p["justification"])
        if noise:
            flip = rng_for(seed, "label-noise", p["model"], p["riddle_id"]).random(2) < noise
            a, j = bool(a != flip[0]), bool(j != flip[1])
        rows.append(
            {
                "riddle_id": p["riddle_id"],
                "model": p["model"],
                "provider": p["provider"],
                "human_answer_correct": a,
                "human_justification_correct": j,
                "human_both_correct": a and j,
                "annotator": f"sim-annotator-{stable_int(seed, 'annotator', p['model'], p['riddle_id']) % 3 + 1}",
            }
        )
    return conform(pd.DataFrame(rows, columns=ANNOTATIONS.names), ANNOTATIONS, "simulated annotations")


def _at_line(exc: SchemaError, lines: list[int]) -> SchemaError:
    """``exc`` with its 0-based "row N" (a position in the table) told as the file's 1-based line."""
    return SchemaError(re.sub(r"\bat row (\d+)", lambda m: f"on line {lines[int(m.group(1))]}", str(exc)))


def read_label_file(path: Path, riddles: pd.DataFrame) -> pd.DataFrame:
    """Read human labels from a JSONL or Parquet file and check they refer to known riddles and models.

    ``human_both_correct`` may be omitted (it is the AND of the other two); rows of models that are
    not in params.yaml are kept, since they calibrate the others. A JSONL file is a log
    (:mod:`sideways.annotation.log`): skips and undone labels are dropped, and of several
    annotators' labels of one prediction the first is kept. Errors in a JSONL file name the
    file and the 1-based line; in a Parquet file, the 0-based row.
    """
    if not path.exists():
        raise SchemaError(
            f"{path}: no label file (annotations.source is 'file'; write labels there as JSONL or Parquet)"
        )
    if path.stat().st_size == 0:  # a split nobody labelled yet: zero labels, not a file without columns
        return conform(pd.DataFrame(columns=ANNOTATIONS.names), ANNOTATIONS, str(path))
    if path.suffix == ".parquet":
        try:
            table = pq.read_table(path)
            table.validate(full=True)  # checks every string is UTF-8 now, not when a column is first used
            df = table.to_pandas()
        except Exception as exc:  # pyarrow raises many types (ArrowException, OSError, ...) on a damaged file
            raise SchemaError(f"{path}: not a readable Parquet file ({type(exc).__name__}: {str(exc)[:120]})") from exc
        lines = list(range(len(df)))
    else:
        records, numbers = read_jsonl_numbered(path)
        kept = primary(replay(records, numbers, str(path)))
        lines = [e.line for e in kept]
        df = pd.DataFrame.from_records([dict(e.record) for e in kept])
    if "human_both_correct" not in df.columns and {"human_answer_correct", "human_justification_correct"} <= set(df):
        # a value that is not a bool makes no True here, and conform names it just below
        true = [df[c].map(lambda v: isinstance(v, bool | np.bool_) and bool(v)).astype(bool)
                for c in ("human_answer_correct", "human_justification_correct")]
        df["human_both_correct"] = true[0] & true[1]
    try:
        labels = conform(df, ANNOTATIONS, str(path))
    except SchemaError as exc:
        raise (exc if path.suffix == ".parquet" else _at_line(exc, lines)) from None
    known = set(riddles["riddle_id"])
    unknown = [(r, line) for r, line in zip(labels["riddle_id"], lines, strict=True) if r not in known]
    if unknown:
        where = "row" if path.suffix == ".parquet" else "line"
        named = ", ".join(f"{r} ({where} {line})" for r, line in unknown[:10])
        raise SchemaError(f"{path}: labels for unknown riddle(s) {named}")
    return labels


def label_file(labels_dir: Path, split: str) -> Path | None:
    """The label file of ``split`` in ``labels_dir``: ``<split>.parquet``, else ``<split>.jsonl`` (None: neither)."""
    return next((p for p in (labels_dir / f"{split}.{ext}" for ext in ("parquet", "jsonl")) if p.exists()), None)


def no_labels_yet(labels_dir: Path, split: str) -> str:
    """What a split with ``annotations.source: file`` and no label file means, in one line."""
    return (f"no labels yet ({labels_dir / split}.jsonl): judges alone, wide intervals; "
            f"sideways annotate serve --split {split}")
