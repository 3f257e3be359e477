"""exam_score reuses a model's detail file, metrics and topics when its predictions, grades, items and
code are unchanged: one file per model, checked before it is taken, restored from DVC's cache."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import yaml

from helpers.exams import items, mcq, short, sim_judge, sim_model
from sideways.artifacts import paths
from sideways.artifacts.fingerprint import code_digest
from sideways.artifacts.io import (
    _arrow_bytes,
    atomic_write_bytes,
    json_bytes,
    read_table,
    table_bytes,
    table_inputs,
    write_table,
)
from sideways.artifacts.schema import EXAM_DETAIL, EXAM_GRADES, EXAM_ITEMS, EXAM_PREDICTIONS, conform
from sideways.artifacts.sorted_tables import key_runs, read_sorted
from sideways.backends.base import RunContext
from sideways.exams import reuse
from sideways.exams.answer import exam_predictions
from sideways.exams.grade import exam_grades
from sideways.exams.results import detail_table
from sideways.exams.reuse import detail_inputs, exam_results, reusable


def write(df: pd.DataFrame, schema, path, inputs: str) -> None:  # type: ignore[no-untyped-def]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, table_bytes(df, schema, str(path), inputs))


def project(tmp_path, monkeypatch) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    """Two models' answers to a 12-question exam and their detail files as exam_score wrote them; the detail."""
    monkeypatch.chdir(tmp_path)
    code_digest.cache_clear()
    (tmp_path / "dvc.yaml").write_text("stages:\n  exam_score:\n    deps: [src/code.py]\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src/code.py").write_text("version = 1\n")
    table = items([mcq(f"q{i}", f"Q{i}?", topic=f"t{i % 3}") for i in range(12)])
    write(table, EXAM_ITEMS, paths.exam_items("e"), "items")
    parts = []
    for key in ("m1", "m2"):
        p = exam_predictions(table, sim_model(key), RunContext(seed=1))
        g = exam_grades(table, p, sim_model(key), sim_judge(), "baseline", RunContext(seed=1))
        write(p, EXAM_PREDICTIONS, paths.exam_predictions("e", key), f"p-{key}")
        write(g, EXAM_GRADES, paths.exam_grades("e", key), f"g-{key}")
        parts.append(detail_table(table, p, g))
    exam_results("e", table, ["m1", "m2"])
    return conform(pd.concat(parts, ignore_index=True), EXAM_DETAIL, "both")


def inputs() -> dict:  # type: ignore[type-arg]
    return detail_inputs("e", ["m1", "m2"], graded=False)  # multiple choice only: no grades


def test_every_model_is_reused_when_nothing_changed(tmp_path, monkeypatch):
    detail = project(tmp_path, monkeypatch)
    reused = reusable("e", inputs())
    assert sorted(reused.files) == sorted(reused.results) == ["m1", "m2"]
    for m in ("m1", "m2"):
        assert reused.files[m] == paths.exam_detail("e", m).read_bytes()
        assert reused.sources[m] == paths.exam_detail("e", m)  # the workspace's own file: left as it is
        assert reused.tables[m].column_names == reuse.TIES_COLUMNS  # the tie groups' columns only
        mine = detail[detail["model"] == m].reset_index(drop=True)
        assert reused.tables[m].to_pylist() == mine[reuse.TIES_COLUMNS].to_dict("records")
    assert reused.ties is not None and reused.ties[0] == {"m1", "m2"}


def read_table_of(table: pa.Table) -> pd.DataFrame:
    """An Arrow detail as :func:`read_table` gives it (checked, Python strings)."""
    return conform(table.to_pandas(), EXAM_DETAIL, "arrow")


