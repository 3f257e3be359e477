"""Reading and writing artifacts: Parquet validated against its schema, written atomically.

A failed write leaves nothing at the target path (the file is written beside it and renamed),
so a failed stage never leaves a half-written artifact for DVC or the next stage to pick up.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sideways.artifacts.schema import TableSchema, conform
from sideways.core.errors import SchemaError


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it: done once, at import, before any thread
    os.umask(mask)
    return mask


_UMASK = _umask()


def atomic_write_bytes(path: str | Path, data: bytes, *, sync: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    The file gets mode 0644 less the umask, as ``open`` would give it and as DVC restores it
    (``mkstemp`` alone would leave it 0600). ``sync=False`` skips the fsync, for bytes that are
    durable elsewhere already (a copy out of DVC's cache): the rename keeps it atomic."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644 & ~_UMASK)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def json_bytes(obj: Any, compact: bool = False) -> bytes:
    """``obj`` as stable, sorted, indented JSON (same input, same bytes); ``compact``: on one line,
    which Python's C encoder writes (indented JSON goes through its pure-Python encoder: a second
    for the 20,000 pairs of 200 models)."""
    if compact:
        return (json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def write_json(path: str | Path, obj: Any, compact: bool = False) -> None:
    """Write ``obj`` as stable, sorted JSON (same input, same bytes), indented unless ``compact``."""
    atomic_write_bytes(path, json_bytes(obj, compact))


INPUTS_KEY = "sideways.inputs"  # the fingerprint of what a coarse stage's job read (artifacts/fingerprint.py)


def table_bytes(df: pd.DataFrame, schema: TableSchema, source: str, inputs: str | None = None) -> bytes:
    """``df`` validated against ``schema`` (errors name ``source``) as Parquet bytes; ``inputs``,
    when given, is kept in the file's metadata under :data:`INPUTS_KEY`."""
    return _parquet_bytes(conform(df, schema, source), schema, inputs)


def _parquet_bytes(table_df: pd.DataFrame, schema: TableSchema, inputs: str | None) -> bytes:
    """A frame already conformed to ``schema`` as :func:`table_bytes`' Parquet bytes."""
    return _arrow_bytes(arrow_table(table_df, schema), schema, inputs)


def arrow_table(conformed: pd.DataFrame, schema: TableSchema) -> pa.Table:
    """A frame already conformed to ``schema`` (:func:`~sideways.artifacts.schema.conform`) as an
    Arrow table of exactly the schema's types."""
    return pa.Table.from_pandas(conformed, schema=schema.arrow(), preserve_index=False)


def _arrow_bytes(table: pa.Table, schema: TableSchema, inputs: str | None) -> bytes:
    # "sideways.schema" is a format key of the files, not a module path: changing it changes every byte
    metadata = {"sideways.schema": schema.name} | ({INPUTS_KEY: inputs} if inputs is not None else {})
    table = table.replace_schema_metadata(metadata)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return bytes(sink.getvalue().to_pybytes())


def write_table(df: pd.DataFrame, schema: TableSchema, path: str | Path,
                inputs: str | Callable[[pd.DataFrame], str] | None = None) -> pd.DataFrame:
    """Validate ``df`` against ``schema`` and write it to ``path`` as Parquet, atomically
    (``inputs``: as :func:`table_bytes`, or made from the validated frame by a function)."""
    table_df = conform(df, schema, str(path))
    text = inputs(table_df) if callable(inputs) else inputs
    atomic_write_bytes(path, _parquet_bytes(table_df, schema, text))  # conformed once, not twice
    return table_df


def write_arrow(table: pa.Table, schema: TableSchema, path: str | Path, inputs: str | None = None) -> None:
    """Write ``table``, whose every part was checked against ``schema`` (:func:`arrow_table` of a
    conformed frame, :func:`conformed_arrow`), as :func:`write_table` writes a frame: the same bytes
    for the same rows, however many chunks the table is in. The exam detail of millions of rows is
    put together this way from the previous run's rows and the new ones, not converted to Python
    strings and back (about 1.5 s a million rows)."""
    if not conformed_arrow(table, schema):
        raise SchemaError(f"{path}: {schema.name} table of other types, or null where none is allowed: {table.schema}")
    atomic_write_bytes(path, _arrow_bytes(table.combine_chunks(), schema, inputs))


def conformed_arrow(table: pa.Table, schema: TableSchema) -> bool:
    """Whether ``table`` (as read from Parquet) has exactly the schema's columns, types and
    nullability, and no null where the schema allows none: what :func:`read_table` would accept,
    short of the key check, without converting a value (the caller checks its keys)."""
    return table.schema.equals(schema.arrow(), check_metadata=False) and all(
        table.column(c.name).null_count == 0 for c in schema.columns if not c.nullable)


def conformed_parquet(file: pq.ParquetFile, schema: TableSchema) -> bool:
    """:func:`conformed_arrow` of a whole Parquet file without reading its rows, so that a reader that
    needs a few of its columns checks all of them: the schema from its footer is the whole check, since
    a column stored as never null (Parquet's REQUIRED, which pyarrow reads as not nullable) has no way
    to hold a null (no definition levels are written for it), and a nullable one is refused here."""
    return bool(file.schema_arrow.equals(schema.arrow(), check_metadata=False))


def table_inputs(path: Path) -> str | None:
    """The :data:`INPUTS_KEY` a table was written with (None: none, or not a readable Parquet file)."""
    try:
        metadata = pq.read_schema(path).metadata or {}
    except (pa.ArrowInvalid, OSError):
        return None
    value = metadata.get(INPUTS_KEY.encode())
    return None if value is None else value.decode()


def read_arrow(path: Path, schema: TableSchema) -> pa.Table:
    """The Parquet file at ``path`` as Arrow, unchecked (:func:`conformed_arrow` checks it); a
    missing or unreadable file is a :class:`SchemaError` naming it."""
    if not path.exists():
        raise SchemaError(f"{path}: no such {schema.name} file")
    try:
        return pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise SchemaError(f"{path}: not a readable Parquet file ({exc})") from exc


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    df: pd.DataFrame = table.to_pandas(types_mapper={pa.string(): None}.get)
    return df


def read_table(path: str | Path, schema: TableSchema) -> pd.DataFrame:
    """Read the Parquet file at ``path`` and validate it against ``schema``."""
    path = Path(path)
    return conform(_to_pandas(read_arrow(path, schema)), schema, str(path))


def read_tables(paths: Sequence[str | Path], schema: TableSchema, source: str) -> pd.DataFrame:
    """Several files of one table (one per model, say) as one frame, validated against ``schema``.

    Files written by :func:`write_table` carry exactly the schema's Arrow types, so they are
    concatenated and validated once (``source`` names them in errors; a key repeated across files
    is an error too): per-file pandas work dominated reading a split of 50 models. When a file's
    types differ, every file is read and validated alone, so the error names the file.
    """
    tables = [read_arrow(Path(p), schema) for p in paths]
    expected = schema.arrow()
    if any(not t.schema.equals(expected, check_metadata=False) for t in tables):
        return conform(pd.concat([read_table(p, schema) for p in paths], ignore_index=True), schema, source)
    return conform(_to_pandas(pa.concat_tables(tables) if tables else expected.empty_table()), schema, source)
