"""The labels the annotator audit reads (sideways.annotation.rater_labels.audit_labels): on any label log, the
calibrate stage and the report read exactly what ``sideways annotate stats`` and the app read through their store
(every surviving label, second ones included, in file order); a split whose labels are not that log reads its
annotations table; a broken log is one line naming the file and line."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sideways.annotation.rater_labels import audit_labels, audit_log, event_labels
from sideways.annotation_app.store import LabelStore
from sideways.core.errors import SidewaysError

values = st.one_of(st.booleans(), st.none(), st.integers(0, 1), st.just("yes"))
lines = st.lists(st.fixed_dictionaries({"riddle_id": st.sampled_from(["r1", "r2", "r3"]),
                                        "model": st.sampled_from(["m1", "m2"]),
                                        "annotator": st.sampled_from(["ana", "bob", "cy"]),
                                        "action": st.sampled_from(["label", "label", "label", "skip", "undo"]),
                                        "human_answer_correct": values,
                                        "human_justification_correct": values}), max_size=20)


def _valid(records: list[dict]) -> list[dict]:
    """The lines a log accepts (no second label by one annotator without an undo, no undo of nothing)."""
    alive: dict[tuple, list[str]] = {}
    out = []
    for r in records:
        key = (r["riddle_id"], r["model"], r["annotator"])
        stack = alive.setdefault(key, [])
        if r["action"] == "undo" and not stack or r["action"] == "label" and "label" in stack:
            continue
        if r["action"] == "undo":
            stack.pop()
        else:
            stack.append(r["action"])
        out.append(r)
    return out


@settings(max_examples=80, deadline=None)
@given(records=lines)
def test_the_stage_reads_the_log_as_the_app_and_stats_do(records):
    with tempfile.TemporaryDirectory() as tmp:
        labels = Path(tmp) / "labels"
        labels.mkdir()
        (labels / "llm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _valid(records)))
        table = pd.DataFrame({"riddle_id": ["r9"], "model": ["m9"]})
        read = audit_labels("file", labels, "llm", table)
        shown = event_labels(LabelStore(labels / "llm.jsonl").events())
        pd.testing.assert_frame_equal(read, shown)
        assert audit_labels("sim", labels, "llm", table) is table  # simulated labels: no log read
        (labels / "llm.parquet").write_bytes(b"")  # a Parquet label file takes precedence: no log either
        assert audit_log("file", labels, "llm") is None and audit_labels("file", labels, "llm", table) is table


def test_no_log_yet_and_an_empty_one(tmp_path):
    table = pd.DataFrame({"riddle_id": [], "model": []})
    assert audit_labels("file", tmp_path, "llm", table) is table
    (tmp_path / "llm.jsonl").write_text("")
    assert audit_labels("file", tmp_path, "llm", table).empty


def test_a_broken_log_is_one_line_naming_file_and_line(tmp_path):
    (tmp_path / "llm.jsonl").write_text('{"riddle_id": "r1", "model": "m", "annotator": "a", "action": "undo"}\n')
    with pytest.raises(SidewaysError, match=r"llm\.jsonl: line 1: undo"):
        audit_labels("file", tmp_path, "llm", pd.DataFrame())
