"""Every surviving label of the label log as a table, every annotator's (the first and the second label of a
double-labelled prediction alike): what the annotator audit reads (sideways.scoring.annotator_audit)."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from sideways.annotation.log import Event, labels

COLUMNS = ("riddle_id", "model", "annotator", "human_answer_correct", "human_justification_correct")


def event_labels(events: Iterable[Event]) -> pd.DataFrame:
    """(riddle_id, model, annotator, answer, justification) of each surviving label, in file order; a label without
    both fields as booleans is left out (the log's reader names bad lines; the audit reads only whole labels)."""
    rows = [(e.riddle_id, e.model, e.annotator, e.record.get(COLUMNS[3]), e.record.get(COLUMNS[4]))
            for e in labels(events)]
    keep = [r for r in rows if isinstance(r[3], bool) and isinstance(r[4], bool)]
    return pd.DataFrame(keep, columns=list(COLUMNS))
