"""A simulated project on disk for the raters' audit: the pipeline's tables of one seeded run written where the
stages write them (no DVC: the same library functions in-process, lab.coverage), and a label log by
annotators of known care (lab.annotators). The tests' helper and benchmarks/rater_audit_cost.py write
it from the repository's own params.yaml (``repo``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from lab.annotators import Annotator, relabel
from lab.coverage import resize_riddles, simulate_run
from sideways.annotation.labels import seeded_sample, simulate_labels
from sideways.artifacts import paths
from sideways.artifacts.io import write_table
from sideways.artifacts.schema import ANNOTATIONS, JUDGMENTS, JURY, PREDICTIONS, RIDDLES, conform
from sideways.config.params import Params, parse_params, raw_params
from sideways.sources.demo import load_demo


def sim_params(repo: Path, splits: tuple[str, ...], justification: float | None) -> tuple[dict[str, Any], Params]:
    """``repo``'s params (the demo world; the models of models.yaml inline) on ``splits``, labels from files, every
    model's P(gold justification | right) at ``justification`` when given."""
    data = dict(raw_params(repo / "params.yaml")[0])
    data["splits"] = list(splits)
    data["annotations"] = {**data["annotations"], "source": "file"}
    if justification is not None:
        for model in data["models"].values():
            model["justification"] = justification
    return data, parse_params(data, source="audit project")


def audit_project(root: Path, repo: Path, *, splits: tuple[str, ...] = ("llm",), riddles: int | None = None,
                  justification: float | None = None, share: float = 1.0, team: tuple[Annotator, ...] = (),
                  double: float = 0.1, seed: int = 0,
                  log: Callable[[pd.DataFrame], pd.DataFrame] | None = None) -> Path:
    """``root`` holding params.yaml and, per split, the riddles, predictions, judgments, jury and annotations of one
    simulated run, and (with ``team``, or ``log``: the log's labels from the true ones) ``data/labels/<split>.jsonl``
    as the annotation app would write it, the annotations table its first labels."""
    data, params = sim_params(repo, splits, justification)
    root.mkdir(parents=True, exist_ok=True)
    (root / "params.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    demo = load_demo(repo / data["riddles"]["path"])
    for split in splits:
        full = resize_riddles(demo[demo["split"] == split].sort_values("riddle_id").reset_index(drop=True), riddles)
        full = conform(full.assign(split=split), RIDDLES, "audit riddles")
        taking = replace(params, models=tuple(params.models_taking(split)))
        predictions, judgments, jury = simulate_run(taking, full, seed)
        write_table(full, RIDDLES, root / paths.split_table(split))
        for m in taking.models:
            write_table(predictions[predictions["model"] == m.key], PREDICTIONS, root / paths.predictions(split, m.key))
            write_table(judgments[judgments["model"] == m.key], JUDGMENTS, root / paths.judgments(split, m.key))
        write_table(jury, JURY, root / paths.jury(split))
        truth = simulate_labels(seeded_sample(predictions, share, seed, split), full, seed)
        labels = log(truth) if log is not None else relabel(truth, team, seed, double) if team else truth
        write_table(labels.drop_duplicates(["riddle_id", "model"]), ANNOTATIONS, root / paths.annotations(split))
        if team or log is not None:
            file = root / paths.LABELS / f"{split}.jsonl"
            file.parent.mkdir(parents=True, exist_ok=True)
            cols = ["riddle_id", "model", "provider", "human_answer_correct", "human_justification_correct",
                    "annotator"]
            file.write_text("".join(json.dumps({k: _plain(r[k]) for k in cols}) + "\n"
                                    for r in labels[cols].to_dict("records")))
    return root


def _plain(v: Any) -> Any:
    return bool(v) if isinstance(v, bool) or type(v).__name__ == "bool_" else str(v)