def test_a_previous_file_out_of_order_with_a_key_twice_or_another_models_rows_is_not_reused(tmp_path, monkeypatch):
    detail = project(tmp_path, monkeypatch)
    target = paths.exam_detail("e", "m1")
    record = table_inputs(target)
    mine = detail[detail["model"] == "m1"].reset_index(drop=True)
    swapped = pd.concat([mine.iloc[1:2], mine.iloc[0:1], mine.iloc[2:]], ignore_index=True)
    twice = pd.concat([mine.iloc[:1], mine], ignore_index=True)
    other = detail[detail["model"] == "m2"]
    for bad in (swapped, twice, other, detail):
        atomic_write_bytes(target, _arrow_bytes(pa.Table.from_pandas(
            bad, schema=EXAM_DETAIL.arrow(), preserve_index=False), EXAM_DETAIL, record))
        assert sorted(reusable("e", inputs()).files) == ["m2"]
    written = pa.Table.from_pandas(mine, schema=EXAM_DETAIL.arrow(), preserve_index=False)
    loose = written.cast(pa.schema([f.with_nullable(True) for f in written.schema]))  # types alike, nulls allowed
    atomic_write_bytes(target, _arrow_bytes(loose, EXAM_DETAIL, record))
    assert sorted(reusable("e", inputs()).files) == ["m2"]
    target.write_bytes(b"PAR1 not parquet")
    assert sorted(reusable("e", inputs()).files) == ["m2"]
    for broken in ({**json.loads(record or ""), "results": {"metrics": {}}}, [1], "x"):
        write_table(mine, EXAM_DETAIL, target, json.dumps(broken))
        assert sorted(reusable("e", inputs()).files) == ["m2"]
    write_table(mine, EXAM_DETAIL, target, record)
    assert sorted(reusable("e", inputs()).files) == ["m1", "m2"]


KEY = ("model", "item_id")


def test_key_runs_finds_each_models_rows_in_utf8_order():
    table = pa.table({"model": ["a", "a", "é", "é", "𝔞"], "item_id": ["q1", "q2", "q1", "q10", "q"]})
    assert key_runs(table, KEY) == {"a": (0, 2), "é": (2, 4), "𝔞": (4, 5)}
    assert sorted(["a", "é", "𝔞"]) == ["a", "é", "𝔞"]  # Python's order is the same
    assert key_runs(table.slice(0, 1), KEY) == {"a": (0, 1)} and key_runs(table.slice(0, 0), KEY) == {}
    assert key_runs(pa.table({"model": ["b", "a"], "item_id": ["q", "q"]}), KEY) is None
    assert key_runs(pa.table({"model": ["a", "a"], "item_id": ["q", "q"]}), KEY) is None


def test_the_detail_built_model_by_model_is_the_detail_of_every_model_at_once(tmp_path, monkeypatch):
    project(tmp_path, monkeypatch)
    table = items([mcq(f"q{i}", f"Q{i}?", topic=f"t{i % 3}") for i in range(12)] +
                  [short(f"s{i}", f"S{i}?", topic="t9") for i in range(3)])
    write(table, EXAM_ITEMS, paths.exam_items("e"), "items")
    ps, gs = [], []
    for key in ("m3", "m1", "m2"):
        p = exam_predictions(table, sim_model(key), RunContext(seed=4))
        g = exam_grades(table, p, sim_model(key), sim_judge(), "baseline", RunContext(seed=4))
        write(p, EXAM_PREDICTIONS, paths.exam_predictions("e", key), f"p-{key}")
        write(g, EXAM_GRADES, paths.exam_grades("e", key), f"g-{key}")
        ps.append(p)
        gs.append(g)
    exam_results("e", table, ["m3", "m1", "m2"])
    whole = conform(detail_table(table, pd.concat(ps), pd.concat(gs)), EXAM_DETAIL, "whole")
    files = [paths.exam_detail("e", m) for m in ("m1", "m2", "m3")]
    assert sorted(paths.exam_detail_dir("e").iterdir()) == sorted([*files, paths.exam_pairs_apart("e")])
    assert conform(read_sorted(files, EXAM_DETAIL), EXAM_DETAIL, "read").equals(whole)
    for m, f in zip(("m1", "m2", "m3"), files, strict=True):
        mine = whole[whole["model"] == m].reset_index(drop=True)
        assert read_table(f, EXAM_DETAIL).equals(mine)
        assert f.read_bytes() == table_bytes(mine, EXAM_DETAIL, "mine", table_inputs(f))
    exam_results("e", table, [])
    assert list(paths.exam_detail_dir("e").iterdir()) == [paths.exam_pairs_apart("e")]


def test_a_model_whose_predictions_changed_is_rebuilt_and_a_code_change_rebuilds_all(tmp_path, monkeypatch):
    project(tmp_path, monkeypatch)
    write(pd.read_parquet(paths.exam_predictions("e", "m2")), EXAM_PREDICTIONS, paths.exam_predictions("e", "m2"),
          "p-m2, answered again")
    assert sorted(reusable("e", inputs()).files) == ["m1"]
    (tmp_path / "src/code.py").write_text("version = 2\n")
    code_digest.cache_clear()  # one digest per process: a stage run reads its code once
    assert reusable("e", inputs()).files == {}


