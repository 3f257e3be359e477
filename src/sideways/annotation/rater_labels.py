"""Every surviving label of the label log as a table, every annotator's (the first and the second label of a
double-labelled prediction alike): what the annotator audit reads (sideways.scoring.annotator_audit), in every view.

``sideways annotate stats`` and the app's progress view read the log's events as they stand (:func:`event_labels`);
the calibrate stage and the report read the split's labels with :func:`audit_labels`: the same function on the same
log when the split's labels are that log, so the three show one audit (the pair rule reads the second labels).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from sideways.annotation.labels import label_file
from sideways.annotation.log import Event, labels, replay
from sideways.core.jsonl import read_jsonl_numbered

COLUMNS = ("riddle_id", "model", "annotator", "human_answer_correct", "human_justification_correct")


def event_labels(events: Iterable[Event]) -> pd.DataFrame:
    """(riddle_id, model, annotator, answer, justification) of each surviving label, in file order; a label without
    both fields as booleans is left out (the log's reader names bad lines; the audit reads only whole labels)."""
    rows = [(e.riddle_id, e.model, e.annotator, e.record.get(COLUMNS[3]), e.record.get(COLUMNS[4]))
            for e in labels(events)]
    keep = [r for r in rows if isinstance(r[3], bool) and isinstance(r[4], bool)]
    return pd.DataFrame(keep, columns=list(COLUMNS))


def audit_log(source: str, labels_dir: Path, split: str) -> Path | None:
    """The label log the split's labels come from: ``<split>.jsonl`` when ``annotations.source`` is ``file`` for it
    and no ``<split>.parquet`` takes precedence (:func:`sideways.annotation.labels.label_file`); None otherwise
    (simulated labels, a Parquet label file, no file yet: no second label to read)."""
    found = label_file(labels_dir, split) if source == "file" else None
    return found if found is not None and found.suffix == ".jsonl" else None


def audit_labels(source: str, labels_dir: Path, split: str, annotations: pd.DataFrame) -> pd.DataFrame:
    """The labels the split's annotator audit reads: every surviving label of its label log (:func:`audit_log`,
    replayed as the annotate stage replays it, then :func:`event_labels`: an empty file is no label), else
    ``annotations`` (the annotate stage's table: the labels calibration reads) as it is."""
    log = audit_log(source, labels_dir, split)
    if log is None:
        return annotations
    records, lines = read_jsonl_numbered(log)
    return event_labels(replay(records, lines, str(log)))
