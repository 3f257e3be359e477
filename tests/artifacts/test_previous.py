"""The version of an output that dvc.lock recorded, read from DVC's cache after DVC deleted it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from sideways.artifacts.previous import EMPTY_MD5, previous_output, recorded_md5
from sideways.core.errors import SchemaError

OUT = Path("data/answers/predict/llm/m.jsonl")


def lock(root: Path, md5: str, stage: str = "predict@m-llm") -> Path:
    path = root / "dvc.lock"
    path.write_text(yaml.safe_dump({"schema": "2.0", "stages": {stage: {"cmd": "x", "outs": [
        {"path": "data/predictions/llm/m.parquet", "md5": "0" * 32},
        {"path": str(OUT), "md5": md5, "size": 3}]}}}))
    return path


def cache_object(root: Path, data: bytes) -> str:
    md5 = hashlib.md5(data).hexdigest()
    obj = root / ".dvc/cache/files/md5" / md5[:2] / md5[2:]
    obj.parent.mkdir(parents=True)
    obj.write_bytes(data)
    return md5


def test_the_recorded_version_comes_from_dvc_cache_when_the_output_is_gone(tmp_path):
    md5 = cache_object(tmp_path, b"{}\n")
    found = previous_output("predict@m-llm", tmp_path / OUT, lock(tmp_path, md5))
    assert found is not None and found.read_bytes() == b"{}\n"


def test_nothing_when_no_lock_no_entry_an_empty_output_or_an_object_not_pulled(tmp_path):
    assert previous_output("predict@m-llm", tmp_path / OUT, tmp_path / "dvc.lock") is None
    (tmp_path / ".dvc").mkdir()
    assert previous_output("predict@other-llm", tmp_path / OUT, lock(tmp_path, "1" * 32)) is None
    assert previous_output("predict@m-llm", tmp_path / OUT, lock(tmp_path, EMPTY_MD5)) is None
    (tmp_path / ".dvc/config").write_text("")  # a DVC repository whose cache lacks the object
    assert previous_output("predict@m-llm", tmp_path / OUT, lock(tmp_path, "2" * 32)) is None


def test_a_cache_dir_set_in_the_dvc_config_is_followed(tmp_path):
    (tmp_path / ".dvc").mkdir()
    (tmp_path / ".dvc/config").write_text("[core]\n    remote = store\n[cache]\n    dir = ../shared-cache\n")
    data = b'{"key": "aa"}\n'
    md5 = hashlib.md5(data).hexdigest()
    obj = tmp_path / "shared-cache/files/md5" / md5[:2] / md5[2:]
    obj.parent.mkdir(parents=True)
    obj.write_bytes(data)
    found = previous_output("predict@m-llm", tmp_path / OUT, lock(tmp_path, md5))
    assert found is not None and found.resolve() == obj.resolve()


def test_recorded_md5_matches_the_output_path_of_that_stage(tmp_path):
    path = lock(tmp_path, "3" * 32)
    assert recorded_md5("predict@m-llm", tmp_path / OUT, path) == "3" * 32
    assert recorded_md5("predict@m-llm", tmp_path / "data/answers/judge/llm/m.jsonl", path) is None


def test_a_broken_lock_is_an_error_naming_it(tmp_path):
    (tmp_path / "dvc.lock").write_text("stages: [unclosed\n")
    with pytest.raises(SchemaError, match=r"dvc\.lock: not valid YAML"):
        recorded_md5("predict@m-llm", OUT, tmp_path / "dvc.lock")


def test_a_file_inside_a_directory_output_is_found_through_the_dir_manifest(tmp_path):
    """Coarse stages (issue 18) own folders: dvc.lock records the folder's ``.dir`` manifest."""
    import json

    from sideways.artifacts.previous import previous_bytes

    file_md5 = cache_object(tmp_path, b'{"key": "k"}\n')
    manifest = json.dumps([{"md5": file_md5, "relpath": "llm/m.jsonl"},
                           {"md5": EMPTY_MD5, "relpath": "llm/empty.jsonl"}]).encode()
    dir_md5 = hashlib.md5(manifest).hexdigest() + ".dir"
    obj = tmp_path / ".dvc/cache/files/md5" / dir_md5[:2] / dir_md5[2:]
    obj.parent.mkdir(parents=True, exist_ok=True)
    obj.write_bytes(manifest)
    path = tmp_path / "dvc.lock"
    path.write_text(yaml.safe_dump({"schema": "2.0", "stages": {"predict": {"cmd": "x", "outs": [
        {"path": "data/answers/predict", "md5": dir_md5, "size": 13, "nfiles": 2}]}}}))
    assert recorded_md5("predict", tmp_path / OUT, path) == file_md5
    assert previous_output("predict", tmp_path / OUT, path).read_bytes() == b'{"key": "k"}\n'
    empty = tmp_path / "data/answers/predict/llm/empty.jsonl"
    assert previous_output("predict", empty, path) is None and previous_bytes("predict", empty, path) == b""
    assert recorded_md5("predict", tmp_path / "data/answers/predict/llm/gone.jsonl", path) is None
    assert recorded_md5("judge", tmp_path / OUT, path) is None


def test_a_lock_from_before_the_exam_jobs_moved_into_predict_still_gives_their_previous_outputs(tmp_path):
    """The exam's jobs run in predict and judge now; a lock written before records their outputs
    under exam_predict and exam_judge, and the first run after the move must find them there."""
    out = Path("data/answers/exam_predict/exam/m.jsonl")
    path = tmp_path / "dvc.lock"
    path.write_text(yaml.safe_dump({"schema": "2.0", "stages": {
        "predict": {"cmd": "x", "outs": [{"path": "data/answers/predict", "md5": "4" * 32 + ".dir"}]},
        "exam_predict": {"cmd": "x", "outs": [{"path": str(out), "md5": "5" * 32, "size": 3}]}}}))
    assert recorded_md5("predict", tmp_path / out, path) == "5" * 32
    assert recorded_md5("judge", tmp_path / out, path) is None  # only the stage the jobs moved into
    assert recorded_md5("exam_predict", tmp_path / out, path) == "5" * 32


def test_the_lock_and_the_dvc_config_are_read_once_per_version(tmp_path, monkeypatch):
    """A coarse stage looks up three files of each of 800 jobs: the lock's outs and DVC's config are
    worked out once per version of each file, and a new version is seen at once."""
    import configparser
    import os

    from sideways.artifacts import previous

    (tmp_path / ".dvc").mkdir()
    config = tmp_path / ".dvc/config"
    config.write_text("[cache]\n    dir = ../first\n")
    reads: list[object] = []
    real = configparser.ConfigParser.read
    monkeypatch.setattr(configparser.ConfigParser, "read", lambda self, f, *a, **k: reads.append(f) or real(self, f))
    path = lock(tmp_path, "a" * 32)
    for _ in range(50):
        assert previous.cache_dir(tmp_path) == tmp_path / ".dvc/../first"
        assert recorded_md5("predict@m-llm", tmp_path / OUT, path) == "a" * 32
    assert len(reads) <= 2  # config.local and config, once
    config.write_text("[cache]\n    dir = ../second\n")
    os.utime(config, ns=(1, 1))
    assert previous.cache_dir(tmp_path) == tmp_path / ".dvc/../second"
    path = lock(tmp_path, "b" * 32)
    os.utime(path, ns=(2, 2))
    assert recorded_md5("predict@m-llm", tmp_path / OUT, path) == "b" * 32
