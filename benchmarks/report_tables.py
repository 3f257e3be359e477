"""Synthetic tables for the report at any size: n models x n riddles per split, with pictures.

Used by benchmarks/report.py (50 models x 500 riddles) and by the report's browser tests
(the models of params.yaml, a few riddles), and an exam's tables (:func:`exam_tables`) whose
detail, metrics and topics are computed by ``sideways.exams.results``. Predictions, judgments and labels are seeded
random draws; the jury and the scores are computed by sideways itself (scoring.jury_table,
score_models), so the report reads the tables it reads after `dvc repro`.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from PIL import Image, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sideways.artifacts.schema import (  # noqa: E402
    ANNOTATIONS,
    EXAM_GRADES,
    EXAM_ITEMS,
    EXAM_PREDICTIONS,
    JUDGMENTS,
    PREDICTIONS,
    RIDDLES,
    conform,
)
from sideways.config.params import ModelSpec, Params, parse_params  # noqa: E402
from sideways.exams.results import detail_table, model_metrics, topic_breakdown  # noqa: E402
from sideways.report.inputs import ExamTables, SplitTables  # noqa: E402
from sideways.scoring.calibration import score_models  # noqa: E402
from sideways.scoring.jury import jury_table  # noqa: E402

XSS_ANSWER = "<img src=x onerror=\"document.title='pwned'\">"
XSS_JUSTIFICATION = "Because <script>document.title='pwned-script'</script> said so."
XSS_QUESTION = "Which is right? <img src=x onerror=\"document.title='pwned-question'\">"
XSS_REPLY = "<script>document.title='pwned-reply'</script> Answer: A"


def picture(i: int) -> bytes:
    """A small PNG with a number on it: a riddle's picture."""
    img = Image.new("RGB", (240, 140), (250, 246, 236))
    draw = ImageDraw.Draw(img)
    draw.rectangle((10, 10, 230, 130), outline=(60, 60, 90), width=3)
    draw.text((100, 60), f"#{i}", fill=(20, 20, 20))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def riddles(split: str, n: int) -> pd.DataFrame:
    """``n`` riddles; those of the ``vlm`` split carry a picture."""
    cats = ["arithmetic", "logic", "spatial", "wordplay", "sequence"]
    return conform(pd.DataFrame({
        "riddle_id": [f"syn-{split}-{i:04d}" for i in range(n)], "split": split,
        "category": [cats[i % len(cats)] for i in range(n)], "title": [f"Riddle {i} of {split}" for i in range(n)],
        "description": [f"How many lamps are lit in room {i}? The keeper counts them twice." for i in range(n)],
        "answer": [str(i % 17) for i in range(n)], "solution": [f"Count the lamps: {i % 17}." for i in range(n)],
        "justification": ["Counting twice gives the same number."] * n, "first_hint": "Count.",
        "second_hint": "Count again.", "third_hint": None, "special_hint": None,
        "image": [picture(i) if split == "vlm" else None for i in range(n)],
        "picarats": [10 + (i * 7) % 80 for i in range(n)], "game": None, "source": "synthetic", "url": None,
        "license": "CC0-1.0",
    }), RIDDLES, "synthetic riddles")


