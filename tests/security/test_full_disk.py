"""Issue 27: a full disk while a label is appended leaves the log as it was (no half line), the
app answers with one line instead of a 500 on every request after, and a restart reads the file."""

from __future__ import annotations

import errno
import json
import os

import pytest

from sideways.annotation_app import store as store_module
from sideways.annotation_app.store import LabelStore


def _rec(r, who="ana", note=""):
    return {"riddle_id": r, "model": "m", "provider": "p", "human_answer_correct": True,
            "human_justification_correct": True, "annotator": who, "note": note}


class HalfWrite:
    """``os.write`` that writes half of what it is given, then reports the disk full, once."""

    def __init__(self):
        self.real, self.fired = os.write, False

    def __call__(self, fd, data):
        if self.fired or len(data) < 8:
            return self.real(fd, data)
        self.fired = True
        self.real(fd, bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_leaves_the_log_readable(tmp_path, monkeypatch):
    path = tmp_path / "labels/llm.jsonl"
    store = LabelStore(path)
    store.append(_rec("a"))
    before = path.read_bytes()
    monkeypatch.setattr(store_module.os, "write", HalfWrite())
    with pytest.raises(OSError, match="No space"):
        store.append(_rec("b", note="x" * 500))
    assert path.read_bytes() == before  # the half line is gone
    assert [e.riddle_id for e in store.events()] == ["a"]
    assert [e.riddle_id for e in LabelStore(path).events()] == ["a"]  # a restart reads it
    store.append(_rec("c"))  # the disk has room again
    assert [json.loads(x)["riddle_id"] for x in path.read_text().splitlines()] == ["a", "c"]


def test_a_short_write_is_undone_too(tmp_path, monkeypatch):
    path = tmp_path / "llm.jsonl"
    store = LabelStore(path)
    store.append(_rec("a"))
    real = os.write
    monkeypatch.setattr(store_module.os, "write", lambda fd, data: real(fd, bytes(data)[:5]))
    with pytest.raises(OSError, match="short write"):
        store.append(_rec("b"))
    monkeypatch.setattr(store_module.os, "write", real)
    assert [e.riddle_id for e in LabelStore(path).events()] == ["a"]


def test_the_app_keeps_serving_when_a_label_cannot_be_written(tmp_path, monkeypatch):
    import asyncio

    from aiohttp.test_utils import TestClient, TestServer

    from helpers.label_project import free_port, label_project
    from sideways.annotation_app.app import make_app
    from sideways.annotation_app.items import load_items
    from sideways.annotation_app.service import LabelService
    from sideways.commands.annotate import plan_for
    from sideways.config.params import load_params

    project = label_project(tmp_path / "p", n_riddles=3)
    monkeypatch.chdir(project)
    params = load_params("params.yaml")
    items = load_items(params, "llm")
    store = LabelStore(project / "data/labels/llm.jsonl")
    service = LabelService(items, plan_for(params, "llm", items), store, "ana")

    async def scenario():
        port = free_port()
        async with TestClient(TestServer(make_app(service, "127.0.0.1", port), host="127.0.0.1", port=port)) as client:
            host = {"Host": f"127.0.0.1:{port}"}
            item = await (await client.get("/api/next", headers=host)).json()
            headers = {**host, "X-CSRF-Token": item["token"]}
            body = {"item_id": item["item_id"], "answer_correct": True, "justification_correct": True}
            store.append(_rec("r-99", who="bob"))  # a line already there
            monkeypatch.setattr(store_module.os, "write", HalfWrite())
            full = await client.post("/api/labels", json=body, headers=headers)
            assert full.status == 507 and "nothing was saved" in (await full.json())["error"]
            assert (await client.get("/api/progress", headers=host)).status == 200
            again = await client.post("/api/labels", json=body, headers=headers)
            assert again.status == 200, await again.text()

    asyncio.run(scenario())
    lines = (project / "data/labels/llm.jsonl").read_text().splitlines()
    assert [json.loads(x)["annotator"] for x in lines] == ["bob", "ana"]


# -- the request cache on a full disk ---------------------------------------------------------------
def _cache_record(n: int, size: int = 6101) -> tuple[str, bytes]:
    from sideways.llm.cache import encode, request_key

    key = request_key({"n": n})
    body = {"key": key, "label": f"predict/m/r-{n}", "response": {"text": ""}}
    pad = size - len(encode(body))
    body["response"]["text"] = "x" * pad
    data = encode(body)
    assert len(data) == size
    return key, data


def test_a_short_write_of_a_cache_record_is_written_to_the_end(tmp_path, monkeypatch):
    """os.write may write part of what it is given (a nearly full disk): the record must still be
    whole, not 4,096 bytes renamed into place and then counted as a miss (paid again)."""
    from sideways.llm import cache as cache_module
    from sideways.llm.cache import RequestCache

    real = os.write
    monkeypatch.setattr(cache_module.os, "write", lambda fd, data: real(fd, bytes(data)[:4096]))
    cache = RequestCache(tmp_path / "cache")
    key, data = _cache_record(1)
    cache.write_encoded(key, data)
    assert cache.path(key).read_bytes() == data and cache.get(key) is not None


def test_a_failed_cache_write_leaves_no_temporary_file_and_no_record(tmp_path, monkeypatch):
    from sideways.llm import cache as cache_module
    from sideways.llm.cache import RequestCache

    monkeypatch.setattr(cache_module.os, "write", HalfWrite())
    cache = RequestCache(tmp_path / "cache")
    key, data = _cache_record(2)
    with pytest.raises(OSError, match="No space"):
        cache.write_encoded(key, data)
    assert [p.name for p in (tmp_path / "cache").rglob("*") if p.is_file()] == []


def test_answers_of_answered_rows_without_a_readable_record_stop_the_job(tmp_path):
    """llm/answers.used() skipped keys without a readable record: an answer lost to a full disk
    dropped silently out of the answers file that travels."""
    from sideways.core.errors import AnswersError
    from sideways.llm.answers import used
    from sideways.llm.cache import RequestCache

    cache = RequestCache(tmp_path / "cache")
    kept, data = _cache_record(3)
    cache.write_encoded(kept, data)
    lost, data = _cache_record(4)
    cache.write_encoded(lost, data)
    cache.path(lost).write_bytes(data[:4096])  # what the old writer left on a full disk
    simulated = _cache_record(5)[0]  # a simulated row's hash: no record, none expected
    assert [r["key"] for r in used([kept, simulated], cache, answered=[kept])] == [kept]
    with pytest.raises(AnswersError, match=rf"no readable record for 1 answered request\(s\) \({lost[:12]}\)"):
        used([kept, lost, simulated], cache, answered=[kept, lost])


@pytest.fixture
def small_disk(tmp_path):
    """A real 2 MiB tmpfs (root only; skipped elsewhere)."""
    import subprocess

    mount = tmp_path / "disk"
    mount.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def test_records_on_a_really_full_disk_are_whole_or_absent_and_the_journal_keeps_them(small_disk):
    """The reproduction: a 2 MiB tmpfs with ~12 KiB free. Every record is whole or absent, no
    temporary file is left, the journal's close raises, and a later run on free space recovers
    every answer from the journal (nothing paid twice)."""
    from sideways.llm.cache import RequestCache
    from sideways.llm.journal import Journal, recover

    cache = RequestCache(small_disk / "cache")
    journal = Journal(cache, writers=1)
    filler = small_disk / "filler"
    with filler.open("wb") as fh:  # leave 12 KiB: the journal's lines fit, not every record beside them
        fh.write(b"\0" * (os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize - 12 * 1024))
    records = dict(_cache_record(n) for n in range(10, 13))
    for key, data in records.items():
        try:
            journal.append(key, data)
        except OSError:
            break
    with pytest.raises(OSError):
        journal.close()
    files = [p for p in cache.root.rglob("*") if p.is_file() and p.parent.name != "journal"]
    assert not [p for p in files if p.name.endswith(".tmp")]
    assert all(cache.get(p.stem) is not None for p in files), "a short record was renamed into place"
    filler.unlink()  # room again: the next run turns the journal into records
    recover(cache)
    journalled = [k for k in records if cache.get(k) is not None]
    assert journalled and all(cache.path(k).read_bytes() == records[k] for k in journalled)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EFBIG, errno.EDQUOT])
def test_a_stage_without_room_says_so_in_one_line(capsys, code):
    from sideways.core import stage

    def main():
        raise OSError(code, os.strerror(code), "data/answers/predict/llm/m.jsonl")

    with pytest.raises(SystemExit) as exit_:
        stage.run(main)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"error: data/answers/predict/llm/m.jsonl: {os.strerror(code)}: ")
    with pytest.raises(PermissionError):  # any other OSError is not about room: a traceback, as before
        stage.run(lambda: (_ for _ in ()).throw(PermissionError(errno.EACCES, "no")))
