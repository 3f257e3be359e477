"""The batch ledger's status table: what ``sideways status`` reads to say what is in flight.

batchling's ledger (a sqlite file in the request cache) records every request it batched;
:mod:`sideways.backends.batch_ledger` adds a ``batch_status`` table with the last status each
batch had when polled. This module owns that table's schema and its read-only view, and imports
nothing of the HTTP stack: ``sideways status`` reads it without a key or the network. Both the
batch backend and the ledger import it, so neither imports the other back.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

BATCHLING_DB = "batchling.sqlite3"

# Our table in batchling's ledger: the last status each batch had when polled (a row is written
# only when the status changes), so ``sideways status`` can say what is in flight without a key.
STATUS_SCHEMA = """CREATE TABLE IF NOT EXISTS batch_status (
    provider TEXT NOT NULL, batch_id TEXT NOT NULL, status TEXT NOT NULL, final INTEGER NOT NULL,
    seen_at REAL NOT NULL, PRIMARY KEY (provider, batch_id))"""


@dataclass(frozen=True)
class RecordedBatch:
    """A batch the ledger holds requests of: the last status polled (None: not polled yet)."""

    provider: str
    batch_id: str
    model: str
    requests: int
    created_at: float
    status: str | None
    final: bool
    seen_at: float | None


def recorded_batches(db: Path) -> list[RecordedBatch]:
    """Every batch ``db`` (a ledger) holds requests of, oldest first; read-only, no key, no network."""
    if not db.is_file():
        return []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        has_status = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'batch_status'").fetchone()
        status = ("s.status, s.final, s.seen_at" if has_status else "NULL, 0, NULL")
        join = "LEFT JOIN batch_status s USING (provider, batch_id)" if has_status else ""
        rows = conn.execute(f"SELECT r.provider, r.batch_id, MIN(r.model), COUNT(*), MIN(r.created_at), {status} "
                            f"FROM request_cache r {join} GROUP BY r.provider, r.batch_id "
                            "ORDER BY MIN(r.created_at), r.batch_id").fetchall()
    except sqlite3.OperationalError:  # no request_cache table yet
        return []
    finally:
        conn.close()
    return [RecordedBatch(p, b, m, n, c, s, bool(f), seen) for p, b, m, n, c, s, f, seen in rows]
