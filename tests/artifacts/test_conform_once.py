"""Big tables are checked once per write, and a string column of Python strings is checked in C.

At 200 models x 14,042 questions exam_score's detail is 2.8 million rows: ``write_table`` checked
them twice (itself, then ``table_bytes``) and every string value one by one in Python (3.5 s per
check). The bytes must not change, and a wrong value must still be named.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sideways.artifacts import io, schema
from sideways.artifacts.io import read_table, table_bytes, write_table
from sideways.artifacts.schema import EXAM_DETAIL
from sideways.core.errors import SchemaError


def _detail(n: int = 3) -> pd.DataFrame:
    return pd.DataFrame({"model": [f"m{i}" for i in range(n)], "item_id": ["q1"] * n, "kind": "mcq", "topic": "t",
                         "points": 1.0, "letters": ["A", None, "B"][:n], "gold": "A", "trad": 1.0, "idk": 0.0,
                         "idk_freq": 0.0, "extract_fail": 0.0, "earned": 1.0, "judges": 0, "status": "ok",
                         "latency_s": 0.5, "cost_usd": None})


def test_write_table_checks_once_and_writes_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = schema.conform

    def counting(*args: object, **kwargs: object) -> pd.DataFrame:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(io, "conform", counting)
    out = tmp_path / "d.parquet"
    write_table(_detail(), EXAM_DETAIL, out, "{}")
    assert len(calls) == 1
    assert out.read_bytes() == table_bytes(_detail(), EXAM_DETAIL, "x", "{}")
    pd.testing.assert_frame_equal(read_table(out, EXAM_DETAIL), real(_detail(), EXAM_DETAIL, "x"))


def test_a_wrong_value_in_a_string_column_is_still_named() -> None:
    df = _detail()
    df["letters"] = pd.Series(["A", None, 7], dtype=object)
    with pytest.raises(SchemaError, match=r"column 'letters' at row 2 should be string, got 7"):
        schema.conform(df, EXAM_DETAIL, "x")
    df["letters"] = pd.Series(["A", None, b"B"], dtype=object)
    with pytest.raises(SchemaError, match=r"column 'letters' at row 2 should be string"):
        schema.conform(df, EXAM_DETAIL, "x")


def test_parts_already_checked_are_not_checked_again_and_write_the_same_bytes(tmp_path: Path) -> None:
    parts = [schema.conform(_detail(3), EXAM_DETAIL, "a"), schema.conform(_detail(2).assign(model=["n1", "n2"]),
                                                                           EXAM_DETAIL, "b")]
    whole = pd.concat(parts, ignore_index=True)
    write_table(whole, EXAM_DETAIL, tmp_path / "checked.parquet")
    calls = []
    real = io.conform
    io.conform = lambda *a, **k: calls.append(1) or real(*a, **k)  # type: ignore[assignment]
    try:
        write_table(whole, EXAM_DETAIL, tmp_path / "parts.parquet", parts=parts)
        assert calls == [1]  # the schema's empty frame for its dtypes only
        bad = pd.concat([_detail(3)], ignore_index=True).assign(model=[None, "m1", "m2"])  # not checked yet
        with pytest.raises(SchemaError, match="model"):
            write_table(bad, EXAM_DETAIL, tmp_path / "bad.parquet", parts=[bad])
    finally:
        io.conform = real  # type: ignore[assignment]
    assert (tmp_path / "parts.parquet").read_bytes() == (tmp_path / "checked.parquet").read_bytes()
    assert not (tmp_path / "bad.parquet").exists()
