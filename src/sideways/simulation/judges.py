"""Simulated judges: seeded verdicts with a sensitivity, a specificity, a self-bias and failures.

Each verdict is drawn from ``rng_for(seed, "judge", judge, model, riddle)`` against the truth of
the prediction (:func:`sideways.simulation.truth.truth`). A simulated ``l3score`` judge draws a
graded score instead, and thresholds it (:func:`simulate_l3score_judgments`).

Two settings of a verdict judge break what a calibration method may quietly assume (both off by
default, and then no draw changes): ``correlation``, judges that err together because a riddle
is hard to grade for all of them (a verdict follows the riddle's difficulty, one uniform per
(seed, riddle, field) shared by every judge and model, instead of the judge's own uniform, with
that probability; each judge's rates stay what they are, only their errors coincide), and
``model_spread``, judges whose rates depend on the model graded (each model draws a leniency
z ~ N(0, 1) from (seed, model); a judge adds ``model_spread * z`` to the logits of both of its
rates of saying "right").
"""

from __future__ import annotations

import json
import math

import pandas as pd

from sideways.artifacts.rows import judgment_row
from sideways.artifacts.schema import records, records_by
from sideways.config.options import SimJudgeOptions, expect_options
from sideways.config.params import JudgeSpec
from sideways.core.progress import bar
from sideways.core.seeding import rng_for
from sideways.simulation.models import request_hash
from sideways.simulation.truth import truth


def simulate_judgments(
    riddles: pd.DataFrame, predictions: pd.DataFrame, judge: JudgeSpec, seed: int
) -> pd.DataFrame:
    """Simulated judge (options: :class:`~sideways.config.options.SimJudgeOptions`). ``self_bias``
    is added to P(says correct | incorrect) for a model of the judge's own provider."""
    opts = expect_options(judge.options, SimJudgeOptions, f"jury.pool.{judge.key}")
    sens = float(opts.sensitivity)
    spec = float(opts.specificity)
    bias = float(opts.self_bias)
    failure = float(opts.failure_rate)
    corr, spread = float(opts.correlation), float(opts.model_spread)
    by_id = records_by(riddles, "riddle_id")
    rows = []
    for p in bar(records(predictions), desc=f"judge {judge.key}"):
        riddle = by_id[p["riddle_id"]]
        rng = rng_for(seed, "judge", judge.key, p["model"], p["riddle_id"])
        false_pos = 1 - spec + (bias if p["provider"] == judge.provider else 0.0)
        rates = (sens, false_pos)
        if spread:
            z = leniency(seed, p["model"]) * spread
            rates = (lenient(sens, z), lenient(false_pos, z))
        shared = _shared_uniforms(seed, judge.key, p["model"], p["riddle_id"], corr) if corr else (None, None)
        verdict = []
        for really, common in zip(truth(riddle, p["answer"], p["justification"]), shared, strict=True):
            u = rng.random()
            verdict.append(bool((u if common is None else common) < (rates[0] if really else rates[1])))
        failed = rng.random() < failure
        a, j = (None, None) if failed else verdict
        rows.append(
            judgment_row(
                riddle_id=p["riddle_id"],
                model=p["model"],
                judge=judge.key,
                judge_provider=judge.provider,
                is_answer_correct=a,
                is_justification_correct=j,
                both_correct=None if failed else bool(a and j),
                status="parse_error" if failed else "ok",
                error="simulated unparseable verdict" if failed else None,
                raw="{not json" if failed else json.dumps({"is_answer_correct": a, "is_justification_correct": j}),
                request_hash=request_hash("sim", seed, judge.key, p["model"], p["riddle_id"]),
                cost_usd=0.0,
            )
        )
    return pd.DataFrame(rows)


def simulate_l3score_judgments(
    riddles: pd.DataFrame, predictions: pd.DataFrame, judge: JudgeSpec, seed: int
) -> pd.DataFrame:
    """Simulated l3score judge: a graded score of the answer, thresholded into its verdict.

    The score is the judge's P(Yes) = sigmoid(L + logit(u)), u uniform: with L = logit(sensitivity)
    for a right answer and L = logit(1 - specificity + bias) for a wrong one, P(score >= 0.5) is
    exactly the sensitivity, or one minus the specificity (plus ``self_bias`` for its own
    provider's models), so at the default threshold 0.5 it errs as a verdict judge with the same
    options would. Only the answer is graded (docs/method.md §7): the justification and
    both-correct verdicts are null.
    """
    opts = expect_options(judge.options, SimJudgeOptions, f"jury.pool.{judge.key}")
    by_id = records_by(riddles, "riddle_id")
    rows = []
    for p in bar(records(predictions), desc=f"judge {judge.key}"):
        rng = rng_for(seed, "judge", judge.key, p["model"], p["riddle_id"])
        right = truth(by_id[p["riddle_id"]], p["answer"], p["justification"])[0]
        says_yes = opts.sensitivity if right else 1 - opts.specificity + (
            opts.self_bias if p["provider"] == judge.provider else 0.0)
        score = _sigmoid(_logit(says_yes) + _logit(float(rng.random())))
        failed = rng.random() < opts.failure_rate
        rows.append(judgment_row(
            riddle_id=p["riddle_id"], model=p["model"], judge=judge.key, judge_provider=judge.provider,
            is_answer_correct=None if failed else bool(score >= judge.threshold), is_justification_correct=None,
            both_correct=None, score=None if failed else score, status="parse_error" if failed else "ok",
            error="simulated reply without log-probabilities" if failed else None,
            raw=None if failed else json.dumps({"l3score": score}),
            request_hash=request_hash("sim", seed, judge.key, p["model"], p["riddle_id"]), cost_usd=0.0,
        ))
    return pd.DataFrame(rows)


def leniency(seed: int, model: str) -> float:
    """The graded model's leniency z ~ N(0, 1), the same for every judge (``model_spread``)."""
    return float(rng_for(seed, "leniency", model).standard_normal())


def _shared_uniforms(seed: int, judge: str, model: str, riddle: str, corr: float) -> tuple[float | None, ...]:
    """Per field (answer, justification): the riddle's difficulty uniform, which every judge and
    model share, when this judge's verdict follows it (probability ``corr``); else None."""
    difficulty = rng_for(seed, "difficulty", riddle).random(2)
    follows = rng_for(seed, "follows", judge, model, riddle).random(2) < corr
    return tuple(float(d) if f else None for d, f in zip(difficulty, follows, strict=True))


def lenient(rate: float, z: float) -> float:
    """``rate`` moved by a model's leniency ``z`` on the logit scale: what a judge's rate is on that model's rows
    (the draw here and the oracle's Bayes rule, lab.oracle, read the same)."""
    return _sigmoid(_logit(rate) + z)


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)  # a sensitivity of 1 stays finite
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))
