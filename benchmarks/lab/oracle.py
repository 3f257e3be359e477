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

The oracle that does not know the models (:func:`unknown_model_counts`) knows all of that but each model's skill
and leniency: ``logit(skill)`` uniform over :data:`SKILL_LOGITS`, ``z_m ~ N(0, spread^2)`` (0 when ``spread`` is
0), both weighed by the model's own rows (verdicts and labels), the count a mixture of the Poisson-binomials at
each (skill, z). Its width is what an honest interval must keep when it cannot rule out that the judges favour a
model by ``spread``, even knowing the judges' own rates.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lab.cards import CLASSES, Card
from lab.cards import rates as card_rates
from lab.judge_rates import FIELDS
from sideways.artifacts.schema import records, records_by
from sideways.config.options import SimJudgeOptions, SimModelOptions
from sideways.config.params import Params
from sideways.scoring.hierarchy import NODE_WEIGHTS, NODES, poisson_binomial
from sideways.scoring.ppi import FloatArray
from sideways.simulation.judges import leniency, lenient
from sideways.simulation.models import hidden_difficulty, p_correct

#: The skills (logit scale, a uniform prior) the oracle that does not know the models weighs: 0.018 to 0.982.
SKILL_LOGITS = np.linspace(-4.0, 4.0, 33)
#: (skill, z) points under this share of a model's posterior are left out of its count's mixture.
MIN_POINT_WEIGHT = 1e-9


def _answer(params: Params, model: str, riddle_id: str, riddle: Mapping[str, object],
            seed: int) -> tuple[SimModelOptions, float, float]:
    """(the model's options, its skill on the riddle's split, P(right answer) on the riddle), as simulated."""
    spec = next(m for m in params.models if m.key == model)
    opts = spec.options
    if not isinstance(opts, SimModelOptions):
        raise ValueError(f"oracle: model {model!r} is not simulated")
    skill = opts.vision_skill if riddle["split"] == "vlm" and opts.vision_skill is not None else opts.skill
    hidden = hidden_difficulty(seed, riddle_id, float(opts.hidden_difficulty))
    p_a = p_correct(float(skill), riddle["picarats"], spec.n_hints, float(opts.hint_gain), hidden)  # type: ignore[arg-type]
    return opts, float(skill), p_a


def class_prior(params: Params, model: str, riddle_id: str, riddle: Mapping[str, object],
                seed: int) -> dict[tuple[int, int], float]:
    """P(class) of ``model``'s prediction on riddle ``riddle_id`` (its row ``riddle``), as the simulator draws it."""
    opts, _, p_a = _answer(params, model, riddle_id, riddle, seed)
    s, slip = float(opts.justification), float(opts.slip)
    return {(1, 1): p_a * s, (1, 0): p_a * (1 - s), (0, 1): (1 - p_a) * slip, (0, 0): (1 - p_a) * (1 - slip)}


def _judge_rates(params: Params, seed: int, judge: str, model: str, own: bool,
                 leniency_known: bool = True) -> tuple[float, float]:
    """(P(says right | right), P(says right | wrong)) of ``judge`` on ``model``'s rows (without the model's
    leniency when it is not known)."""
    opts = next(j.options for j in params.jury.pool if j.key == judge)
    if not isinstance(opts, SimJudgeOptions):
        raise ValueError(f"oracle: judge {judge!r} is not a simulated verdict judge")
    if opts.correlation:
        raise ValueError(f"oracle: judge {judge!r} has correlation {opts.correlation}: rows are not independent")
    right, wrong = float(opts.sensitivity), 1 - float(opts.specificity) + (float(opts.self_bias) if own else 0.0)
    z = float(opts.model_spread) * leniency(seed, model) if opts.model_spread and leniency_known else 0.0
    return (lenient(right, z), lenient(wrong, z)) if z else (right, wrong)


Verdicts = dict[tuple[str, str], list[dict[str, object]]]


