"""The progress view's annotator audit (docs/method.md §6, "Raters audited"): the latent posterior's error rates
of every annotator, as lines the page shows, recomputed in the background when the labels changed.

Why in the background: the audit fits the latent-class model once per annotator (seconds on a large split), and
the progress answer goes with every label saved. The page gets the last finished audit and the label count it
read; a newer one starts when the count moved, one at a time and at most one every :data:`EVERY` seconds (a busy
app does not keep a core fitting).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from sideways.annotation.log import Event
from sideways.annotation.rater_labels import event_labels
from sideways.artifacts import paths
from sideways.artifacts.io import read_table, read_tables
from sideways.artifacts.schema import JUDGMENTS, JURY
from sideways.core.errors import SidewaysError
from sideways.scoring.annotator_audit import annotator_lines
from sideways.scoring.rater_audit import annotator_audits

#: The fewest seconds between the starts of two audits.
EVERY = 15.0


def split_tables(split: str, models: list[str], root: Path = Path(".")) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(jury, judgments) of ``split`` over ``models`` that have judgments; a one-line error without a jury table."""
    if not (root / paths.jury(split)).exists():
        raise SidewaysError(f"{paths.jury(split)}: not computed yet; run `dvc repro` first (the audit reads the "
                            f"panels' verdicts)")
    jury = read_table(root / paths.jury(split), JURY)
    found = [root / paths.judgments(split, m) for m in models if (root / paths.judgments(split, m)).exists()]
    if not found:
        raise SidewaysError(f"{paths.judgments(split, 'x').parent}: no judgments yet; run `dvc repro` first (the "
                            f"audit reads the panels' verdicts)")
    return jury, read_tables(found, JUDGMENTS, f"{split} judgments")


class AuditField:
    """The audit of one split's labels, kept and refreshed by a background thread (module docstring)."""

    def __init__(self, seed: int, split: str, root: Path = Path("."), first: int = 0) -> None:
        self.seed, self.split, self.root, self.first = seed, split, root, first
        self.lock = threading.Lock()
        self.done: dict[str, Any] = {"labels": None, "lines": ["annotators audited: computing"]}
        self.asked: int | None = None
        self.running = False
        self.started = -EVERY
        self.tables: tuple[pd.DataFrame, pd.DataFrame] | None = None

    def field(self, count: int, events: Callable[[], list[Event]]) -> dict[str, Any]:
        """The last finished audit; starts a new one when the label count is not the one it read. ``events`` is
        called only then, so a progress answer costs nothing in the log's length."""
        with self.lock:
            now = time.monotonic()
            if count != self.asked and not self.running and now - self.started >= EVERY:
                self.asked, self.running, self.started = count, True, now
                frame = event_labels(events())
                threading.Thread(target=self._compute, args=(frame,), daemon=True).start()
            return dict(self.done)

    def _compute(self, frame: pd.DataFrame) -> None:
        try:
            if self.tables is None:
                jury = read_table(self.root / paths.jury(self.split), JURY) if (
                    self.root / paths.jury(self.split)).exists() else None
                if jury is None:
                    raise SidewaysError(f"{paths.jury(self.split)}: not computed yet; run `dvc repro` first")
                self.tables = split_tables(self.split, sorted(jury["model"].unique()), self.root)
            audits = annotator_audits(*self.tables, frame, seed=self.seed, split=self.split, first=self.first)
            done: dict[str, Any] = {"labels": len(frame), "lines": annotator_lines(audits),
                                    "flagged": [a.annotator for a in audits if a.flagged]}
        except Exception as exc:  # noqa: BLE001 - a background thread: whatever stops it is said on the page
            done = {"labels": len(frame), "lines": [f"annotators not audited: {str(exc)[:200]}"], "flagged": []}
        with self.lock:
            self.done, self.running = done, False


_FIELDS: weakref.WeakKeyDictionary[Any, AuditField] = weakref.WeakKeyDictionary()


def audit_field(service: Any, count: int, events: Callable[[], list[Event]]) -> dict[str, Any]:
    """The ``audit`` field of ``service``'s progress answer (one :class:`AuditField` per service): ``count`` labels
    survive in the log, ``events()`` lists them."""
    if service not in _FIELDS:
        _FIELDS[service] = AuditField(service.plan.seed, service.plan.split, first=service.plan.cascade_first)
    return _FIELDS[service].field(count, events)
