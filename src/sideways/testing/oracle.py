"""The oracle's interval: the count of right answers given everything the simulator knows (docs/method.md §6).

Why: a target on width ("at most 0.6 of v1's") is only reachable where the data allow it. Given the
simulator's own parameters (each model's chance of a right answer on each riddle, every judge's rates, the
annotators' error rate), each row's probability of being right given its verdicts and label is Bayes' rule,
and the count over a model's rows is their Poisson-binomial: no honest interval built from the same rows can
be narrower on average. It needs judges who err independently given the truth (``correlation`` 0: a shared
riddle uniform would tie rows of different models together).

Per row of model m on riddle r, class c = (answer, justification) in {(1, 1), (1, 0), (0, 1), (0, 0)}:

    P(c)       = p_a * s, p_a * (1 - s), (1 - p_a) * slip, (1 - p_a) * (1 - slip)
    p_a        = p_correct(skill, picarats, hints, hidden difficulty)       (sideways.simulation.models)
    P(v_k | c) = prod over fields f of  rate_k(c_f) if v_kf else 1 - rate_k(c_f)
    rate_k(1)  = sensitivity, rate_k(0) = 1 - specificity (+ self_bias on its own provider), both moved by
                 model_spread * z_m on the logit scale
    P(label | c) = prod over fields of  (1 - noise) if the label's field equals c_f else noise

    P(both right | v, label) = P(1, 1) P(v | 1, 1) P(label | 1, 1) / sum_c P(c) P(v | c) P(label | c)
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from sideways.artifacts.schema import records, records_by
from sideways.config.options import SimJudgeOptions, SimModelOptions
from sideways.config.params import Params
from sideways.simulation.judges import leniency, lenient
from sideways.simulation.models import hidden_difficulty, p_correct

CLASSES = ((1, 1), (1, 0), (0, 1), (0, 0))


def class_prior(params: Params, model: str, riddle_id: str, riddle: Mapping[str, object],
                seed: int) -> dict[tuple[int, int], float]:
    """P(class) of ``model``'s prediction on riddle ``riddle_id`` (its row ``riddle``), as the simulator draws it."""
    spec = next(m for m in params.models if m.key == model)
    opts = spec.options
    if not isinstance(opts, SimModelOptions):
        raise ValueError(f"oracle: model {model!r} is not simulated")
    skill = opts.vision_skill if riddle["split"] == "vlm" and opts.vision_skill is not None else opts.skill
    hidden = hidden_difficulty(seed, riddle_id, float(opts.hidden_difficulty))
    p_a = p_correct(float(skill), riddle["picarats"], spec.n_hints, float(opts.hint_gain), hidden)  # type: ignore[arg-type]
    s, slip = float(opts.justification), float(opts.slip)
    return {(1, 1): p_a * s, (1, 0): p_a * (1 - s), (0, 1): (1 - p_a) * slip, (0, 0): (1 - p_a) * (1 - slip)}


def _judge_rates(params: Params, seed: int, judge: str, model: str, own: bool) -> tuple[float, float]:
    """(P(says right | right), P(says right | wrong)) of ``judge`` on ``model``'s rows."""
    opts = next(j.options for j in params.jury.pool if j.key == judge)
    if not isinstance(opts, SimJudgeOptions):
        raise ValueError(f"oracle: judge {judge!r} is not a simulated verdict judge")
    if opts.correlation:
        raise ValueError(f"oracle: judge {judge!r} has correlation {opts.correlation}: rows are not independent")
    right, wrong = float(opts.sensitivity), 1 - float(opts.specificity) + (float(opts.self_bias) if own else 0.0)
    z = float(opts.model_spread) * leniency(seed, model) if opts.model_spread else 0.0
    return (lenient(right, z), lenient(wrong, z)) if z else (right, wrong)


def oracle_probabilities(params: Params, riddles: pd.DataFrame, predictions: pd.DataFrame, judgments: pd.DataFrame,
                         labels: pd.DataFrame, seed: int) -> dict[tuple[str, str], float]:
    """P(both right) of every (model, riddle) row given its verdicts and its label (if any), by Bayes' rule with
    the simulator's parameters (module docstring); ``labels`` an ANNOTATIONS table."""
    by_id = records_by(riddles, "riddle_id")
    noise = float(params.annotations.noise)
    votes: dict[tuple[str, str], list[dict[str, object]]] = {}
    for v in records(judgments[judgments["status"] == "ok"]):
        votes.setdefault((str(v["model"]), str(v["riddle_id"])), []).append(v)
    label = {(str(x["model"]), str(x["riddle_id"])): (int(bool(x["human_answer_correct"])),
                                                     int(bool(x["human_justification_correct"])))
             for x in records(labels)}
    out = {}
    for p in records(predictions):
        key = (str(p["model"]), str(p["riddle_id"]))
        weight = class_prior(params, key[0], key[1], by_id[key[1]], seed)
        for v in votes.get(key, []):
            rates = _judge_rates(params, seed, str(v["judge"]), key[0], v["judge_provider"] == p["provider"])
            said = (bool(v["is_answer_correct"]), bool(v["is_justification_correct"]))
            for c in CLASSES:
                for really, yes in zip(c, said, strict=True):
                    q = rates[0] if really else rates[1]
                    weight[c] *= q if yes else 1 - q
        if key in label:
            for c in CLASSES:
                for really, seen in zip(c, label[key], strict=True):
                    weight[c] *= (1 - noise) if really == seen else noise
        total = sum(weight.values())
        out[key] = weight[(1, 1)] / total if total > 0 else 0.0
    return out