def test_a_detail_without_fingerprints_is_not_reused(tmp_path, monkeypatch):
    detail = project(tmp_path, monkeypatch)
    write_table(detail[detail["model"] == "m1"], EXAM_DETAIL, paths.exam_detail("e", "m1"))
    assert sorted(reusable("e", inputs()).files) == ["m2"]


MODELS = ["m1", "m2", "m3", "m4"]


def _outputs(table: pd.DataFrame) -> tuple[bytes, bytes, bytes]:
    """exam_score's results for ``MODELS``: metrics, topics (as the stage writes them) and every detail file's bytes."""
    metrics, topics = exam_results("e", table, MODELS)
    return json_bytes(metrics), json_bytes(topics), b"".join(paths.exam_detail("e", m).read_bytes() for m in MODELS)


def _forget() -> None:
    """No previous run: the exam's detail folder gone."""
    shutil.rmtree(paths.exam_detail_dir("e"))


def test_metrics_and_topics_of_unchanged_models_are_reused_and_the_same_bytes_as_from_nothing(tmp_path, monkeypatch):
    project(tmp_path, monkeypatch)
    table = items([mcq(f"q{i}", f"Q{i}?", topic=f"t{i % 3}") for i in range(12)] +
                  [short(f"s{i}", f"S{i}?", topic="t9") for i in range(3)])
    write(table, EXAM_ITEMS, paths.exam_items("e"), "items")

    def answer(key: str, seed: int) -> None:
        p = exam_predictions(table, sim_model(key), RunContext(seed=seed))
        g = exam_grades(table, p, sim_model(key), sim_judge(), "baseline", RunContext(seed=seed))
        write(p, EXAM_PREDICTIONS, paths.exam_predictions("e", key), f"p-{key}-{seed}")
        write(g, EXAM_GRADES, paths.exam_grades("e", key), f"g-{key}-{seed}")

    for key in MODELS:
        answer(key, 1)
    _forget()
    scratch = _outputs(table)
    seen: list[list[str]] = []
    counted = reuse.model_metrics
    monkeypatch.setattr(reuse, "model_metrics", lambda d: seen.append(sorted(set(d["model"]))) or counted(d))
    written = {m: paths.exam_detail("e", m).stat().st_mtime_ns for m in MODELS}
    assert _outputs(table) == scratch and seen == []  # every model's numbers from its file
    assert {m: paths.exam_detail("e", m).stat().st_mtime_ns for m in MODELS} == written  # and no file rewritten
    answer("m3", 2)
    changed = _outputs(table)
    assert seen == [["m3"]]
    assert [m for m in MODELS if paths.exam_detail("e", m).stat().st_mtime_ns != written[m]] == ["m3"]
    _forget()
    assert _outputs(table) == changed != scratch and seen[1:] == [[m] for m in MODELS]


def _to_dvc_cache() -> None:
    """Move data/exam/detail into DVC's cache as `dvc repro` leaves it before running the stage: a
    .dir manifest that dvc.lock records for exam_score's output, the folder itself gone."""
    cache = Path(".dvc/cache/files/md5")
    entries = []
    for path in sorted(p for p in paths.EXAM_DETAIL_DIR.rglob("*") if p.is_file()):
        data = path.read_bytes()
        md5 = hashlib.md5(data).hexdigest()
        (cache / md5[:2]).mkdir(parents=True, exist_ok=True)
        (cache / md5[:2] / md5[2:]).write_bytes(data)
        entries.append({"md5": md5, "relpath": path.relative_to(paths.EXAM_DETAIL_DIR).as_posix()})
    manifest = json.dumps(entries).encode()
    md5 = hashlib.md5(manifest).hexdigest() + ".dir"
    (cache / md5[:2]).mkdir(parents=True, exist_ok=True)
    (cache / md5[:2] / md5[2:]).write_bytes(manifest)
    Path("dvc.lock").write_text(yaml.safe_dump({"schema": "2.0", "stages": {"exam_score": {
        "cmd": "python stages/exam_score.py", "outs": [{"path": str(paths.EXAM_DETAIL_DIR), "md5": md5}]}}}))
    shutil.rmtree(paths.EXAM_DETAIL_DIR)


