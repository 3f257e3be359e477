"""The exam page's reply files taken from the previous report when their inputs did not change:
the same bytes as a build from nothing, the changed group built again, and a previous file that
is not exactly what this build would write (tampered, truncated, other inputs) never taken."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml
from report_tables import exam_tables, params_with_models

from helpers import project_params
from sideways.artifacts import paths
from sideways.artifacts.io import write_table
from sideways.artifacts.schema import EXAM_DETAIL, EXAM_GRADES, EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.report import exam_replies
from sideways.report.exam_page import exam_page
from sideways.report.inputs import read_exam

EXAM = "exam"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An exam's tables on disk for the six models of params.yaml, three groups of two."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(exam_replies, "GROUP", 2)
    params = params_with_models(project_params(), None)
    t = exam_tables(params, 30)
    models = [m.key for m in params.models]
    write_table(t.items, EXAM_ITEMS, paths.exam_items(EXAM))
    for m in models:
        write_table(t.predictions[t.predictions["model"] == m], EXAM_PREDICTIONS, paths.exam_predictions(EXAM, m), f"p-{m}")
        write_table(t.grades[t.grades["model"] == m], EXAM_GRADES, paths.exam_grades(EXAM, m), f"g-{m}")
    _detail(t.detail, {m: [f"p-{m}", f"g-{m}"] for m in models})
    paths.EXAM_METRICS.parent.mkdir(parents=True, exist_ok=True)
    paths.EXAM_METRICS.write_text(json.dumps({EXAM: t.metrics}))
    paths.EXAM_TOPICS.write_text(json.dumps({EXAM: t.topics}))
    files = {"items": [paths.exam_items(EXAM)], "predictions": [paths.exam_predictions(EXAM, m) for m in models],
             "grades": [paths.exam_grades(EXAM, m) for m in models], "detail": [paths.exam_detail(EXAM, m) for m in sorted(models)],
             "metrics": [paths.EXAM_METRICS], "topics": [paths.EXAM_TOPICS]}
    return files, models, t


def _detail(detail, recorded):
    """Each model's detail file, recording the fingerprints ``recorded`` gives it (none: not in it)."""
    for m in sorted(set(detail["model"])):
        write_table(detail[detail["model"] == m], EXAM_DETAIL, paths.exam_detail(EXAM, m),
                    json.dumps({"code": "c", "items": "i"} | ({"inputs": recorded[m]} if m in recorded else {})))


def _build(files, models, previous: str) -> tuple[dict[str, bytes], set[str]]:
    """The reply files of one build, and the models whose replies it read; written to report/ as the stage does."""
    t = read_exam(EXAM, files, models, Path(previous))
    _, _, out = exam_page(t, models)
    for rel, data in out.items():
        (Path("report") / rel).parent.mkdir(parents=True, exist_ok=True)
        (Path("report") / rel).write_bytes(data)
    return out, set(t.predictions["model"])


def test_an_unchanged_exam_takes_every_reply_file_as_it_was_and_reads_no_reply(project):
    files, models, _ = project
    first, read = _build(files, models, "report")
    assert read == set(models) and len(first) == 2 * 3  # two chunks, three groups
    again, read = _build(files, models, "report")
    assert again == first and read == set()


def test_a_changed_model_builds_its_group_again_and_the_bytes_are_those_of_a_build_from_nothing(project):
    files, models, t = project
    _build(files, models, "report")
    changed = t.predictions[t.predictions["model"] == models[2]].assign(text="Answer: C")
    write_table(changed, EXAM_PREDICTIONS, paths.exam_predictions(EXAM, models[2]), "p-changed")
    _detail(t.detail, {m: ["p-changed" if m == models[2] else f"p-{m}", f"g-{m}"] for m in models})
    reused, read = _build(files, models, "report")
    scratch, _ = _build(files, models, "nothing-there")
    assert read == set(models[2:4]) and reused == scratch
    assert b"Answer: C" in reused[exam_replies.reply_path(EXAM, 0, 1)]


@pytest.mark.parametrize("tamper", [
    lambda b: b.replace(b"Answer", b"<script>alert(1)</script>", 1),  # a literal no longer escaped
    lambda b: b.replace(b"[", b"alert(1),[", 1),  # code, not data
    lambda b: b[:-10],  # truncated
    lambda b: b.replace(b"inputs ", b"inputs 0", 1),  # other inputs
    lambda b: b.replace(b'"p":', b'"x":', 1),  # not a reply list
])
def test_a_previous_reply_file_not_exactly_as_this_build_writes_it_is_never_taken(project, tamper):
    files, models, _ = project
    first, _ = _build(files, models, "report")
    path = Path("report") / exam_replies.reply_path(EXAM, 1, 2)
    path.write_bytes(tamper(path.read_bytes()))
    again, read = _build(files, models, "report")
    assert again == first and read == set(models[4:])


