"""Simulated models: seeded answers whose chance of being right follows skill, difficulty and hints.

A simulated model answers each riddle right with a probability set by its ``skill``, the
riddle's difficulty (picarats) and the hints it gets; when right it returns the gold answer and
(with probability ``justification``) the gold justification, otherwise a plausible wrong answer,
with (probability ``slip``, 0 by default) the gold justification: the right reasoning ending on a
wrong answer, the fourth class (wrong answer, right justification).
Every draw comes from ``rng_for(seed, "predict", model, riddle)``, so adding, removing or
reordering models changes no other model's rows.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from sideways.artifacts.rows import prediction_row
from sideways.artifacts.schema import records
from sideways.config.options import SimModelOptions, expect_options
from sideways.config.params import ModelSpec
from sideways.core.progress import bar
from sideways.core.seeding import rng_for
from sideways.simulation.truth import normalize

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


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def p_correct(skill: float, picarats: int | None, n_hints: int, hint_gain: float = 0.4, hidden: float = 0.0) -> float:
    """Probability that a model of ``skill`` answers a riddle right.

    On the logit scale: logit(skill), minus 0.5 per 20 picarats above 40, plus ``hint_gain``
    per hint, minus ``hidden`` (the riddle's hidden difficulty, :func:`hidden_difficulty`).
    """
    difficulty = 0.0 if picarats is None or pd.isna(picarats) else (int(picarats) - 40) / 20
    return _sigmoid(_logit(skill) - 0.5 * difficulty + hint_gain * n_hints - hidden)


def hidden_difficulty(seed: int, riddle_id: str, sd: float) -> float:
    """A riddle's hidden difficulty on the logit scale: ``sd`` times one standard normal draw of
    the riddle's own stream, the same for every model (0 with ``sd`` 0, and nothing drawn).

    Picarats alone move a model's log odds by about 0.25 sd over the demo riddles; on the real
    LLM calibration file riddles differ by about 3 to 4 (docs/method.md, "Riddles of real
    difficulty"): some every model fails, some every model solves."""
    return sd * float(rng_for(seed, "riddle-difficulty", riddle_id).standard_normal()) if sd else 0.0


def _wrong_answer(riddle: Mapping[str, Any], rng: np.random.Generator) -> str:
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


def request_hash(*parts: object) -> str:
    """The ``request_hash`` of a simulated row: what a real request's cache key stands for."""
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


def simulate_predictions(riddles: pd.DataFrame, model: ModelSpec, seed: int) -> pd.DataFrame:
    """Simulated model (options: :class:`~sideways.config.options.SimModelOptions`)."""
    opts = expect_options(model.options, SimModelOptions, f"models.{model.key}")
    vision_skill = opts.skill if opts.vision_skill is None else opts.vision_skill
    rows = []
    for r in bar(records(riddles), desc=f"predict {model.key}"):
        skill = float(vision_skill if r["split"] == "vlm" else opts.skill)
        rng = rng_for(seed, "predict", model.key, r["riddle_id"])
        hidden = hidden_difficulty(seed, r["riddle_id"], float(opts.hidden_difficulty))
        right = rng.random() < p_correct(skill, r["picarats"], model.n_hints, float(opts.hint_gain), hidden)
        sound = rng.random() < float(opts.justification)
        if right:
            answer = r["answer"]
            just = r["justification"] if sound else _LUCKY_JUSTIFICATIONS[int(rng.integers(3))]
        else:
            answer = _wrong_answer(r, rng)
            just = _WRONG_JUSTIFICATIONS[int(rng.integers(4))].format(answer=answer)
            if opts.slip and rng_for(seed, "slip", model.key, r["riddle_id"]).random() < opts.slip:
                just = r["justification"]  # its own stream: slip 0 draws nothing, so no row moves
        rows.append(
            prediction_row(
                riddle_id=r["riddle_id"],
                model=model.key,
                provider=model.provider,
                model_name=model.name,
                n_hints=model.n_hints,
                answer=answer,
                justification=just,
                raw=json.dumps({"answer": answer, "justification": just}, ensure_ascii=False),
                status="ok",
                error=None,
                request_hash=request_hash("sim", seed, model.key, r["riddle_id"]),
                cost_usd=0.0,
            )
        )
    return pd.DataFrame(rows)
