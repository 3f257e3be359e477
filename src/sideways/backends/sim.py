"""The offline, seeded simulation: models, judges and human annotators with known truth.

A simulated model answers each riddle right with a probability set by its ``skill``, the
riddle's difficulty (picarats) and the hints it gets; when right it returns the gold answer and
(with probability ``justification``) the gold justification, otherwise a plausible wrong answer.
Truth is never stored: :func:`truth` derives it from a prediction's text and the riddle, so a
simulated judge or annotator sees exactly what a real one would. Every draw comes from
``rng_for(seed, kind, model, [judge,] riddle)``, so adding, removing or reordering models
changes no other model's rows.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Mapping

import pandas as pd

from sideways.backends.base import RunContext
from sideways.params import JudgeSpec, ModelSpec
from sideways.progress import bar
from sideways.seeding import rng_for

_WRONG_JUSTIFICATIONS = (
    "Taking the riddle at face value, {answer} is the only answer that fits.",
    "Counting everything that is mentioned gives {answer}.",
    "The question is a trick: the obvious reading leads to {answer}.",
    "Working backwards from the end of the riddle gives {answer}.",
)
_LUCKY_JUSTIFICATIONS = (
    "It seemed the most likely answer.",
    "I went with my first instinct.",
    "Most riddles like this one have this kind of answer.",
)


def normalize(text: str | None) -> str:
    """Lower-case, strip punctuation at the ends and collapse spaces, for comparing answers."""
    return " ".join((text or "").strip().strip(".!?").lower().split())


def truth(riddle: Mapping[str, Any], answer: str | None, justification: str | None) -> tuple[bool, bool]:
    """True (answer_correct, justification_correct) of a simulated prediction.

    The answer is right when it equals the gold answer once normalised; the justification is
    right when the answer is and it is the gold justification.
    """
    answer_ok = answer is not None and normalize(answer) == normalize(riddle["answer"])
    return answer_ok, answer_ok and justification == riddle["justification"]


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def p_correct(skill: float, picarats: int | None, n_hints: int, hint_gain: float = 0.4) -> float:
    """Probability that a model of ``skill`` answers a riddle right.

    On the logit scale: logit(skill), minus 0.5 per 20 picarats above 40, plus ``hint_gain``
    per hint.
    """
    difficulty = 0.0 if picarats is None or pd.isna(picarats) else (int(picarats) - 40) / 20
    return _sigmoid(_logit(skill) - 0.5 * difficulty + hint_gain * n_hints)


def _wrong_answer(riddle: Mapping[str, Any], rng) -> str:
    """A plausible wrong answer that depends on this riddle only: a nearby number for numeric
    answers, else a word of the riddle's own description."""
    gold = riddle["answer"]
    try:
        value = int(gold.strip())
    except ValueError:
        words = sorted({w.strip(".,;:!?\"'()").lower() for w in riddle["description"].split()})
        pool = [w for w in words if len(w) >= 4 and w.isalpha() and w != normalize(gold)]
        return pool[int(rng.integers(len(pool)))] if pool else "I don't know"
    step = int(rng.integers(1, 4)) * (1 if value < 2 or rng.random() < 0.5 else -1)
    return str(value + step)


def _request_hash(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


class SimPredictor:
    """Simulated model. Options: ``skill`` (0-1), ``justification`` (P(gold justification | right),
    default 0.9), ``hint_gain`` (logit per hint, default 0.4), ``vision_skill`` (skill on the
    vlm split, default ``skill``)."""

    def predict(self, riddles: pd.DataFrame, model: ModelSpec, ctx: RunContext) -> pd.DataFrame:
        opts = model.options
        rows = []
        for r in bar(riddles.to_dict("records"), desc=f"predict {model.key}"):
            skill = float(opts.get("vision_skill", opts["skill"]) if r["split"] == "vlm" else opts["skill"])
            rng = rng_for(ctx.seed, "predict", model.key, r["riddle_id"])
            right = rng.random() < p_correct(skill, r["picarats"], model.n_hints, float(opts.get("hint_gain", 0.4)))
            sound = rng.random() < float(opts.get("justification", 0.9))
            if right:
                answer = r["answer"]
                just = r["justification"] if sound else _LUCKY_JUSTIFICATIONS[int(rng.integers(3))]
            else:
                answer = _wrong_answer(r, rng)
                just = _WRONG_JUSTIFICATIONS[int(rng.integers(4))].format(answer=answer)
            rows.append(
                {
                    "riddle_id": r["riddle_id"],
                    "model": model.key,
                    "provider": model.provider,
                    "model_name": model.name,
                    "n_hints": model.n_hints,
                    "answer": answer,
                    "justification": just,
                    "raw": json.dumps({"answer": answer, "justification": just}, ensure_ascii=False),
                    "status": "ok",
                    "error": None,
                    "request_hash": _request_hash("sim", ctx.seed, model.key, r["riddle_id"]),
                    "input_tokens": None,
                    "output_tokens": None,
                    "cost_usd": 0.0,
                }
            )
        return pd.DataFrame(rows)


class SimJudge:
    """Simulated judge. Options: ``sensitivity`` (P(says correct | correct)), ``specificity``
    (P(says incorrect | incorrect)), ``self_bias`` (added to P(says correct | incorrect) for a
    model of the judge's own provider), ``failure_rate`` (share of unparseable verdicts)."""

    def judge(
        self, riddles: pd.DataFrame, predictions: pd.DataFrame, judge: JudgeSpec, ctx: RunContext
    ) -> pd.DataFrame:
        opts = judge.options
        sens = float(opts.get("sensitivity", 0.9))
        spec = float(opts.get("specificity", 0.9))
        bias = float(opts.get("self_bias", 0.0))
        failure = float(opts.get("failure_rate", 0.0))
        by_id = riddles.set_index("riddle_id").to_dict("index")
        rows = []
        for p in bar(predictions.to_dict("records"), desc=f"judge {judge.key}"):
            riddle = by_id[p["riddle_id"]]
            rng = rng_for(ctx.seed, "judge", judge.key, p["model"], p["riddle_id"])
            false_pos = 1 - spec + (bias if p["provider"] == judge.provider else 0.0)
            verdict = []
            for really in truth(riddle, p["answer"], p["justification"]):
                verdict.append(bool(rng.random() < (sens if really else false_pos)))
            failed = rng.random() < failure
            a, j = (None, None) if failed else verdict
            rows.append(
                {
                    "riddle_id": p["riddle_id"],
                    "model": p["model"],
                    "judge": judge.key,
                    "judge_provider": judge.provider,
                    "is_answer_correct": a,
                    "is_justification_correct": j,
                    "both_correct": None if failed else bool(a and j),
                    "status": "parse_error" if failed else "ok",
                    "error": "simulated unparseable verdict" if failed else None,
                    "raw": "{not json" if failed else json.dumps({"is_answer_correct": a, "is_justification_correct": j}),
                    "request_hash": _request_hash("sim", ctx.seed, judge.key, p["model"], p["riddle_id"]),
                    "input_tokens": None,
                    "output_tokens": None,
                    "cost_usd": 0.0,
                }
            )
        return pd.DataFrame(rows)
