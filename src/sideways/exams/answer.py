"""exam_predict: one model answers every exam question (EXAM_PREDICTIONS rows).

The simulated backend writes its replies offline, ``replay`` reads them from ``exam_path``,
the HTTP backends ask through the request layer. Nothing is scored here: multiple-choice
letters are extracted when scoring (no judge), short answers go to the judges.
"""

from __future__ import annotations

import pandas as pd

from sideways.artifacts.schema import EXAM_PREDICTIONS, records
from sideways.backends import predictor_for
from sideways.backends.base import RunContext
from sideways.config.params import ModelSpec
from sideways.exams.asking import Asked, ask, given
from sideways.exams.kinds import PROMPTS, SIMULATED
from sideways.exams.replay import replayed_texts
from sideways.llm.prompts import Prompt


def answer_requests(items: pd.DataFrame, model: ModelSpec) -> list[tuple[str, str, Prompt]]:
    """``(item, label, prompt)`` per question: what an HTTP backend sends (and the dry run counts)."""
    return [(str(r["item_id"]), f"exam_predict/{model.key}/{r['item_id']}", PROMPTS[str(r["kind"])](r))
            for r in records(items)]


def exam_predictions(items: pd.DataFrame, model: ModelSpec, ctx: RunContext, exam: str = "") -> pd.DataFrame:
    """One EXAM_PREDICTIONS row per item of ``items`` (the EXAM_ITEMS table of exam ``exam``), in its
    order; ``exam`` picks a replay model's file when it has one per exam."""
    rows = records(items)
    asked: list[Asked]
    if model.capabilities.simulated:
        asked = [given(SIMULATED[str(r["kind"])](r, model, ctx.seed), f"sim/{model.key}/{r['item_id']}")
                 for r in rows]
    elif model.capabilities.replays:
        texts = replayed_texts([str(r["item_id"]) for r in rows], exam, model)
        asked = [given(texts[str(r["item_id"])], f"replay/{model.key}/{r['item_id']}") for r in rows]
    else:
        asked = ask(predictor_for(model), model, answer_requests(items, model), ctx, f"exam_predict {model.key}")
    out = [{"item_id": r["item_id"], "model": model.key, "provider": model.provider, "model_name": model.name,
            "kind": r["kind"], "text": a.text, "status": a.status, "error": a.error, "latency_s": a.latency_s,
            **a.usage} for r, a in zip(rows, asked, strict=True)]
    return pd.DataFrame(out, columns=EXAM_PREDICTIONS.names)
