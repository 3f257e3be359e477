"""Answers that travel: the request-cache records a paid stage used, written beside its results.

Each predict and judge stage writes ``data/answers/<stage>/<split>/<model>.jsonl``: one cache
record per line (sorted by key, the request cache's own bytes), for every request behind a row of
its output. It is an ordinary DVC output, so ``dvc push`` shares it with the results and
``dvc pull`` brings it to any clone. Before a paid stage sends anything, it restores the records
of its previous version (:mod:`sideways.artifacts.previous`) into the request cache, so a rerun
forced by a code change pays nothing that was already paid, on any machine.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sideways.artifacts.io import atomic_write_bytes
from sideways.artifacts.previous import previous_output
from sideways.core.errors import AnswersError
from sideways.core.jsonl import read_jsonl_numbered
from sideways.llm.cache import RequestCache, check_key, encode, is_key


def read_answers(path: Path) -> list[dict[str, Any]]:
    """The records of an answers file; a broken line is an error naming the file and line."""
    records, numbers = read_jsonl_numbered(path)
    for record, number in zip(records, numbers, strict=True):
        check_key(record.get("key"), f"{path}: line {number}")
    return records


def answers_bytes(records: Iterable[dict[str, Any]]) -> bytes:
    """One record per line, sorted by key: the same records give the same bytes."""
    unique = {r["key"]: r for r in records}
    return b"".join(encode(unique[k]) + b"\n" for k in sorted(unique))


def write_answers(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """One record per line, sorted by key (the same records give the same bytes), atomically."""
    atomic_write_bytes(path, answers_bytes(records))


def restore(records: Iterable[dict[str, Any]], cache: RequestCache) -> int:
    """Put each record the cache lacks into it; returns how many were restored."""
    added = 0
    for record in records:
        if cache.get(record["key"]) is None:
            cache.put(record)
            added += 1
    return added


def used(keys: Iterable[object], cache: RequestCache, answered: Iterable[object] = ()) -> list[dict[str, Any]]:
    """The cache records behind ``keys`` (a table's ``request_hash`` column); keys with no record,
    such as simulated rows or failures that were not cached, have none.

    ``answered`` are the keys of rows answered through the request cache (status ok, a backend that
    sends requests): each must have a readable record. One lost to a full disk would otherwise drop
    out of the answers file that travels, silently, and be paid again on the next machine.
    """
    found = {}
    for key in {k for k in keys if isinstance(k, str)}:
        record = cache.get(key)
        if record is not None:
            found[key] = record
    lost = sorted({k for k in answered if is_key(k) and k not in found and cache.get(k) is None})
    if lost:
        raise AnswersError(f"{cache.root}: no readable record for {len(lost)} answered request(s) "
                           f"({', '.join(k[:12] for k in lost[:5])}): a write failed (a full disk?) and they would "
                           "be missing from the answers file that travels; free space and rerun (nothing is paid twice "
                           "that has a record)")
    return list(found.values())


def restore_previous(stage: str, output: Path, cache: RequestCache) -> int:
    """Restore into ``cache`` the answers that ``stage`` last wrote to ``output`` (from the
    workspace, or DVC's cache after ``dvc pull``); returns how many the cache lacked."""
    previous = previous_output(stage, output)
    return 0 if previous is None else restore(read_answers(previous), cache)
