"""A layton-eval-ppi table as a project of the main pipeline: replay models and judges, label file.

The published calibration file holds, per (riddle, model), each judge's verdicts and the human
labels. :func:`replay_project` turns it into what ``dvc repro`` of the main ``dvc.yaml`` reads:

- ``models``: one ``backend: replay`` model per published model (key ``slug(provider-model)``, as
  :func:`sideways.layton_eval.convert.import_ppi` names it), ``takes: [<split>]``, replaying the
  file's answer texts, or :data:`PLACEHOLDER` where the file has none (the vendored file has none:
  the jury's verdicts are replayed, so the scores never read a text);
- ``jury.pool``: one ``backend: replay`` judge per published judge, with its provider, in an
  order for which the pipeline's panel rule (the first ``jury.judges`` judges of another provider)
  gives every model the panel it has in the file (:func:`pool_order`; an error when none does);
- ``labels``: the file's human labels as label lines of ``data/labels/<split>.jsonl``;
- ``riddles``: one riddle per id, in the demo source's format, whose texts are :data:`PLACEHOLDER`
  (the file has ids only; nothing downstream of curate reads a riddle's text to score it).

Pure: ``reproductions/layton-eval/main_pipeline.py`` reads the file and writes the project.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from sideways.core.errors import SchemaError
from sideways.layton_eval.convert import PpiTables, import_ppi, judge_columns, judge_provider, slug

PLACEHOLDER = "[placeholder: not in the layton-eval-ppi file, which scores by riddle id]"
RIDDLE_LICENSE = "CC BY-SA 4.0"
MODELS_DIR = "data/replay/models"
JUDGES_DIR = "data/replay/judges"
#: The calibration of the published table (docs/calibration.md, "The published table from the main pipeline").
CALIBRATION = {"field": "both_correct", "method": "exact", "interval": "published"}

Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class ReplayProject:
    """params.yaml's changed sections, and the files they name (path -> rows, one JSON object each)."""

    params: dict[str, Any]
    files: dict[str, Rows]


def replay_project(df: pd.DataFrame, base: Mapping[str, Any], *, split: str = "llm",
                   riddle_file: str = "data/riddles/layton-eval.jsonl",
                   source: str = "layton-eval-ppi") -> ReplayProject:
    """The project of ``df`` (a layton-eval-ppi table): ``base`` params with riddles, splits, models,
    jury, annotations, calibration and exams replaced, and the riddle, replay and label files."""
    tables = import_ppi(df, source=source)
    names = {slug(n): n for n in judge_columns(list(df.columns), source)}
    pool, judges = _pool(tables, names, source)
    models = _models(tables, split)
    params = {**base, "riddles": {**base.get("riddles", {}), "source": "demo", "path": riddle_file},
              "splits": [split], "models": models, "jury": {"judges": judges, "pool": pool},
              "annotations": {**base.get("annotations", {}), "source": "file"},
              "calibration": {**base.get("calibration", {}), **CALIBRATION}, "exams": {}}
    files = {riddle_file: riddle_rows(sorted(set(tables.predictions["riddle_id"])), split),
             f"data/labels/{split}.jsonl": label_rows(tables.annotations)}
    files |= {str(models[k]["path"]): rows for k, rows in prediction_rows(tables.predictions).items()}
    files |= {str(pool[k]["path"]): rows for k, rows in verdict_rows(tables.judgments, source).items()}
    return ReplayProject(params, files)


def _models(tables: PpiTables, split: str) -> dict[str, dict[str, Any]]:
    """One replay model per published model, in the file's order."""
    first = tables.predictions.drop_duplicates("model")
    return {str(r["model"]): {"backend": "replay", "provider": str(r["provider"]), "name": str(r["model_name"]),
                              "n_hints": int(r["n_hints"]), "takes": [split],
                              "path": f"{MODELS_DIR}/{r['model']}.jsonl"}
            for r in first.to_dict(orient="records")}


