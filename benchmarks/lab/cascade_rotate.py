"""A measured cascade design, not the pipeline's: a rotating first pair. Each prediction's first judges are drawn
from its panel's pairs by a seeded coin per (seed, riddle, model), each pair equally likely; the third judge is
asked only where the two disagree (the plain rule, :func:`sideways.scoring.cascade.settled_codes`).
``benchmarks/studies/real_coverage.py --cascade rotate [--rotate-seed S]`` measures it.

Why: a fixed first pair hides its own joint errors (a row it settles wrongly never shows the third judge's
dissent), and every rule choosing that pair from data hinged on about two predictions. Under rotation no order is
chosen; every pair is first on some rows and is checked by the third judge wherever it disagrees, and the hidden
errors are the average over pairs, not the worst pair's.

Settings fixed before measuring: the coin is :func:`sideways.core.seeding.stable_int` of (seed, "cascade-rotate",
riddle_id, model), modulo the number of pairs (the pairs of the panel in its file order); 2 first judges; the
verdicts not asked marginalised ("marginal"), each row's own first pair deciding which (:func:`marginalised`);
measured with ``real_coverage.py --intervals latent --repeats 10`` (seed 0, shares 0.125, 0.25, 0.5) against the
full jury on the same repeats, for rotation seeds 0 to 4, each and pooled.

The pipeline's latent fit (:func:`sideways.scoring.latent_class.table_evidence`) marks a verdict not asked by the
model's panel order, one first pair per model; :func:`marginalised` swaps in the per-row pair for the duration of a
measurement (a lab stand-in for a per-row head the fit would need if the design were built).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd

from sideways.core.seeding import stable_int
from sideways.scoring import cascade, latent_class

#: A (riddle_id, model) row's judges in the order a rotating cascade asks them: its drawn pair, then the rest.
RowPanels = dict[tuple[str, str], tuple[str, ...]]


def pair_index(seed: int, riddle_id: str, model: str, pairs: int) -> int:
    """The row's pair among ``pairs`` (0 .. pairs - 1): the stable hash of (seed, "cascade-rotate", riddle, model)."""
    return stable_int(seed, "cascade-rotate", riddle_id, model) % pairs


def row_panels(keys: pd.DataFrame, panels: Mapping[str, Sequence[str]], seed: int, first: int = 2) -> RowPanels:
    """Each (riddle_id, model) row of ``keys``: its model's panel reordered so the drawn ``first`` judges (one of the
    panel's combinations, in file order, each equally likely) come first, the others after in panel order."""
    out: RowPanels = {}
    for rid, model in zip(keys["riddle_id"].astype(str), keys["model"].astype(str), strict=True):
        panel = tuple(panels.get(model, ()))
        if len(panel) <= first:
            out[(rid, model)] = panel
            continue
        pairs = list(itertools.combinations(panel, first))
        head = pairs[pair_index(seed, rid, model, len(pairs))]
        out[(rid, model)] = head + tuple(j for j in panel if j not in head)
    return out


def drop_unasked(judgments: pd.DataFrame, rows: RowPanels, first: int = 2) -> pd.DataFrame:
    """``judgments`` without the verdicts a rotating cascade would not have asked: on each row its first ``first``
    judges (``rows[(riddle_id, model)]``) settle, the later judges' verdicts are dropped."""
    keys = judgments[["riddle_id", "model"]].drop_duplicates().reset_index(drop=True)
    keys = keys.assign(riddle_id=keys["riddle_id"].astype(str), model=keys["model"].astype(str))
    codes = _head_codes(judgments, keys, rows, first)
    settled = cascade.settled_codes(codes)
    later = pd.DataFrame([(rid, m, j) for (rid, m), s in zip(zip(keys["riddle_id"], keys["model"], strict=True),
                                                             settled, strict=True) if s
                          for j in rows.get((rid, m), ())[first:]], columns=["riddle_id", "model", "judge"])
    probe = judgments[["riddle_id", "model", "judge"]].astype(str)
    marked = probe.merge(later.assign(_unasked=True), on=["riddle_id", "model", "judge"], how="left")
    out: pd.DataFrame = judgments[marked["_unasked"].isna().to_numpy()].reset_index(drop=True)
    return out


def _head_codes(judgments: pd.DataFrame, keys: pd.DataFrame, rows: RowPanels, first: int) -> np.ndarray[Any, Any]:
    """The latent-class codes (rows of ``keys`` x ``first``) of each row's first judges; 8 where one has no ok
    verdict (as :func:`sideways.scoring.cascade.first_codes`, per row instead of per model)."""
    ok = judgments[judgments["status"] == "ok"]
    code = cascade._code(ok["is_answer_correct"]) + 3 * cascade._code(ok["is_justification_correct"])
    lookup = dict(zip(zip(ok["riddle_id"].astype(str), ok["model"].astype(str), ok["judge"], strict=True),
                      code.tolist(), strict=True))
    out = np.full((len(keys), first), 8, dtype=np.int64)
    for i, key in enumerate(zip(keys["riddle_id"], keys["model"], strict=True)):
        for k, judge in enumerate(rows.get(key, ())[:first]):
            out[i, k] = lookup.get((*key, judge), 8)
    return out


@contextmanager
def marginalised(rows: RowPanels) -> Iterator[None]:
    """While open: the latent fit (:func:`sideways.scoring.latent_class.table_evidence` with ``first`` > 0) takes a
    row's first judges from ``rows`` (its own drawn pair) instead of its model's panel order, so a verdict the
    rotating cascade did not ask is off the row's pattern (marginalised), not a "no verdict"."""
    table = latent_class.table_evidence

    def evidence(jury: pd.DataFrame, judgments: pd.DataFrame, annotations: pd.DataFrame,
                 first: int = 0) -> latent_class.Rows:
        keys = list(zip(jury["riddle_id"].astype(str), jury["model"].astype(str), strict=True))

        def per_row(codes: latent_class.IntArray, models: Sequence[str], panel_of: dict[str, tuple[str, ...]],
                    judge_index: dict[str, int], first: int) -> None:
            for i, key in enumerate(keys):  # the codes' rows are the jury's, in order (before the empty ones go)
                order = rows.get(key, panel_of.get(models[i], ()))
                if len(order) <= first:
                    continue
                head = codes[i, [judge_index[j] for j in order[:first]]]
                if cascade.settled_codes(head[None, :])[0]:
                    for j in order[first:]:
                        if codes[i, judge_index[j]] == latent_class.CODES - 1:
                            codes[i, judge_index[j]] = -1

        with mock.patch.object(latent_class, "_mark_unasked", per_row):
            return table(jury, judgments, annotations, first)

    with mock.patch.object(latent_class, "table_evidence", evidence):
        yield
