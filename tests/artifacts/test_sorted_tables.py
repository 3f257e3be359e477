"""A table written sorted by its key is read in Arrow with the rows read_table gives; anything else by read_table.

The report reads the exam detail (2.8 million rows at 200 models) this way: the page it makes must
be the same as from read_table's frame, whose strings are Python objects and a missing one None.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.exams import items, mcq, short, sim_judge, sim_model
from sideways.artifacts.io import _arrow_bytes, atomic_write_bytes, read_table, write_table
from sideways.artifacts.schema import EXAM_DETAIL, EXAM_GRADES, EXAM_PREDICTIONS, RIDDLES
from sideways.artifacts.sorted_tables import read_sorted
from sideways.backends.base import RunContext
from sideways.exams.answer import exam_predictions
from sideways.exams.grade import exam_grades
from sideways.exams.results import detail_table
from sideways.report.exam_page import exam_page
from sideways.report.inputs import ExamTables


def _same(a: object, b: object) -> bool:
    missing = lambda v: v is None or (isinstance(v, float) and math.isnan(v))  # noqa: E731
    return (missing(a) and missing(b)) or a == b


def _rows(df: pd.DataFrame) -> list[list[object]]:
    return [list(r) for r in zip(*(df[c].tolist() for c in df.columns), strict=True)] if len(df.columns) else []


def _detail(models: list[str], ids: list[str], letters: list[str | None]) -> pd.DataFrame:
    rows = [{"model": m, "item_id": q, "kind": "mcq", "topic": "t", "points": 1.0, "letters": letters[i % len(letters)],
             "gold": None if i % 3 == 0 else "A", "trad": 1.0, "idk": 0.0, "idk_freq": 0.0, "extract_fail": 0.0,
             "earned": 1.0, "judges": 0, "status": "ok", "latency_s": None if i % 2 else 0.5, "cost_usd": None}
            for i, (m, q) in enumerate((m, q) for m in models for q in ids)]
    return pd.DataFrame(rows, columns=EXAM_DETAIL.names)


@settings(max_examples=60, deadline=None)
@given(models=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=4, unique=True),
       ids=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=5, unique=True),
       letters=st.lists(st.one_of(st.none(), st.text(max_size=3)), min_size=1, max_size=4))
def test_a_sorted_file_reads_as_read_table_reads_it(tmp_path_factory: pytest.TempPathFactory, models: list[str],
                                                    ids: list[str], letters: list[str | None]) -> None:
    path = tmp_path_factory.mktemp("sorted") / "d.parquet"
    detail = _detail(sorted(models), sorted(ids), letters)  # Python's order of strings
    write_table(detail, EXAM_DETAIL, path)
    got, want = read_sorted(path, EXAM_DETAIL), read_table(path, EXAM_DETAIL)
    assert isinstance(got["model"].dtype, pd.StringDtype)  # not converted
    assert list(got.columns) == list(want.columns) and len(got) == len(want)
    assert all(_same(a, b) for g, w in zip(_rows(got), _rows(want), strict=True) for a, b in zip(g, w, strict=True))


def test_any_other_file_is_read_by_read_table(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    detail = _detail(["a", "b"], ["q1", "q2"], ["A", None])
    unsorted = detail.iloc[::-1].reset_index(drop=True)
    write_table(unsorted, EXAM_DETAIL, path)
    got = read_sorted(path, EXAM_DETAIL)
    assert got["model"].dtype == object and got.equals(read_table(path, EXAM_DETAIL))
    loose = pa.Table.from_pandas(read_table(path, EXAM_DETAIL), preserve_index=False)  # types of its own
    atomic_write_bytes(path, _arrow_bytes(loose, EXAM_DETAIL, None))
    assert read_sorted(path, EXAM_DETAIL).equals(read_table(path, EXAM_DETAIL))
    twice = pd.concat([detail.iloc[:1], detail], ignore_index=True)
    atomic_write_bytes(path, _arrow_bytes(pa.Table.from_pandas(twice, schema=EXAM_DETAIL.arrow(), preserve_index=False),
                                          EXAM_DETAIL, None))
    with pytest.raises(Exception, match="duplicate exam_detail key"):
        read_sorted(path, EXAM_DETAIL)
    with pytest.raises(ValueError, match="two-column key"):
        read_sorted(path, RIDDLES)


def test_the_exam_page_from_the_arrow_detail_is_the_page_from_read_table(tmp_path: Path) -> None:
    table = items([mcq(f"q{i}", f"Q{i}?", topic=f"t{i % 3}") for i in range(9)] +
                  [short(f"s{i}", f"S{i}?", topic="t9") for i in range(3)])
    ps, gs = [], []
    for key in ("m2", "m1", "m3"):
        p = exam_predictions(table, sim_model(key), RunContext(seed=5))
        ps.append(p)
        gs.append(exam_grades(table, p, sim_model(key), sim_judge(), "baseline", RunContext(seed=5)))
    predictions, grades = pd.concat(ps, ignore_index=True), pd.concat(gs, ignore_index=True)
    path = tmp_path / "d.parquet"
    write_table(detail_table(table, predictions, grades), EXAM_DETAIL, path)
    arrow = ExamTables(key="e", items=table, predictions=read_table_of(predictions, EXAM_PREDICTIONS, tmp_path),
                       grades=read_table_of(grades, EXAM_GRADES, tmp_path), detail=read_sorted(path, EXAM_DETAIL),
                       metrics={}, topics={})
    assert isinstance(arrow.detail["letters"].dtype, pd.StringDtype) and arrow.detail["letters"].isna().any()
    python = dataclasses.replace(arrow, detail=read_table(path, EXAM_DETAIL))
    models = ["m3", "m1", "m2"]
    assert exam_page(arrow, models) == exam_page(python, models)


def read_table_of(df: pd.DataFrame, schema, tmp_path: Path) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    path = tmp_path / f"{schema.name}.parquet"
    write_table(df, schema, path)
    return read_table(path, schema)
