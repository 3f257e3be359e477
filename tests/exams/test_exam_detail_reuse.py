"""exam_score reuses a model's detail rows, metrics and topics when its predictions, grades, items and code are unchanged."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa

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
from sideways.artifacts.sorted_tables import key_runs
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
    detail = pd.concat(parts, ignore_index=True)
    paths.exam_detail("e").parent.mkdir(parents=True, exist_ok=True)
    return write_table(detail, EXAM_DETAIL, paths.exam_detail("e"), json.dumps(detail_inputs("e", ["m1", "m2"])))


def test_every_model_is_reused_when_nothing_changed(tmp_path, monkeypatch):
    detail = project(tmp_path, monkeypatch)
    reused = reusable("e", detail_inputs("e", ["m1", "m2"]))
    assert sorted(reused.spans) == ["m1", "m2"]
    assert reused.detail is not None
    assert [reused.detail.slice(a, b - a).to_pandas()["model"].unique().tolist() for a, b in reused.spans.values()] == [
        ["m1"], ["m2"]]
    pieces = list(reused.pieces(["m2", "m1"], lambda k: 1 / 0))
    assert len(pieces) == 1 and read_table_of(pa.concat_tables(pieces)).equals(detail)


def read_table_of(table: pa.Table) -> pd.DataFrame:
    """An Arrow detail as :func:`read_table` gives it (checked, Python strings)."""
    return conform(table.to_pandas(), EXAM_DETAIL, "arrow")


def test_a_previous_detail_out_of_order_or_with_a_key_twice_is_not_reused(tmp_path, monkeypatch):
    detail = project(tmp_path, monkeypatch)
    fingerprints = json.dumps(detail_inputs("e", ["m1", "m2"]))
    swapped = pd.concat([detail.iloc[1:2], detail.iloc[0:1], detail.iloc[2:]], ignore_index=True)
    twice = pd.concat([detail.iloc[:1], detail], ignore_index=True)
    for bad in (swapped, twice):
        atomic_write_bytes(paths.exam_detail("e"), _arrow_bytes(pa.Table.from_pandas(
            bad, schema=EXAM_DETAIL.arrow(), preserve_index=False), EXAM_DETAIL, fingerprints))
        assert reusable("e", detail_inputs("e", ["m1", "m2"])).spans == {}
    written = pa.Table.from_pandas(detail, schema=EXAM_DETAIL.arrow(), preserve_index=False)
    loose = written.cast(pa.schema([f.with_nullable(True) for f in written.schema]))  # types alike, nulls allowed
    atomic_write_bytes(paths.exam_detail("e"), _arrow_bytes(loose, EXAM_DETAIL, fingerprints))
    assert reusable("e", detail_inputs("e", ["m1", "m2"])).spans == {}
    paths.exam_detail("e").write_bytes(b"PAR1 not parquet")
    assert reusable("e", detail_inputs("e", ["m1", "m2"])).spans == {}
    write_table(detail, EXAM_DETAIL, paths.exam_detail("e"), fingerprints)
    assert sorted(reusable("e", detail_inputs("e", ["m1", "m2"])).spans) == ["m1", "m2"]


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
    paths.exam_detail("e").unlink()
    exam_results("e", table, ["m3", "m1", "m2"])
    whole = conform(detail_table(table, pd.concat(ps), pd.concat(gs)), EXAM_DETAIL, "whole")
    assert read_table(paths.exam_detail("e"), EXAM_DETAIL).equals(whole)
    assert paths.exam_detail("e").read_bytes() == table_bytes(whole, EXAM_DETAIL, "whole", table_inputs(
        paths.exam_detail("e")))
    exam_results("e", table, [])
    assert read_table(paths.exam_detail("e"), EXAM_DETAIL).empty


def test_a_model_whose_predictions_changed_is_rebuilt_and_a_code_change_rebuilds_all(tmp_path, monkeypatch):
    detail = project(tmp_path, monkeypatch)
    p = detail[detail["model"] == "m2"]  # any table: only its fingerprint matters here
    write(pd.read_parquet(paths.exam_predictions("e", "m2")), EXAM_PREDICTIONS, paths.exam_predictions("e", "m2"),
          "p-m2, answered again")
    assert len(p) and sorted(reusable("e", detail_inputs("e", ["m1", "m2"])).spans) == ["m1"]
    (tmp_path / "src/code.py").write_text("version = 2\n")
    code_digest.cache_clear()  # one digest per process: a stage run reads its code once
    assert reusable("e", detail_inputs("e", ["m1", "m2"])).spans == {}


def test_a_detail_without_fingerprints_is_not_reused(tmp_path, monkeypatch):
    detail = project(tmp_path, monkeypatch)
    write_table(detail, EXAM_DETAIL, paths.exam_detail("e"))
    assert reusable("e", detail_inputs("e", ["m1", "m2"])).spans == {}


MODELS = ["m1", "m2", "m3", "m4"]


def _outputs(table: pd.DataFrame) -> tuple[bytes, bytes, bytes]:
    """exam_score's results for ``MODELS``: metrics, topics (as the stage writes them) and the detail's bytes."""
    metrics, topics = exam_results("e", table, MODELS)
    return json_bytes(metrics), json_bytes(topics), paths.exam_detail("e").read_bytes()


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
    paths.exam_detail("e").unlink()
    scratch = _outputs(table)
    seen: list[list[str]] = []
    counted = reuse.model_metrics
    monkeypatch.setattr(reuse, "model_metrics", lambda d: seen.append(sorted(set(d["model"]))) or counted(d))
    assert _outputs(table) == scratch and seen == [[]]  # every model's numbers from the previous detail
    answer("m3", 2)
    changed = _outputs(table)
    assert seen[-1] == ["m3"]
    paths.exam_detail("e").unlink()
    assert _outputs(table) == changed != scratch and seen[-1] == MODELS


def test_pairs_apart_of_unchanged_models_are_reused_and_the_tie_groups_are_those_from_nothing(tmp_path, monkeypatch):
    project(tmp_path, monkeypatch)
    table = items([mcq(f"q{i}", f"Q{i}?", topic=f"t{i % 12}") for i in range(240)])
    write(table, EXAM_ITEMS, paths.exam_items("e"), "items")
    for i, key in enumerate(MODELS):
        p = exam_predictions(table, sim_model(key, skill=0.1 + 0.25 * i), RunContext(seed=1))
        write(p, EXAM_PREDICTIONS, paths.exam_predictions("e", key), f"p-{key}")
    paths.exam_detail("e").unlink()
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
    paths.exam_detail("e").unlink()
    assert _outputs(table) == changed and known[-1] is None


def test_a_recorded_ties_entry_of_the_wrong_shape_is_not_used():
    assert reuse._ties(None, {"a"}) is None
    assert reuse._ties({"models": ["a", "b"], "apart": [["a"]]}, {"a", "b"}) is None
    assert reuse._ties({"models": "ab", "apart": []}, {"a", "b"}) is None
    assert reuse._ties({"models": ["a", "b", 3], "apart": []}, {"a", "b"}) is None
    got = reuse._ties({"models": ["a", "b", "c"], "apart": [["a", "b"], ["a", "c"], ["a", "a"]]}, {"a", "b", "z"})
    assert got == ({"a", "b"}, {frozenset(("a", "b"))})


def test_pieces_join_runs_of_reused_models_and_put_new_ones_in_model_order():
    detail = pa.table({"model": ["a", "a", "b", "c", "c", "d"], "item_id": list("xyxxyx")})
    reused = reuse.Reused(detail, {"a": (0, 2), "c": (3, 5), "d": (5, 6)})  # b left the exam

    def made(key: str) -> pa.Table:
        return pa.table({"model": [key], "item_id": ["x"]})

    pieces = list(reused.pieces(["d", "c", "bb", "a"], made))
    assert [p.column("model").to_pylist() for p in pieces] == [["a", "a"], ["bb"], ["c", "c", "d"]]
