"""Tables written sorted by a two-column key, checked and read in Arrow.

The exam detail is 2.8 million rows at 200 models x 14,042 questions. :func:`~sideways.artifacts.io.read_table`
converts every string of it to a Python object to check it (about 0.6 s a million rows, and as much
again to write it back). A file written sorted by its key needs none of that: its Arrow schema says
the types and where nulls may be, and one vectorised comparison of neighbouring rows proves the
order and that no key comes twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from sideways.artifacts.io import conformed_arrow, read_arrow, read_table, read_tables
from sideways.artifacts.schema import TableSchema


def key_runs(table: pa.Table, key: tuple[str, str]) -> dict[str, tuple[int, int]] | None:
    """Each value of the first key column's rows ``(a, b)`` of a table sorted by ``key`` with no key
    twice (in Arrow's byte order of UTF-8, which is Python's order of strings); None when it is not so."""
    n = len(table)
    if n == 0:
        return {}
    first, second = (table.column(c).combine_chunks() for c in key)
    a0, a1, b0, b1 = first.slice(0, n - 1), first.slice(1), second.slice(0, n - 1), second.slice(1)
    new_run = pc.not_equal(a0, a1)
    ordered = pc.or_(pc.and_(new_run, pc.less(a0, a1)), pc.and_(pc.invert(new_run), pc.less(b0, b1)))
    if pc.all(ordered).as_py() is False:  # an empty comparison (one row) is True
        return None
    starts = np.concatenate([[0], np.flatnonzero(new_run.to_numpy(zero_copy_only=False)) + 1])
    ends = np.append(starts[1:], n)
    names = first.take(pa.array(starts)).to_pylist()
    return {str(m): (int(a), int(b)) for m, a, b in zip(names, starts, ends, strict=True)}


def read_sorted(path: str | Path | Sequence[str | Path], schema: TableSchema,
                source: str | None = None) -> pd.DataFrame:
    """The rows :func:`~sideways.artifacts.io.read_table` gives, for a file sorted by the schema's
    two-column key, with its strings left in Arrow (pandas' ``str`` dtype: a missing string is NaN,
    not None); any other file is read by ``read_table``, whose errors name what is wrong.

    ``path`` may be several files of one table (one per model, in key order): read together, the
    same way, when they are together sorted by the key; else by
    :func:`~sideways.artifacts.io.read_tables` (``source`` names them in its errors)."""
    if len(schema.key) != 2:
        raise ValueError(f"read_sorted: {schema.name} has no two-column key")
    several = not isinstance(path, (str, Path))
    files = [Path(path)] if isinstance(path, (str, Path)) else [Path(p) for p in path]
    parts = [read_arrow(p, schema) for p in files]
    if all(conformed_arrow(t, schema) for t in parts):
        table = pa.concat_tables([t.replace_schema_metadata(None) for t in parts]) if parts else \
            schema.arrow().empty_table()
        if key_runs(table, (schema.key[0], schema.key[1])) is not None:
            frame: pd.DataFrame = table.to_pandas()
            return frame
    if several:
        return read_tables(files, schema, source or ", ".join(map(str, files)))
    return read_table(files[0], schema)
