"""Cross-artifact checks, run before anything is computed from the tables."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from sideways.core.errors import SchemaError


def require_complete(
    predictions: pd.DataFrame, riddle_ids: Iterable[str], source: str, *, models: Iterable[str] | None = None
) -> None:
    """Fail unless each model has a prediction for every riddle of ``riddle_ids`` and no other.

    A model enters a leaderboard only with predictions for every riddle of the split (docs/method.md
    §5). Stages check the model they ran (``models``, so an empty table fails too); the
    import path checks every model of ``predictions`` against all the riddles they cover. The
    error names the source and, for each incomplete model, how many riddles it lacks and which.
    """
    shown = [problem for _, problem in _problems(predictions, riddle_ids, models)]
    if shown:
        raise SchemaError(f"{source}: " + "; ".join(shown))


def require_each_complete(predictions: pd.DataFrame, riddle_ids: Iterable[str], sources: Mapping[str, Path]) -> None:
    """:func:`require_complete` for several models read together: ``sources`` maps each model to
    the file its rows came from, which the error names."""
    shown = [f"{sources[model]}: {problem}" for model, problem in _problems(predictions, riddle_ids, list(sources))]
    if shown:
        raise SchemaError("; ".join(shown))


def _problems(
    predictions: pd.DataFrame, riddle_ids: Iterable[str], models: Iterable[str] | None
) -> list[tuple[str, str]]:
    """(model, what is wrong) for each of ``models`` (default: every model of ``predictions``) whose
    riddles are not exactly ``riddle_ids``."""
    want = set(riddle_ids)
    have = {str(m): set(ids) for m, ids in predictions.groupby("model")["riddle_id"]}
    found = ((m, _problem(m, have.get(m, set()), want)) for m in (sorted(have) if models is None else models))
    return [(m, problem) for m, problem in found if problem]


def _problem(model: str, have: set[str], want: set[str]) -> str | None:
    """What is wrong with one model's riddles: the first missing ones, else unknown ones, else None."""
    missing, extra = sorted(want - have), sorted(have - want)
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        return f"model {model!r} has no prediction for {len(missing)} of {len(want)} riddle(s): {shown}"
    if extra:
        return f"model {model!r} has predictions for unknown riddle(s): {', '.join(extra[:10])}"
    return None