def _evidence(judgments: pd.DataFrame, labels: pd.DataFrame) -> tuple[Verdicts, dict[tuple[str, str], tuple[int, int]]]:
    """(model, riddle) -> its verdicts (status ok), and -> its label's (answer, justification)."""
    votes: Verdicts = {}
    for v in records(judgments[judgments["status"] == "ok"]):
        votes.setdefault((str(v["model"]), str(v["riddle_id"])), []).append(v)
    label = {(str(x["model"]), str(x["riddle_id"])): (int(bool(x["human_answer_correct"])),
                                                     int(bool(x["human_justification_correct"])))
             for x in records(labels)}
    return votes, label


def oracle_probabilities(params: Params, riddles: pd.DataFrame, predictions: pd.DataFrame, judgments: pd.DataFrame,
                         labels: pd.DataFrame, seed: int) -> dict[tuple[str, str], float]:
    """P(both right) of every (model, riddle) row given its verdicts and its label (if any), by Bayes' rule with
    the simulator's parameters (module docstring); ``labels`` an ANNOTATIONS table."""
    by_id = records_by(riddles, "riddle_id")
    noise = float(params.annotations.noise)
    votes, label = _evidence(judgments, labels)
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


@dataclass(frozen=True)
class ModelCount:
    """One model's count of right answers for the oracle that does not know it: the pmf on 0..rows, and the log
    of the marginal likelihood of its rows (verdicts and labels) under the spread assumed."""

    pmf: FloatArray
    log_evidence: float
    #: riddle_id -> the row's P(both right) averaged over the model's (skill, z) posterior: the oracle's start
    right: Mapping[str, float] = field(default_factory=dict)


def _logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


def unknown_model_counts(params: Params, riddles: pd.DataFrame, predictions: pd.DataFrame, judgments: pd.DataFrame,
                         labels: pd.DataFrame, seed: int, spread: float, card: Card | None = None,
                         ) -> dict[str, ModelCount]:
    """Per model, its count for an oracle that knows the judges' rates, the riddles and the annotators but not the
    model (module docstring): each row's P(class | skill) and P(verdicts, label | class, z), the (skill, z) posterior
    from the product over the model's rows, and the mixture over it of the Poisson-binomials of P(both right). With
    ``card`` (:mod:`lab.cards`) the judges' rates are the card's, not the simulator's."""
    by_id = records_by(riddles, "riddle_id")
    votes, label = _evidence(judgments, labels)
    zs, z_weights = (NODES * spread, NODE_WEIGHTS) if spread else (np.zeros(1), np.ones(1))
    out = {}
    for model, rows in predictions.groupby("model", sort=True):
        log_lik = np.zeros((len(SKILL_LOGITS), len(zs)))
        both = []
        for p in records(rows):
            key = (str(model), str(p["riddle_id"]))
            joint = _class_prior_by_skill(params, key, by_id[key[1]], seed)[:, None, :] * _given_class(
                params, seed, p, votes.get(key, []), label.get(key), zs, card)[None, :, :]  # skill x z x class
            total = joint.sum(axis=2)
            with np.errstate(divide="ignore", invalid="ignore"):
                log_lik += np.log(total)
                both.append(np.where(total > 0, joint[:, :, 0] / total, 0.0))
        log_post = log_lik + np.log(z_weights)[None, :] - math.log(len(SKILL_LOGITS))
        top = float(log_post.max())
        w = np.exp(log_post - top)
        evidence = top + math.log(float(w.sum()))
        w /= w.sum()
        probs = np.stack(both, axis=2)  # skill x z x row
        pmf = np.zeros(len(both) + 1)
        for i, j in zip(*np.nonzero(w >= MIN_POINT_WEIGHT), strict=True):
            pmf += w[i, j] * poisson_binomial(probs[i, j])
        right = np.einsum("ij,ijk->k", w, probs)
        out[str(model)] = ModelCount(pmf / pmf.sum(), evidence,
                                     dict(zip(map(str, rows["riddle_id"]), map(float, right), strict=True)))
    return out


