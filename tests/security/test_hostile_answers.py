"""Issue 27: a pulled answers file chooses no path: a record key that is not a SHA-256 is refused
where it enters (the answers file, the cache), and nothing is written outside the cache."""

from __future__ import annotations

import json

import pytest

from sideways.core.errors import SchemaError
from sideways.llm.answers import read_answers, restore, restore_previous
from sideways.llm.cache import RequestCache


@pytest.mark.parametrize("key", ["../../x", "../../../escaped/owned", "/tmp/abs", "aa/../../x" + "0" * 60, "A" * 64])
def test_a_hostile_answers_file_is_refused_and_nothing_lands_outside_the_cache(tmp_path, monkeypatch, key):
    project = tmp_path / "project"
    out = project / "data/answers/predict/llm/m.jsonl"
    out.parent.mkdir(parents=True)
    out.write_text(json.dumps({"key": key, "response": {"text": "pwned"}}) + "\n")
    monkeypatch.chdir(project)
    cache = RequestCache(project / ".sideways/cache")
    before = {p for p in tmp_path.rglob("*")}
    with pytest.raises(SchemaError, match=r"m\.jsonl: line 1: 'key' must be 64 lowercase hex"):
        restore_previous("predict@m-llm", out, cache)
    assert {p for p in tmp_path.rglob("*")} == before  # nothing written anywhere
    with pytest.raises(SchemaError):
        read_answers(out)


def test_the_cache_itself_refuses_a_key_that_is_a_path(tmp_path):
    cache = RequestCache(tmp_path / "cache")
    with pytest.raises(SchemaError, match="64 lowercase hex"):
        restore([{"key": "../../x", "response": None}], cache)
    with pytest.raises(SchemaError):
        cache.write_encoded("../" * 21 + "x", b"{}")
    assert cache.get("../../x") is None
    assert not any(tmp_path.rglob("*.json"))
