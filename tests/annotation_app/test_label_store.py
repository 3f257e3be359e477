"""The label store: whole lines, a check under the lock, other writers' lines seen, damage named."""

from __future__ import annotations

import json

import pytest

from sideways.annotation_app.store import LabelStore, extend
from sideways.core.errors import SchemaError


def _rec(r, who="ana"):
    return {"riddle_id": r, "model": "m", "provider": "p", "human_answer_correct": True,
            "human_justification_correct": True, "annotator": who}


def test_appends_are_whole_lines_and_another_writers_lines_are_seen(tmp_path):
    path = tmp_path / "labels" / "llm.jsonl"
    mine, theirs = LabelStore(path), LabelStore(path)
    assert mine.events() == []
    mine.append(_rec("a"))
    theirs.append(_rec("b", "bob"))
    assert [(e.riddle_id, e.line) for e in mine.events()] == [("a", 1), ("b", 2)]
    assert path.read_text().endswith("\n") and len(path.read_text().splitlines()) == 2


def test_a_refused_append_writes_nothing(tmp_path):
    store = LabelStore(tmp_path / "llm.jsonl")
    store.append(_rec("a"))

    def refuse(events):
        raise RuntimeError(f"{len(events)} already")

    with pytest.raises(RuntimeError, match="1 already"):
        store.append(_rec("b"), refuse)
    assert len(store.events()) == 1 and len((tmp_path / "llm.jsonl").read_text().splitlines()) == 1


def test_a_half_written_line_is_an_error_not_skipped(tmp_path):
    path = tmp_path / "llm.jsonl"
    path.write_text(json.dumps(_rec("a")) + "\n" + '{"riddle_id": "b"')
    with pytest.raises(SchemaError, match=r"llm\.jsonl: line 2 has no end of line"):
        LabelStore(path).events()


def test_a_replaced_file_is_read_again(tmp_path):
    path = tmp_path / "llm.jsonl"
    store = LabelStore(path)
    store.append(_rec("a"))
    store.append(_rec("b"))
    replacement = tmp_path / "new.jsonl"
    replacement.write_text(json.dumps(_rec("c")) + "\n")
    replacement.replace(path)
    assert [e.riddle_id for e in store.events()] == ["c"]


def test_extend_adds_only_new_labels(tmp_path):
    store = LabelStore(tmp_path / "llm.jsonl")
    assert extend(store, [_rec("a"), _rec("b")]) == 2
    assert extend(store, [_rec("a"), _rec("c"), _rec("a", "bob")]) == 2
    assert [(e.riddle_id, e.annotator) for e in store.events()] == [("a", "ana"), ("b", "ana"), ("c", "ana"), ("a", "bob")]
