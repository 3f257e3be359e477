"""Answers files: the request-cache records a paid stage used, written beside its results."""

from __future__ import annotations

import pytest

from sideways.core.errors import SchemaError
from sideways.llm.answers import read_answers, restore, restore_previous, used, write_answers
from sideways.llm.cache import RequestCache


def k(name: str) -> str:
    """A valid cache key standing for ``name`` (64 hex digits)."""
    return (name.encode().hex() * 64)[:64]


def record(key: str, answer: str = "42") -> dict:
    key = k(key)
    return {"key": key, "label": f"predict/m/{key}", "parts": {"body": key}, "response": {"text": answer}}


def test_same_records_same_bytes_sorted_by_key_whatever_the_order(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_answers(a, [record("bb"), record("aa"), record("bb")])
    write_answers(b, [record("aa"), record("bb")])
    assert a.read_bytes() == b.read_bytes()
    assert [r["key"] for r in read_answers(a)] == [k("aa"), k("bb")]


def test_no_records_is_an_empty_file(tmp_path):
    path = tmp_path / "x" / "empty.jsonl"
    write_answers(path, [])
    assert path.read_bytes() == b"" and read_answers(path) == []


@pytest.mark.parametrize(("text", "message"), [
    (f'{{"key": "{k("aa")}"}}\n{{not json\n', r"a\.jsonl: line 2: not valid JSON"),
    (f'{{"key": "{k("aa")}"}}\n\n{{"label": "no key"}}\n', r"a\.jsonl: line 3: 'key' must be 64 lowercase hex"),
    (f'{{"key": "{k("aa")}"}}\n{{"key": "../../x"}}\n', r"a\.jsonl: line 2: 'key' must be 64 lowercase hex"),
])
def test_a_broken_line_names_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "a.jsonl"
    path.write_text(text)
    with pytest.raises(SchemaError, match=message):
        read_answers(path)


def test_restore_adds_only_what_the_cache_lacks_and_used_finds_them(tmp_path):
    cache = RequestCache(tmp_path / "cache")
    cache.put(record("aa", answer="mine"))
    assert restore([record("aa", answer="theirs"), record("bb")], cache) == 1
    assert cache.get(k("aa"))["response"] == {"text": "mine"}  # a local record is never overwritten
    assert [r["key"] for r in sorted(used([k("bb"), k("aa"), None, k("zz"), k("bb")], cache), key=lambda r: r["key"])] == [
        k("aa"), k("bb")]


def test_restore_previous_reads_the_workspace_copy_when_the_stage_runs_by_hand(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "data/answers/predict/llm/m.jsonl"
    write_answers(out, [record("cc")])
    cache = RequestCache(tmp_path / "cache")
    assert restore_previous("predict@m-llm", out, cache) == 1
    assert cache.get(k("cc")) is not None
