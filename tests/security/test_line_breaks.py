"""Issue 27: U+2028, U+2029 and U+0085 inside an answer or a note round-trip through the answers
files and the label log (``str.splitlines`` split lines on them: the file then read as broken JSON)."""

from __future__ import annotations

import pytest

from helpers.label_project import label_project
from sideways.annotation.labels import read_label_file
from sideways.annotation_app.items import load_items
from sideways.annotation_app.service import LabelService
from sideways.annotation_app.store import LabelStore
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import RIDDLES
from sideways.config.params import load_params
from sideways.core.jsonl import encode_line, read_jsonl
from sideways.llm.answers import read_answers, restore, write_answers
from sideways.llm.cache import RequestCache, request_key

BREAKS = ["\u2028", "\u2029", "\x85"]


@pytest.mark.parametrize("sep", BREAKS)
def test_an_answer_with_a_line_separator_round_trips_through_an_answers_file(tmp_path, sep):
    key = request_key({"body": sep})
    record = {"key": key, "label": "predict/m/r1", "response": {"text": f"first{sep}second"}, "error": None}
    path = tmp_path / "data/answers/predict/llm/m.jsonl"
    write_answers(path, [record])
    assert sep.encode() not in path.read_bytes() and path.read_bytes().count(b"\n") == 1
    back = read_answers(path)
    assert back == [record]
    cache = RequestCache(tmp_path / "cache")
    assert restore(back, cache) == 1 and cache.get(key)["response"]["text"] == f"first{sep}second"


@pytest.mark.parametrize("sep", BREAKS)
def test_a_raw_separator_inside_a_string_is_read(tmp_path, sep):
    path = tmp_path / "a.jsonl"
    path.write_text(f'{{"note": "a{sep}b"}}\n{{"note": "c"}}\n', encoding="utf-8")
    assert read_jsonl(path) == [{"note": f"a{sep}b"}, {"note": "c"}]
    assert encode_line({"note": f"a{sep}b"}).decode().count(sep) == 0


@pytest.mark.parametrize("sep", BREAKS)
def test_a_note_with_a_line_separator_is_saved_and_the_annotate_stage_reads_it(tmp_path, monkeypatch, sep):
    project = label_project(tmp_path / "p", n_riddles=3)
    monkeypatch.chdir(project)
    params = load_params("params.yaml")
    items = load_items(params, "llm")
    store = LabelStore(project / "data/labels/llm.jsonl")
    from sideways.commands.annotate import plan_for
    service = LabelService(items, plan_for(params, "llm", items), store, "ana")
    token = service.open_session()
    item = service.next(token)
    saved = service.label(token, {"item_id": item["item_id"], "answer_correct": True,
                                  "justification_correct": False, "note": f"odd{sep}reply"})
    assert saved["saved"]
    labels = read_label_file(store.path, read_table(project / "data/split/llm.parquet", RIDDLES))
    assert len(labels) == 1
    assert LabelStore(store.path).events()[0].record["note"] == f"odd{sep}reply"