def _predictions(taking: tuple[ModelSpec, ...], r: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    ids = np.tile(r["riddle_id"].to_numpy(), len(taking))
    models = np.repeat([m.key for m in taking], len(r))
    right = rng.random(len(ids)) < np.repeat(rng.uniform(0.3, 0.9, len(taking)), len(r))
    status = np.where(rng.random(len(ids)) < 0.01, "api_error", "ok")
    gold = np.tile(r["answer"].to_numpy(), len(taking))
    spec = {m.key: m for m in taking}
    df = pd.DataFrame({
        "riddle_id": ids, "model": models, "provider": [spec[m].provider for m in models],
        "model_name": [spec[m].name for m in models], "n_hints": [spec[m].n_hints for m in models],
        "answer": np.where(status == "ok", np.where(right, gold, "seven"), None),
        "justification": np.where(status == "ok", "I counted every lamp in the picture, then checked twice.", None),
        "raw": None, "status": status, "error": np.where(status == "ok", None, "HTTP 500"),
        "request_hash": None, "input_tokens": 800, "output_tokens": 120, "cost_usd": 0.0012,
    })
    df["right"] = right & (status == "ok")
    return df


def _judgments(params: Params, taking: tuple[ModelSpec, ...], p: pd.DataFrame,
               rng: np.random.Generator) -> pd.DataFrame:
    parts = []
    for m in taking:
        mine = p[p["model"] == m.key]
        for j in params.jury.panel(m.provider):
            said = np.where(rng.random(len(mine)) < 0.88, mine["right"], ~mine["right"])
            parts.append(pd.DataFrame({
                "riddle_id": mine["riddle_id"].to_numpy(), "model": m.key, "judge": j.key,
                "judge_provider": j.provider, "is_answer_correct": said, "is_justification_correct": said,
                "both_correct": said, "status": "ok", "error": None, "raw": None, "request_hash": None,
                "input_tokens": 400, "output_tokens": 30, "cost_usd": 0.0004, "score": np.nan}))
    return pd.concat(parts, ignore_index=True)


def split_tables(params: Params, split: str, n_riddles: int, seed: int = 0) -> SplitTables:
    """Every table of one split, seeded, for the models that take it; the first prediction carries
    the XSS probe."""
    rng = np.random.default_rng([seed, *split.encode()])
    r = riddles(split, n_riddles)
    taking = params.models_taking(split)
    p = _predictions(taking, r, rng)
    p.loc[0, ["answer", "justification"]] = [XSS_ANSWER, XSS_JUSTIFICATION]
    j = _judgments(params, taking, p, rng)
    labelled = p[rng.random(len(p)) < 0.5]
    a = pd.DataFrame({"riddle_id": labelled["riddle_id"], "model": labelled["model"],
                      "provider": labelled["provider"], "human_answer_correct": labelled["right"],
                      "human_justification_correct": labelled["right"], "human_both_correct": labelled["right"],
                      "annotator": "synthetic"})
    predictions = conform(p, PREDICTIONS, "synthetic predictions")
    judgments = conform(j, JUDGMENTS, "synthetic judgments")
    jury = jury_table(judgments, predictions, {m.key: [x.key for x in params.jury.panel(m.provider)]
                                               for m in taking})
    annotations = conform(a, ANNOTATIONS, "synthetic annotations")
    scores = score_models(jury, annotations, field=params.calibration.field, method="exact", bootstrap=0,
                          seed=seed, empty_bin="nearest")
    return SplitTables(r, predictions, judgments, annotations, jury, scores)


def params_with_models(base: dict[str, Any], n_models: int | None) -> Params:
    """``base`` params (a loaded params.yaml); with ``n_models``, that many simulated models instead."""
    data = dict(base)
    if n_models is not None:
        providers = ["openai", "gemini", "anthropic", "mistral", "together"]
        data["models"] = {f"model-{i:02d}": {"backend": "sim", "provider": providers[i % 5], "name": f"model-{i:02d}",
                                             "n_hints": 0, "skill": 0.5} for i in range(n_models)}
    return parse_params(data)


EXAM_TOPICS = ("orbits", "stars", "galaxies")
_CHOICES = {"A": "Mercury", "B": "Venus", "C": "Mars", "D": "Earth", "E": "I don't know"}


def exam_items(n: int) -> pd.DataFrame:
    """``n`` questions, one in four a short answer with a two-criterion rubric; the first one's
    text carries the XSS probe."""
    rows = []
    for i in range(n):
        short = i % 4 == 3
        rows.append({"item_id": f"q-{i:03d}", "exam": "synthetic astronomy exam", "topic": EXAM_TOPICS[i % 3],
                     "kind": "short_answer" if short else "mcq", "points": 2.0 if short else 1.0,
                     "question": XSS_QUESTION if i == 0 else f"Question {i}: which planet is closest to the Sun?",
                     "answer": "Mercury, the innermost planet" if short else "Mercury",
                     "choices": None if short else json.dumps(_CHOICES), "gold": None if short else "ABCD"[i % 4],
                     "rubric": json.dumps(["Names Mercury", "Says it is the innermost"]) if short else None})
    return conform(pd.DataFrame(rows), EXAM_ITEMS, "synthetic exam items")


def _exam_reply(item: dict[str, Any], u: float) -> str:
    if item["kind"] == "short_answer":
        return "Mercury, it orbits closest." if u < 0.6 else "Venus."
    if u < 0.1:
        return "It could be any of them."
    return "Answer: E" if u < 0.2 else f"Answer: {item['gold'] if u < 0.7 else 'D' if item['gold'] != 'D' else 'C'}"


def _exam_predictions(params: Params, items: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for m in params.models:
        for item in items.to_dict("records"):
            failed = rng.random() < 0.02
            rows.append({"item_id": item["item_id"], "model": m.key, "provider": m.provider, "model_name": m.name,
                         "kind": item["kind"], "text": None if failed else _exam_reply(item, rng.random()),
                         "status": "api_error" if failed else "ok", "error": "HTTP 500" if failed else None,
                         "latency_s": 1.5, "request_hash": None, "input_tokens": 300, "output_tokens": 40,
                         "cost_usd": 0.0003})
    rows[0]["text"], rows[0]["status"], rows[0]["error"] = XSS_REPLY, "ok", None
    return conform(pd.DataFrame(rows), EXAM_PREDICTIONS, "synthetic exam predictions")


def _exam_grades(params: Params, predictions: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    answers = predictions[(predictions["kind"] == "short_answer") & (predictions["status"] == "ok")]
    provider = {m.key: m.provider for m in params.models}
    for p in answers.to_dict("records"):
        for j in params.jury.first_judges(provider[p["model"]], 2):
            earned = float(rng.choice([0.0, 1.0, 2.0]))
            rows.append({"item_id": p["item_id"], "model": p["model"], "judge": j.key, "judge_provider": j.provider,
                         "strategy": "rubric_anchored", "points": 2.0, "earned": earned, "status": "ok",
                         "error": None, "raw": f"CRITERION_1: 1\nCRITERION_2: {int(earned > 1)}\nSCORE: {earned}/2",
                         "latency_s": 0.8, "request_hash": None, "input_tokens": 200, "output_tokens": 20,
                         "cost_usd": 0.0001})
    return conform(pd.DataFrame(rows, columns=EXAM_GRADES.names), EXAM_GRADES, "synthetic exam grades")


def exam_tables(params: Params, n_questions: int, seed: int = 0, key: str = "exam") -> ExamTables:
    """One exam's tables, seeded: the first reply and the first question carry XSS probes."""
    rng = np.random.default_rng([seed, *key.encode()])
    items = exam_items(n_questions)
    predictions = _exam_predictions(params, items, rng)
    grades = _exam_grades(params, predictions, rng)
    detail = detail_table(items, predictions, grades)
    return ExamTables(key, items, predictions, grades, detail, model_metrics(detail), topic_breakdown(detail))