def _pool(tables: PpiTables, names: Mapping[str, str], source: str) -> tuple[dict[str, dict[str, Any]], int]:
    """The replay judges in :func:`pool_order`, and ``jury.judges`` (every panel's size)."""
    providers = {}
    for key, name in names.items():
        provider = judge_provider(name)
        if provider is None:
            raise SchemaError(f"{source}: judge {name!r} has no known provider (a name starting with "
                              "mistral-, claude-, gpt- or gemini-)")
        providers[key] = provider
    sizes = {len(p) for p in tables.panels.values()}
    if len(sizes) != 1:
        raise SchemaError(f"{source}: panels of different sizes {sorted(sizes)}; jury.judges is one number")
    judges = sizes.pop()
    model_providers = dict(zip(tables.predictions["model"], tables.predictions["provider"], strict=True))
    order = pool_order(providers, {m: (model_providers[m], p) for m, p in tables.panels.items()}, judges, source)
    return {k: {"backend": "replay", "provider": providers[k], "name": names[k], "path": f"{JUDGES_DIR}/{k}.jsonl"}
            for k in order}, judges


def pool_order(providers: Mapping[str, str], panels: Mapping[str, tuple[str, Sequence[str]]], judges: int,
               source: str) -> tuple[str, ...]:
    """The first order of the judges (``providers``: judge -> provider) in which, for every model
    (``panels``: model -> (its provider, its panel)), the first ``judges`` judges of another provider
    are its panel; an error naming a model whose panel no order gives."""
    wanted = {m: (prov, set(panel)) for m, (prov, panel) in panels.items()}
    for order in itertools.permutations(providers):
        if all(set(_first(order, providers, prov, judges)) == panel for prov, panel in wanted.values()):
            return order
    model = next(iter(wanted))
    raise SchemaError(f"{source}: no order of the judges {', '.join(providers)} gives every model its panel by the "
                      f"rule 'the first {judges} of another provider' (model {model!r}: {sorted(wanted[model][1])})")


def _first(order: Sequence[str], providers: Mapping[str, str], provider: str, n: int) -> list[str]:
    return [j for j in order if providers[j] != provider][:n]


def prediction_rows(predictions: pd.DataFrame) -> dict[str, Rows]:
    """Model key -> its replay rows (``riddle_id, answer, justification``; :data:`PLACEHOLDER` for a
    missing or empty text, which the replay backend would take for a parse error)."""
    out: dict[str, Rows] = {}
    for r in predictions.itertuples(index=False):
        out.setdefault(str(r.model), []).append({
            "riddle_id": str(r.riddle_id), "answer": _text(r.answer), "justification": _text(r.justification)})
    return out


def _text(value: Any) -> str:
    return value if isinstance(value, str) and value.strip() else PLACEHOLDER


def verdict_rows(judgments: pd.DataFrame, source: str) -> dict[str, Rows]:
    """Judge key -> its replay rows (``model, riddle_id, is_answer_correct, is_justification_correct``).

    The replay judge derives ``both_correct`` as the AND of the two; a published ``both_correct``
    that is not (or a missing verdict) would not replay, so it is an error naming the row."""
    out: dict[str, Rows] = {}
    for r in judgments.to_dict(orient="records"):
        answer, justification, both = r["is_answer_correct"], r["is_justification_correct"], r["both_correct"]
        if answer is None or justification is None or both != (answer and justification):
            raise SchemaError(f"{source}: judge {r['judge']!r} on model {r['model']!r}, riddle {r['riddle_id']!r}: "
                              f"verdicts {answer}, {justification}, both_correct {both} do not replay (both = answer "
                              "AND justification, none missing)")
        out.setdefault(str(r["judge"]), []).append({"model": str(r["model"]), "riddle_id": str(r["riddle_id"]),
                                                 "is_answer_correct": bool(answer),
                                                 "is_justification_correct": bool(justification)})
    return out


def label_rows(annotations: pd.DataFrame) -> Rows:
    """The human labels as label lines (data/labels/README.md), in the file's order."""
    return [{"riddle_id": str(r.riddle_id), "model": str(r.model), "provider": str(r.provider),
             "human_answer_correct": bool(r.human_answer_correct),
             "human_justification_correct": bool(r.human_justification_correct),
             "human_both_correct": bool(r.human_both_correct), "annotator": str(r.annotator)}
            for r in annotations.itertuples(index=False)]


def riddle_rows(ids: Sequence[str], split: str) -> Rows:
    """One riddle per id in the demo source's format, every text :data:`PLACEHOLDER` (picarats: the
    format's least, 10)."""
    return [{"riddle_id": rid, "split": split, "category": "layton-eval", "title": f"layton-eval riddle {rid}",
             "description": PLACEHOLDER, "answer": PLACEHOLDER, "solution": PLACEHOLDER,
             "justification": PLACEHOLDER, "first_hint": PLACEHOLDER, "second_hint": PLACEHOLDER,
             "picarats": 10, "license": RIDDLE_LICENSE} for rid in ids]
