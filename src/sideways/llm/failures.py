"""The failure share check a stage runs before writing its artifact."""

from __future__ import annotations

import pandas as pd

from sideways.core.errors import RequestError
from sideways.llm.budget import SPENDING_CAP_ERROR, SpendingCapReached


def failure_summary(df: pd.DataFrame) -> dict[str, int]:
    """Rows per status (ok, parse_error, api_error)."""
    return {str(k): int(v) for k, v in df["status"].value_counts().sort_index().items()}


def check_failure_share(df: pd.DataFrame, max_share: float, what: str, *, replay: bool = False) -> None:
    """Raise :class:`RequestError` if more than ``max_share`` of the rows of ``df`` failed.

    A failed row has status ``parse_error`` or ``api_error``. The message names ``what`` (e.g.
    ``predict gpt-5-1 on llm``), the counts per status and the first errors (by the item id of
    any benchmark: a riddle's ``riddle_id``, an exam question's ``item_id``), so the stage can
    stop without writing an artifact and the user knows what went wrong. ``replay``: the rows
    come from a file (backend ``replay``), so the advice is to fix the file, not to rerun.
    """
    if df.empty:
        return
    check_spending_cap(df, what)
    failed = df[df["status"] != "ok"]
    share = len(failed) / len(df)
    if share <= max_share:
        return
    key = id_column(df, what)
    examples = []
    for _, row in failed.head(3).iterrows():
        examples.append(f"{row[key]}: {row['status']}: {str(row.get('error') or '')[:160]}")
    raise RequestError(
        f"{what}: {len(failed)} of {len(df)} items failed ({share:.0%} > requests.max_failure_share "
        f"{max_share:.0%}); by status {failure_summary(df)}; first failures: " + " | ".join(examples)
        + ". Nothing was written; " + (_REPLAY_ADVICE if replay else _REQUEST_ADVICE)
    )


def check_spending_cap(df: pd.DataFrame, what: str) -> None:
    """Raise :class:`SpendingCapReached` when rows of ``df`` were not sent for the spending cap: the
    job is unfinished (its answered requests are cached; a rerun with a higher cap sends the rest)."""
    if "error" not in df.columns:
        return
    capped = df[df["error"].fillna("").astype(str).str.startswith(SPENDING_CAP_ERROR)]
    if capped.empty:
        return
    first = str(capped["error"].iloc[0])
    raise SpendingCapReached(f"{what}: {len(capped)} of {len(df)} requests not sent, the first: {first}")


# the id column of each benchmark's tables: a riddle's, an exam question's
ID_COLUMNS = ("riddle_id", "item_id")


def id_column(df: pd.DataFrame, what: str) -> str:
    """The column naming the items of ``df``: the first of :data:`ID_COLUMNS` it has."""
    for column in ID_COLUMNS:
        if column in df.columns:
            return column
    raise ValueError(f"{what}: the failure summary needs an id column ({' or '.join(ID_COLUMNS)}), "
                     f"got {', '.join(map(str, df.columns))}")


_REQUEST_ADVICE = "answered requests are cached, so rerunning re-sends only the failed ones."
_REPLAY_ADVICE = (
    "these rows are replayed from a file (backend: replay), so a rerun reads the same failures: fix the "
    "broken rows in the replay file, or raise requests.max_failure_share to accept them (docs/real-models.md, "
    "\"Replay rules\")."
)


def judged(judgments: pd.DataFrame, predictions: pd.DataFrame) -> pd.DataFrame:
    """The verdicts a judge was actually asked for: those on predictions with status ok.

    A prediction that already failed is counted against the predict stage, not the judge.
    """
    ok = set(predictions.loc[predictions["status"] == "ok", "riddle_id"])
    return judgments[judgments["riddle_id"].isin(ok)]
