"""The ``uncertain`` queue's scores (docs/method.md §6, "Which labels next"): per prediction, how unsure the
latent-class model, fitted on the split's verdicts and the labels so far, is of its truth: p (1 - p), p its
predicted probability of being right for the calibration field.

Why: the default interval is the latent posterior, and a label there teaches more than its own bin: it tells how
the judges behave on its verdict pattern, for every model they grade. The predictions the model is least sure of
are where a label moves it most.

Why in the background: a fit takes seconds on a large split, and the next item goes with every label saved. The
first fit runs at start (the first item is already in this order); afterwards a new fit starts when the label count
moved, one at a time and at most one every :data:`EVERY` seconds, and the queue keeps the last finished one until the
next lands (:class:`Scores`). A request never fits and never reads the log.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pandas as pd

from sideways.annotation.log import Event, ItemKey, labels
from sideways.annotation.rater_labels import event_labels
from sideways.scoring import latent_class

#: The fewest seconds between the starts of two fits.
EVERY = 15.0


def stream(split: str) -> str:
    """The sampler's stream of the queue's fits (the benchmark's too: the same order for the same inputs)."""
    return f"queue/{split}"


def uncertainty(jury: pd.DataFrame, judgments: pd.DataFrame, labels: pd.DataFrame, field: str, *, seed: int,
                split: str) -> dict[ItemKey, float]:
    """(riddle_id, model) -> p (1 - p), rounded to 9 digits (ties are the coin's), for every jury row with a verdict;
    ``labels``: the first label of each prediction (riddle_id, model, human_answer_correct,
    human_justification_correct), or an empty frame. Seeded: the same inputs give the same scores."""
    first = labels.drop_duplicates(["riddle_id", "model"]) if len(labels) else labels
    rows = latent_class.table_evidence(jury, judgments, first)
    p = latent_class.sample(rows.evidence, field, seed=seed, stream=stream(split)).predicted
    keys = zip(rows.keys["riddle_id"], rows.keys["model"], strict=True)
    return {(str(r), str(m)): round(float(x * (1 - x)), 9) for (r, m), x in zip(keys, p, strict=True)}


def fit_for(jury: pd.DataFrame, judgments: pd.DataFrame, field: str, seed: int,
            split: str) -> Callable[[pd.DataFrame], dict[ItemKey, float]]:
    """:func:`uncertainty` on one split's tables, given the labels."""
    def fit(labels: pd.DataFrame) -> dict[ItemKey, float]:
        return uncertainty(jury, judgments, labels, field, seed=seed, split=split)
    return fit


class Scores[T]:
    """The last finished fit's scores and their version (module docstring); ``fit`` maps the labels to the scores
    (the ``latent`` queue's: its per-cell fit, :mod:`sideways.annotation_app.latent_gain`).

    ``every``: the fewest seconds between two fits' starts (``math.inf``: only the fit at start)."""

    def __init__(self, fit: Callable[[pd.DataFrame], T], events: list[Event], every: float = EVERY,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.fit, self.every, self.monotonic = fit, every, monotonic
        self.lock = threading.Lock()
        self.asked = len(labels(events))
        self.scores: T = fit(event_labels(events))
        self.version = 0
        self.running = False
        self.started = monotonic()

    def current(self) -> tuple[int, T]:
        """(version, scores) of the last finished fit."""
        with self.lock:
            return self.version, self.scores

    def refresh(self, count: int, events: Callable[[], list[Event]]) -> None:
        """Start a fit in the background when the label count is not the one the last fit read (and none runs, and
        ``every`` seconds went by); ``events`` is called only then, so a request costs nothing in the log's length."""
        with self.lock:
            now = self.monotonic()
            if count == self.asked or self.running or now - self.started < self.every:
                return
            self.asked, self.running, self.started = count, True, now
            frame = event_labels(events())
        threading.Thread(target=self._compute, args=(frame,), daemon=True).start()

    def _compute(self, frame: pd.DataFrame) -> None:
        try:
            scores: T | None = self.fit(frame)
        except Exception:  # noqa: BLE001 - a background thread: the queue keeps the last fit's order
            scores = None
        with self.lock:
            if scores is not None:
                self.scores, self.version = scores, self.version + 1
            self.running = False
