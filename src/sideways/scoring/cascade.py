"""The cascaded jury (docs/method.md §2, "A cascaded jury"): every row goes to the panel's first judges, and to
the rest only where those disagree.

Why: most predictions are graded the same by any two frontier judges; a third verdict there adds little, and it
is a third of the judge bill. The rule is one function of the first judges' verdicts, used by the judge stage
(which rows the next round of batches sends), by the latent posterior (which verdicts were not asked, and are
therefore marginalised rather than read as "no verdict") and by ``benchmarks/studies/real_coverage.py --cascade``
(which verdicts a cascaded run would not have had).

A row is *settled* when every one of its first judges returned a verdict (status ok) on the answer and on the
justification and they all agree on both; every other row is escalated, a failed or partial first verdict
included. Whether a row is escalated depends only on verdicts that are observed, so the verdicts not asked are
missing at random given what was observed: a likelihood that leaves them out is the right one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

BoolArray = npt.NDArray[np.bool_]
#: The verdict columns whose agreement settles a row.
VERDICTS = ("is_answer_correct", "is_justification_correct")


def settled_codes(codes: npt.NDArray[np.int64]) -> BoolArray:
    """Per row of ``codes`` (rows x first judges, the latent-class codes ``a + 3 j`` with 2 for a missing field,
    -1 or 8 for no verdict), whether the row is settled: every code known on both fields and all equal."""
    codes = np.asarray(codes, dtype=np.int64)
    if codes.shape[1] == 0:
        return np.zeros(len(codes), dtype=bool)
    known = (codes >= 0) & (codes % 3 < 2) & (codes // 3 < 2)
    out: BoolArray = known.all(axis=1) & (codes == codes[:, :1]).all(axis=1)
    return out


def first_codes(judgments: pd.DataFrame, keys: pd.DataFrame, first: Mapping[str, Sequence[str]],
                ) -> npt.NDArray[np.int64]:
    """The codes (rows x first judges) of each (riddle_id, model) row of ``keys``: ``first[model]`` the judges asked
    first, in order; 8 where a first judge has no ok verdict on the row."""
    width = max((len(v) for v in first.values()), default=0)
    out = np.full((len(keys), width), 8, dtype=np.int64)
    ok = judgments[judgments["status"] == "ok"]
    code = _code(ok["is_answer_correct"]) + 3 * _code(ok["is_justification_correct"])
    lookup = dict(zip(zip(ok["riddle_id"], ok["model"], ok["judge"], strict=True), code.tolist(), strict=True))
    for i, (rid, model) in enumerate(zip(keys["riddle_id"], keys["model"], strict=True)):
        for k, judge in enumerate(first.get(model, ())):
            out[i, k] = lookup.get((rid, model, judge), 8)
    return out


def escalated(judgments: pd.DataFrame, keys: pd.DataFrame, first: Mapping[str, Sequence[str]]) -> BoolArray:
    """Per (riddle_id, model) row of ``keys``, whether the next judges grade it: not settled by ``first[model]``."""
    return ~settled_codes(first_codes(judgments, keys, first))


#: A further escalation rule: per (riddle_id, model) row of ``keys``, whether the next judges grade it too, from
#: the judgments and each model's first judges (``lab.cascade_unsure.unsure_rule`` is one, measured).
Escalate = Callable[[pd.DataFrame, pd.DataFrame, Mapping[str, Sequence[str]]], BoolArray]


def drop_unasked(judgments: pd.DataFrame, panels: Mapping[str, Sequence[str]], first: int,
                 also: Escalate | None = None) -> pd.DataFrame:
    """``judgments`` without the verdicts a cascade would not have asked: for each model, the judges of its panel
    (``panels[model]``, in the order they are asked) after the first ``first`` lose their rows where the first
    ones settle the row (and ``also``, when given, does not escalate it). ``first`` 0 keeps every row."""
    if first <= 0:
        return judgments
    keys = judgments[["riddle_id", "model"]].drop_duplicates().reset_index(drop=True)
    heads = {m: list(p[:first]) for m, p in panels.items()}
    up = escalated(judgments, keys, heads)
    if also is not None:
        up |= also(judgments, keys, heads)
    settled = keys[~up]
    later = pd.DataFrame([(m, j) for m, p in panels.items() for j in p[first:]], columns=["model", "judge"])
    unasked = settled.merge(later, on="model")
    marked = judgments.merge(unasked.assign(_unasked=True), on=["riddle_id", "model", "judge"], how="left")
    out: pd.DataFrame = judgments[marked["_unasked"].isna().to_numpy()].reset_index(drop=True)
    return out


def _code(values: pd.Series) -> npt.NDArray[np.int64]:
    """0 wrong, 1 right, 2 no verdict (as :func:`sideways.scoring.latent_class` codes a field)."""
    out: npt.NDArray[np.int64] = np.where(values.isna().to_numpy(), 2,
                                          values.fillna(False).astype(bool).to_numpy().astype(np.int64))
    return out