def test_files_dvc_removed_are_restored_from_its_cache_and_a_damaged_cached_copy_is_built_again(tmp_path, monkeypatch):
    project(tmp_path, monkeypatch)
    table = read_table(paths.exam_items("e"), EXAM_ITEMS)
    before = {m: paths.exam_detail("e", m).read_bytes() for m in ("m1", "m2")}
    ties = paths.exam_pairs_apart("e").read_bytes()
    _to_dvc_cache()
    reused = reusable("e", inputs())
    assert sorted(reused.files) == ["m1", "m2"] and reused.ties is not None and reused.ties[0] == {"m1", "m2"}
    built: list[str] = []
    real = reuse.detail_table
    monkeypatch.setattr(reuse, "detail_table", lambda i, p, g: built.append(p["model"].iloc[0]) or real(i, p, g))
    exam_results("e", table, ["m1", "m2"])
    assert built == [] and {m: paths.exam_detail("e", m).read_bytes() for m in ("m1", "m2")} == before
    assert paths.exam_pairs_apart("e").read_bytes() == ties
    _to_dvc_cache()
    md5 = hashlib.md5(before["m1"]).hexdigest()
    cached = Path(".dvc/cache/files/md5") / md5[:2] / md5[2:]
    cached.write_bytes(before["m1"][:-40])  # a damaged copy (a pull may bring anything)
    exam_results("e", table, ["m1", "m2"])
    assert built == ["m1"] and {m: paths.exam_detail("e", m).read_bytes() for m in ("m1", "m2")} == before


def test_pairs_apart_of_unchanged_models_are_reused_and_the_tie_groups_are_those_from_nothing(tmp_path, monkeypatch):
    project(tmp_path, monkeypatch)
    table = items([mcq(f"q{i}", f"Q{i}?", topic=f"t{i % 12}") for i in range(240)])
    write(table, EXAM_ITEMS, paths.exam_items("e"), "items")
    for i, key in enumerate(MODELS):
        p = exam_predictions(table, sim_model(key, skill=0.1 + 0.25 * i), RunContext(seed=1))
        write(p, EXAM_PREDICTIONS, paths.exam_predictions("e", key), f"p-{key}")
    _forget()
    scratch = _outputs(table)
    assert len({m["tie_groups"] for m in json.loads(scratch[0]).values()}) > 1  # not one big tie
    known: list = []
    real = reuse.exam_ties
    monkeypatch.setattr(reuse, "exam_ties", lambda d, known=None: known_seen(known) or real(d, known=known))

    def known_seen(k):  # type: ignore[no-untyped-def]
        known.append(k)

    p = exam_predictions(table, sim_model("m3", skill=0.6), RunContext(seed=2))
    write(p, EXAM_PREDICTIONS, paths.exam_predictions("e", "m3"), "p-m3-again")
    changed = _outputs(table)
    assert known[-1][0] == {"m1", "m2", "m4"}  # m3's pairs computed again, the others' taken
    _forget()
    assert _outputs(table) == changed and known[-1] is None


def test_a_recorded_ties_entry_of_the_wrong_shape_or_other_inputs_is_not_used(tmp_path, monkeypatch):
    project(tmp_path, monkeypatch)
    now = {"code": "c", "items": "i", "models": {m: [f"p-{m}", f"g-{m}"] for m in ("a", "b", "c", "z")}}
    ties = paths.exam_pairs_apart("e")

    def got(record) -> object:  # type: ignore[no-untyped-def]
        ties.write_text(json.dumps(record))
        return reuse._ties("e", now, {"a", "b", "z"})

    fine = {"code": "c", "items": "i", "models": {m: [f"p-{m}", f"g-{m}"] for m in "abc"},
            "apart": [["a", "b"], ["a", "c"], ["a", "a"]]}
    assert got(fine) == ({"a", "b"}, {frozenset(("a", "b"))})
    assert got({**fine, "models": {**fine["models"], "b": ["p-b, before", "g-b"]}}) == ({"a"}, set())
    for bad in (None, [], {**fine, "code": "other"}, {**fine, "apart": [["a"]]}, {**fine, "models": ["a", "b"]},
                {**fine, "apart": [["a", 3]]}):
        assert got(bad) is None
    ties.write_bytes(b"{not json")
    assert reuse._ties("e", now, {"a"}) is None
    ties.unlink()
    assert reuse._ties("e", now, {"a"}) is None
