"""Big tables are checked once per write, and a string column of Python strings is checked in C.

At 200 models x 14,042 questions exam_score's detail is 2.8 million rows: ``write_table`` checked
them twice (itself, then ``table_bytes``) and every string value one by one in Python (3.5 s per
check). The bytes must not change, and a wrong value must still be named.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
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


def test_arrow_parts_put_together_write_the_bytes_of_the_whole_frame(tmp_path: Path) -> None:
    parts = [schema.conform(_detail(3), EXAM_DETAIL, "a"), schema.conform(_detail(2).assign(model=["n1", "n2"]),
                                                                           EXAM_DETAIL, "b")]
    whole = pd.concat(parts, ignore_index=True)
    write_table(whole, EXAM_DETAIL, tmp_path / "checked.parquet", "{}")
    chunked = pa.concat_tables([io.arrow_table(p, EXAM_DETAIL) for p in parts])
    assert chunked.column("model").num_chunks == 2
    io.write_arrow(chunked, EXAM_DETAIL, tmp_path / "parts.parquet", "{}")
    assert (tmp_path / "parts.parquet").read_bytes() == (tmp_path / "checked.parquet").read_bytes()
    assert io.conformed_arrow(pq.read_table(tmp_path / "parts.parquet"), EXAM_DETAIL)
    loose = chunked.cast(pa.schema([f.with_nullable(True) for f in chunked.schema]))
    with pytest.raises(SchemaError, match="bad.parquet"):
        io.write_arrow(loose, EXAM_DETAIL, tmp_path / "bad.parquet")
    assert not (tmp_path / "bad.parquet").exists()
    nulls = pa.table({c: pa.array([None], f.type) for c, f in zip(EXAM_DETAIL.names, EXAM_DETAIL.arrow(), strict=True)})
    assert not io.conformed_arrow(nulls.cast(loose.schema), EXAM_DETAIL)


def test_a_parquet_files_footer_checks_it_whole_since_a_never_null_column_cannot_hold_a_null(tmp_path: Path) -> None:
    """conformed_parquet reads no rows: a column the schema says is never null is stored REQUIRED, which
    the writer refuses to fill with a null, and a column stored nullable reads as nullable, which is refused."""
    whole = schema.conform(_detail(3), EXAM_DETAIL, "a")
    write_table(whole, EXAM_DETAIL, tmp_path / "good.parquet", "{}")
    assert io.conformed_parquet(pq.ParquetFile(tmp_path / "good.parquet"), EXAM_DETAIL)
    strict = io.arrow_table(whole, EXAM_DETAIL)
    for column in (c.name for c in EXAM_DETAIL.columns if not c.nullable):
        i = strict.schema.get_field_index(column)
        holed = strict.set_column(i, strict.schema.field(i), pa.array([None] * len(strict), strict.schema.field(i).type))
        with pytest.raises(pa.ArrowInvalid, match="non-nullable"):
            pq.write_table(holed, tmp_path / "holed.parquet")
        loose = holed.cast(strict.schema.set(i, strict.schema.field(i).with_nullable(True)))
        pq.write_table(loose, tmp_path / "loose.parquet")
        assert not io.conformed_parquet(pq.ParquetFile(tmp_path / "loose.parquet"), EXAM_DETAIL), column
