"""Judge cards: each judge's verdict rates measured on labelled rows, carried to another set of rows.

Why: an interval whose judges' rates were known before a split is scored covers every simulated cell measured
(docs/method.md §6, "Judges known beforehand"). A card is what a project could actually carry: the rates a judge
showed against human labels elsewhere (an earlier round, other riddles), with the noise of a finite sample and of
the annotators. This module measures such cards; nothing in the pipeline reads them.

A card maps (judge, own, field) to (P(says right | right), P(says right | wrong)), each the posterior mean under
Beta(1, 1) of the judge's verdicts on that field against the labels: ``own`` is whether the judge's provider made the
graded model (a judge may favour its own), ``field`` ``answer`` or ``justification``.

:func:`card_predictions` turns a card into each row's probability of being right in both fields: judges independent
given the row's class (answer, justification), each model's class shares fitted by EM on its rows' verdicts alone
(no label), and Bayes' rule per row.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from lab.coverage import simulate_run
from lab.judge_rates import FIELDS, labelled_verdicts
from sideways.annotation.labels import seeded_sample, simulate_labels
from sideways.config.params import Params
from sideways.scoring.ppi import FloatArray

Card = Mapping[tuple[str, bool, str], tuple[float, float]]
#: The classes (answer right, justification right), both right first; a class's fields in the order of
#: :data:`lab.judge_rates.FIELDS`.
CLASSES = ((1, 1), (1, 0), (0, 1), (0, 0))
#: EM sweeps for the class shares; a share's Dirichlet(1/2) prior keeps an unseen class possible.
EM_STEPS = 200
#: A previous round's seed is the run's seed plus this: its own predictions, verdicts and labels.
PREVIOUS_ROUND = 1000


def estimate_card(judgments: pd.DataFrame, labels: pd.DataFrame, providers: Mapping[str, str]) -> Card:
    """The card of every judge with a verdict on a labelled row (``ok`` judgments against an ANNOTATIONS table);
    ``providers``: model -> its provider, to tell a judge's own models apart."""
    verdicts = labelled_verdicts(judgments, labels)
    own = verdicts["judge_provider"].to_numpy() == verdicts["model"].map(providers).to_numpy()
    card = {}
    for (judge, is_own, field), group in verdicts.groupby([verdicts["judge"], own, verdicts["field"]], sort=True):
        said, truth = group["said"].to_numpy(), group["truth"].to_numpy()
        card[(str(judge), bool(is_own), str(field))] = (float((said[truth].sum() + 1) / (truth.sum() + 2)),
                                                        float((said[~truth].sum() + 1) / ((~truth).sum() + 2)))
    for judge, is_own, _ in list(card):  # a field the judge never gave a verdict on: the prior's mean
        for field in FIELDS:
            card.setdefault((judge, is_own, field), (0.5, 0.5))
    return card


def previous_round_card(params: Params, riddles: pd.DataFrame, seed: int, share: float) -> Card:
    """The card a previous round would leave: another simulated run of the same riddles and models
    (seed + :data:`PREVIOUS_ROUND`: other predictions, verdicts and leniencies), ``share`` of its predictions labelled
    by the same annotators (``annotations.noise``)."""
    previous = seed + PREVIOUS_ROUND
    split = str(riddles["split"].iloc[0])
    predictions, judgments, _ = simulate_run(params, riddles, previous)
    labels = simulate_labels(seeded_sample(predictions, share, previous, split), riddles, previous,
                             params.annotations.noise)
    return estimate_card(judgments, labels, dict(zip(predictions["model"], predictions["provider"], strict=True)))


def rates(card: Card, judge: str, own: bool, field: str) -> tuple[float, float]:
    """The card's rates of ``judge`` on ``field`` for a model of its own provider or not; a judge the card never saw
    on that kind of model takes its other kind's rates."""
    key = (judge, own, field)
    if key not in card:
        key = (judge, not own, field)
    if key not in card:
        raise KeyError(f"card: no rates for judge {judge!r}")
    return card[key]


def card_predictions(judgments: pd.DataFrame, providers: Mapping[str, str], card: Card) -> pd.DataFrame:
    """(riddle_id, model, predicted) of every row with an ``ok`` verdict: P(both right | its verdicts) under the
    card's rates, judges independent given the class, each model's class shares by EM on its own rows (no label)."""
    ok = judgments[judgments["status"] == "ok"]
    likelihood: dict[tuple[str, str], FloatArray] = {}
    for v in ok.itertuples(index=False):
        key = (str(v.riddle_id), str(v.model))
        row = likelihood.setdefault(key, np.ones(len(CLASSES)))
        own = v.judge_provider == providers[key[1]]
        for f, (field, (said_column, _)) in enumerate(FIELDS.items()):
            said = getattr(v, said_column)
            if pd.isna(said):
                continue
            right, wrong = rates(card, str(v.judge), bool(own), field)
            for c, cls in enumerate(CLASSES):
                q = right if cls[f] else wrong
                row[c] *= q if bool(said) else 1 - q
    keys = sorted(likelihood)
    out = []
    for model in sorted({k[1] for k in keys}):
        mine = [k for k in keys if k[1] == model]
        lik = np.array([likelihood[k] for k in mine])
        posterior = _em_posterior(lik)
        out += [(r, m, float(p)) for (r, m), p in zip(mine, posterior[:, 0], strict=True)]
    return pd.DataFrame(out, columns=["riddle_id", "model", "predicted"])


def _em_posterior(likelihood: FloatArray) -> FloatArray:
    """Rows' class posteriors (rows x classes) with the class shares fitted by EM (MAP under Dirichlet(1/2))."""
    shares = np.full(likelihood.shape[1], 1 / likelihood.shape[1])
    for _ in range(EM_STEPS):
        post = likelihood * shares
        post /= post.sum(axis=1, keepdims=True)
        shares = (post.sum(axis=0) + 0.5) / (len(likelihood) + 0.5 * likelihood.shape[1])
    post = likelihood * shares
    out: FloatArray = post / post.sum(axis=1, keepdims=True)
    return out