def _class_prior_by_skill(params: Params, key: tuple[str, str], riddle: Mapping[str, object], seed: int) -> FloatArray:
    """P(class) of the row ``key`` = (model, riddle) at each skill of :data:`SKILL_LOGITS` (skill x class): the
    riddle's picarats, the model's hints and the hidden difficulty as the simulator has them, the skill unknown."""
    opts, skill, p_true = _answer(params, key[0], key[1], riddle, seed)
    offset = _logit(p_true) - _logit(skill)  # picarats, hints, hidden difficulty
    p_a = 1 / (1 + np.exp(-(SKILL_LOGITS + offset)))
    s, slip = float(opts.justification), float(opts.slip)
    return np.stack([p_a * s, p_a * (1 - s), (1 - p_a) * slip, (1 - p_a) * (1 - slip)], axis=1)


def _given_class(params: Params, seed: int, row: Mapping[str, object], verdicts: list[dict[str, object]],
                 label: tuple[int, int] | None, zs: FloatArray, card: Card | None = None) -> FloatArray:
    """P(the row's verdicts and label | class) at each leniency ``zs`` of its model (z x class); the judges' rates
    the simulator's, or ``card``'s when given."""
    noise = float(params.annotations.noise)
    out = np.ones((len(zs), len(CLASSES)))
    for v in verdicts:
        own = bool(v["judge_provider"] == row["provider"])
        said = (bool(v["is_answer_correct"]), bool(v["is_justification_correct"]))
        pairs = ([card_rates(card, str(v["judge"]), own, name) for name in FIELDS] if card is not None else
                 [_judge_rates(params, seed, str(v["judge"]), str(row["model"]), own, leniency_known=False)] * 2)
        tilted = {pair: {1: np.array([lenient(pair[0], z) for z in zs]), 0: np.array([lenient(pair[1], z) for z in zs])}
                  for pair in set(pairs)}  # each distinct (right, wrong) pair moved by every leniency once
        for f, pair in enumerate(pairs):
            for i, c in enumerate(CLASSES):
                q = tilted[pair][c[f]]
                out[:, i] *= q if said[f] else 1 - q
    if label is not None:
        for i, c in enumerate(CLASSES):
            for really, seen in zip(c, label, strict=True):
                out[:, i] *= (1 - noise) if really == seen else noise
    return out


def mixed_over_spreads(counts: Mapping[float, Mapping[str, ModelCount]]) -> dict[str, FloatArray]:
    """Per model, its count when the spread is itself unknown (equal prior on each spread of ``counts``): the
    spreads weighed by the product of every model's evidence (the models share one world), the pmfs mixed."""
    spreads, w = _spread_weights(counts)
    models = sorted(counts[spreads[0]])
    return {m: np.einsum("s,sk->k", w, np.stack([counts[s][m].pmf for s in spreads])) for m in models}


def mixed_rows(counts: Mapping[float, Mapping[str, ModelCount]]) -> dict[tuple[str, str], float]:
    """(model, riddle_id) -> the row's P(both right) when the spread is unknown, the spreads weighed as in
    :func:`mixed_over_spreads`: the starts an interval would get from judges whose rates it knew."""
    spreads, w = _spread_weights(counts)
    return {(m, r): float(sum(wi * counts[s][m].right[r] for s, wi in zip(spreads, w, strict=True)))
            for m, c in counts[spreads[0]].items() for r in c.right}


def _spread_weights(counts: Mapping[float, Mapping[str, ModelCount]]) -> tuple[list[float], FloatArray]:
    """The spreads of ``counts`` and their posterior weights: equal prior, every model's evidence multiplied."""
    spreads = sorted(counts)
    log_w = np.array([sum(c.log_evidence for c in counts[s].values()) for s in spreads])
    w = np.exp(log_w - log_w.max())
    return spreads, w / w.sum()