def test_a_detail_made_from_other_replies_or_a_table_without_its_fingerprint_is_never_reused(project):
    files, models, t = project
    first, _ = _build(files, models, "report")
    _detail(t.detail, {m: [f"p-{m}", f"g-{m}"] for m in models[1:]})  # the detail says nothing of models[0]
    write_table(t.grades[t.grades["model"] == models[5]], EXAM_GRADES, paths.exam_grades(EXAM, models[5]))
    again, read = _build(files, models, "report")
    assert read == set(models[:2]) | set(models[4:]) and again.keys() == first.keys()
    assert again[exam_replies.reply_path(EXAM, 0, 0)].startswith(b"// sideways exam replies, inputs none, sha256 ")


def _to_dvc_cache(files: dict[str, bytes], keep: bool = False) -> None:
    """Move report/ into DVC's cache as `dvc repro` leaves it: a .dir manifest that dvc.lock records
    (``keep``: the workspace keeps its copy, as after `dvc repro`)."""
    cache = Path(".dvc/cache/files/md5")
    entries = []
    for rel, data in sorted(files.items()):
        md5 = hashlib.md5(data).hexdigest()
        (cache / md5[:2]).mkdir(parents=True, exist_ok=True)
        (cache / md5[:2] / md5[2:]).write_bytes(data)
        entries.append({"md5": md5, "relpath": rel})
    manifest = json.dumps(entries).encode()
    md5 = hashlib.md5(manifest).hexdigest() + ".dir"
    (cache / md5[:2]).mkdir(parents=True, exist_ok=True)
    (cache / md5[:2] / md5[2:]).write_bytes(manifest)
    Path("dvc.lock").write_text(yaml.safe_dump({"schema": "2.0", "stages": {"report": {
        "cmd": "python stages/report.py", "outs": [{"path": "report", "md5": md5}]}}}))
    if not keep:
        shutil.rmtree("report")


def test_the_reply_files_dvc_cached_are_taken_when_their_md5_is_the_one_dvc_lock_records(project):
    files, models, _ = project
    first, _ = _build(files, models, "report")
    _to_dvc_cache(first)
    again, read = _build(files, models, "report")
    assert again == first and read == set()
    _to_dvc_cache(first)
    md5 = hashlib.md5(first[exam_replies.reply_path(EXAM, 1, 1)]).hexdigest()
    cached = Path(".dvc/cache/files/md5") / md5[:2] / md5[2:]
    cached.write_bytes(cached.read_bytes().replace(b"Answer", b"Altered", 1))  # no longer the bytes dvc.lock records
    again, read = _build(files, models, "report")
    assert again == first and read == set(models[2:4])


def test_reply_files_are_checked_against_their_digest_and_never_parsed(project, monkeypatch):
    files, models, _ = project
    first, _ = _build(files, models, "report")
    _to_dvc_cache(first, keep=True)
    parsed: list[int] = []
    real = exam_replies.json.loads
    def loads(b, *a, **k):  # type: ignore[no-untyped-def]
        if isinstance(b, bytes) and b.startswith(b'[{"k"'):  # a reply file's body
            parsed.append(len(b))
        return real(b, *a, **k)
    monkeypatch.setattr(exam_replies.json, "loads", loads)
    again, read = _build(files, models, "report")
    assert again == first and read == set() and parsed == []


#: A script appended after the call (still ending as a reply file ends, ASCII, no ``<``), and a reply
#: edited by hand into another valid one.
APPENDED = pytest.param(lambda b: b + b"window.SIDEWAYS_EXAM_REPLIES=function(){};//);\n", id="appended-script")
EDITED = pytest.param(lambda b: b.replace(b"Answer", b"Answex", 1), id="edited-reply")


@pytest.mark.parametrize("tamper", [APPENDED, EDITED])
@pytest.mark.parametrize("locked", [False, True], ids=["workspace", "pulled"])
def test_a_reply_file_with_a_byte_this_code_did_not_write_is_built_again(project, tamper, locked):
    """Whether the file is only in the workspace or dvc.lock records its md5 (a pulled report whose
    remote copy was changed), a byte changed after the first line rebuilds the group."""
    files, models, _ = project
    first, _ = _build(files, models, "report")
    path = Path("report") / exam_replies.reply_path(EXAM, 0, 1)
    path.write_bytes(tamper(path.read_bytes()))
    if locked:
        _to_dvc_cache({rel: (Path("report") / rel).read_bytes() for rel in first}, keep=True)
    again, read = _build(files, models, "report")
    assert again == first and read == set(models[2:4])
    assert again[exam_replies.reply_path(EXAM, 0, 1)].count(b"SIDEWAYS_EXAM_REPLIES") == 1
