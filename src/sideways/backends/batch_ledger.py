"""The record of accepted batches, so that a paid batch is never submitted twice (issue 9).

batchling 0.1.0a3 records each accepted batch (request fingerprint -> batch id, custom id,
provider, host, endpoint, request count) in sqlite, with a commit, right after the provider
accepts it and before the first poll; a request it meets again is routed to that batch
("resumed"). But it forgets the record and submits the request in a new batch whenever
polling or downloading a resumed batch fails once (``Batcher.submit``: "Cache route failed;
falling back to fresh batch submission"), and it drops records older than 30 days.

We keep batchling as the submission and polling path and change three things from our side,
through the seams its ``Batcher`` already has (the class is subclassed, no code is copied):

* :class:`Ledger` is the record store batchling writes to (its own table and file, plus a table
  of ours for failed batches, so batches recorded by earlier versions resume). It never forgets
  an accepted batch: batchling's deletions are no-ops. Only two things release a request: the
  provider reporting its batch failed, expired or cancelled (:meth:`Ledger.mark_failed`), and a
  failed result line (:meth:`Ledger.release`, ``after_run``: that request was answered, with an error).
* :class:`RecordedBatcher` retries a failed poll (5xx, 429, dropped connection, malformed body)
  with bounded exponential backoff, in the first run and on resume alike.
* Every new batch is made of requests that passed one gate (``_enqueue_pending_request``, the
  only way into a batchling queue): a request some recorded batch holds is refused with
  :class:`NotResubmitted` (a RuntimeError: the runner tries again, which polls that batch again),
  and so is a request whose batches failed twice already in this run (the next run, a retry once
  the provider is back, submits it once more: a batch the provider failed was not paid for).
  batchling's fallback therefore becomes another poll, never a payment.

Why not drive the providers' poll and download endpoints ourselves on resume: batchling's
adapters already do it for eight providers, and the defect is only in what it does after an
error; a gate in front of its queue holds whatever its resume path does. The seams are private
methods of a pinned alpha: tests/backends/test_batch.py kills a run after acceptance and fails
its first poll on restart, and fails if an upgrade moves them.
What stays open: a process killed after the provider accepted a batch but before its answer
(with the batch id) arrived cannot know that batch; nothing on our side can record it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from batchling.cache import RequestCacheStore
from batchling.context import BatchingContext
from batchling.core import Batcher
from batchling.hooks import install_hooks
from batchling.logging import setup_logging

from sideways.backends.batch_status import STATUS_SCHEMA
from sideways.backends.http_base import policy
from sideways.config.requests import RequestSettings
from sideways.llm.retry import RETRYABLE_STATUS, RetryPolicy, backoff_delay

FAILED_SCHEMA = """CREATE TABLE IF NOT EXISTS failed_batch_requests (
    request_hash TEXT NOT NULL, provider TEXT NOT NULL, batch_id TEXT NOT NULL, status TEXT NOT NULL,
    failed_at REAL NOT NULL, PRIMARY KEY (request_hash, batch_id))"""

FALLBACK = "Cache route failed; falling back to fresh batch submission"
MAX_FAILED_BATCHES = 2  # a request goes out again once after its batch failed, not after a second failure
BUSY_TIMEOUT_MS = 60_000  # concurrent jobs (threads, or processes) write one ledger: wait, do not fail
_setup = threading.Lock()  # batchling's hooks and our log filter are process-wide: installed once
BEFORE = "unknown (recorded before sideways kept batch statuses)"


class NotResubmitted(RuntimeError):
    """A request that must not go into a new batch reached batchling's submission path."""


class _NoFallbackNote(logging.Filter):
    """batchling logs that it falls back to a new batch; the gate turns that into another poll."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(FALLBACK):
            record.msg = record.msg.replace(FALLBACK, "Cache route failed; the batch stays recorded, not resubmitted")
        return True


class Ledger(RequestCacheStore):  # type: ignore[misc]
    """batchling's request -> batch record, kept until the provider has answered or failed the batch."""

    def __init__(self, path: Path) -> None:
        super().__init__(path=path)
        with self._session() as conn:
            conn.execute("BEGIN IMMEDIATE")  # the check and the creation below are one step for concurrent jobs
            conn.execute(FAILED_SCHEMA)
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'batch_status'").fetchone() is None:
                conn.execute(STATUS_SCHEMA)  # batches recorded before: not known to be in flight
                conn.execute("INSERT OR IGNORE INTO batch_status SELECT DISTINCT provider, batch_id, ?, 1, ? "
                             "FROM request_cache", (BEFORE, time.time()))

    def _connect(self) -> sqlite3.Connection:
        """batchling's connections (its record of an accepted batch): a commit reaches the disk."""
        conn: sqlite3.Connection = super()._connect()
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA synchronous=FULL")
        return conn

    @contextlib.contextmanager
    def _session(self) -> Iterator[sqlite3.Connection]:
        """One transaction, committed (and fsynced) on success, then closed."""
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000)
        conn.execute("PRAGMA synchronous=FULL")
        try:
            with conn:
                yield conn
        finally:
            conn.close()

    def delete_by_hashes(self, *, request_hashes: Any) -> int:
        """Ignored: batchling calls this after a failed poll or download, then would submit again."""
        return 0

    def delete_older_than(self, *, min_created_at: float) -> int:
        """Ignored: an accepted batch is collected however old it is, never paid for again."""
        return 0

    def mark_failed(self, provider: str, batch_id: str, status: str) -> None:
        """The provider ended ``batch_id`` failed/expired/cancelled: its requests may go out once more."""
        with self._session() as conn:
            conn.execute("INSERT OR IGNORE INTO failed_batch_requests SELECT request_hash, provider, batch_id, ?, ? "
                         "FROM request_cache WHERE provider = ? AND batch_id = ?",
                         (status, time.time(), provider, batch_id))
            conn.execute("DELETE FROM request_cache WHERE provider = ? AND batch_id = ?", (provider, batch_id))

    def note_status(self, provider: str, batch_id: str, status: str, final: bool) -> None:
        """The status a poll found (``sideways status`` shows it; written when it changes only)."""
        with self._session() as conn:
            conn.execute("INSERT OR REPLACE INTO batch_status VALUES (?, ?, ?, ?, ?)",
                         (provider, batch_id, status, int(final), time.time()))

    def release(self, request_hashes: list[str]) -> None:
        """Forget requests answered with a failed line, so that the next run asks again."""
        with self._session() as conn:
            conn.executemany("DELETE FROM request_cache WHERE request_hash = ?", [(h,) for h in request_hashes])

    def refusal(self, request_hash: str, since: float = 0.0) -> str | None:
        """Why ``request_hash`` must not go into a new batch, or None when it may. Failed batches
        count from ``since`` (the run's start): a later run, the user's retry once the provider is
        back, submits it once more (a batch the provider failed was not paid for)."""
        with self._session() as conn:
            held = conn.execute("SELECT provider, batch_id FROM request_cache WHERE request_hash = ?",
                                (request_hash,)).fetchone()
            failed = conn.execute("SELECT batch_id, status FROM failed_batch_requests WHERE request_hash = ? "
                                  "AND failed_at >= ? ORDER BY failed_at, batch_id", (request_hash, since)).fetchall()
        if held is not None:
            return (f"{held[0]} batch {held[1]} holds this request and could not be polled or collected just "
                    "now; it is not submitted again (a retry or the next run polls that batch)")
        if len(failed) >= MAX_FAILED_BATCHES:
            ended = ", ".join(f"{b} ({s})" for b, s in failed)
            return (f"the provider ended batches {ended} holding this request without answering; "
                    "it is not submitted again")
        return None

    def fate(self, provider: str, batch_id: str, since: float = 0.0) -> list[tuple[str | None, int]]:
        """For each request of the failed ``batch_id``: the batch it went to next, and its failures
        since ``since`` (the run's start)."""
        with self._session() as conn:
            return conn.execute(
                "SELECT COALESCE((SELECT g.batch_id FROM failed_batch_requests g WHERE g.request_hash = f.request_hash "
                "AND g.rowid > f.rowid ORDER BY g.rowid LIMIT 1), (SELECT r.batch_id FROM request_cache r "
                "WHERE r.request_hash = f.request_hash)), (SELECT count(*) FROM failed_batch_requests g "
                "WHERE g.request_hash = f.request_hash AND g.rowid <= f.rowid AND g.failed_at >= ?) "
                "FROM failed_batch_requests f WHERE f.provider = ? AND f.batch_id = ?",
                (since, provider, batch_id)).fetchall()


def transient(exc: Exception) -> bool:
    """A poll failure worth another poll: 5xx/429, a dropped or refused connection, a malformed body."""
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code in RETRYABLE_STATUS
    return isinstance(exc, httpx.TransportError | json.JSONDecodeError)


class RecordedBatcher(Batcher):  # type: ignore[misc]
    """batchling's Batcher over a :class:`Ledger`, with poll retries and the gate before any new batch."""

    def __init__(self, ledger: Ledger, retry: RetryPolicy, **options: Any) -> None:
        super().__init__(cache=False, **options)  # no store at batchling's default path: ours instead
        self._cache_store, self._cache_enabled, self._cache_write_enabled = ledger, True, True
        self.ledger, self.retry = ledger, retry
        self.failed: dict[tuple[str, str], str] = {}  # (provider, batch id) -> status, in this run
        self.seen: dict[tuple[str, str], str] = {}  # (provider, batch id) -> the last status noted
        self.started = time.time()  # failed batches count from here (:meth:`Ledger.refusal`)
        self._rng = random.Random(0)

    async def _enqueue_pending_request(self, *, request: Any) -> None:
        """The only way into a new batch: closed to a request a recorded batch holds."""
        refusal = self.ledger.refusal(request.request_hash, self.started)
        if refusal is None:
            await super()._enqueue_pending_request(request=request)
        elif not request.future.done():
            request.future.set_exception(NotResubmitted(refusal))

    async def _poll_batch_once(self, *, provider: Any, batch_id: str, **kwargs: Any) -> Any:
        """One poll (retried while transient); a batch the provider failed releases its requests."""
        snapshot = await self._poll_retrying(provider=provider, batch_id=batch_id, **kwargs)
        states = provider.batch_terminal_states
        status = str(snapshot.status)
        if self.seen.get((provider.name, batch_id)) != status:
            self.seen[(provider.name, batch_id)] = status
            self.ledger.note_status(provider.name, batch_id, status, snapshot.status in states)
        if snapshot.status in states and snapshot.status != states.SUCCESS:
            self.ledger.mark_failed(provider.name, batch_id, str(snapshot.status))
            self.failed[(provider.name, batch_id)] = str(snapshot.status)
        return snapshot

    async def _poll_retrying(self, **kwargs: Any) -> Any:
        attempt = 1
        while True:
            try:
                return await super()._poll_batch_once(**kwargs)
            except (httpx.HTTPError, ValueError) as exc:
                if attempt >= self.retry.max_attempts or not transient(exc):
                    raise
            await asyncio.sleep(backoff_delay(attempt, self.retry, None, self._rng))
            attempt += 1


def recorded_batching(db: Path, settings: RequestSettings) -> tuple[BatchingContext, RecordedBatcher]:
    """What ``batchling.batchify`` returns, over our batcher and the ledger in ``db``."""
    with _setup:  # several jobs' threads may get here at once
        setup_logging()
        install_hooks()
        core_log = logging.getLogger("batchling.core")
        if not any(isinstance(f, _NoFallbackNote) for f in core_log.filters):
            core_log.addFilter(_NoFallbackNote())
    db.parent.mkdir(parents=True, exist_ok=True)
    batcher = RecordedBatcher(Ledger(db.resolve()), policy(settings), batch_size=settings.batch_size,
                              batch_window_seconds=settings.batch_window_s,
                              batch_poll_interval_seconds=settings.batch_poll_s)
    return BatchingContext(batcher=batcher, live_display=False), batcher


def failed_batch_notes(batcher: RecordedBatcher) -> list[str]:
    """One line per batch the provider failed in this run: where its requests went."""
    notes = []
    for (provider, batch_id), status in batcher.failed.items():
        fate = batcher.ledger.fate(provider, batch_id, batcher.started)
        again = sorted({b for b, _ in fate if b is not None})
        stopped = sum(b is None and n >= MAX_FAILED_BATCHES for b, n in fate)
        counts = {f"submitted once more (batch {', '.join(again)})": len(fate) - [b for b, _ in fate].count(None),
                  "not submitted again (a second failure)": stopped,
                  "answered from partial results or left for the next run":
                      sum(b is None and n < MAX_FAILED_BATCHES for b, n in fate)}
        told = ", ".join(f"{n} {what}" for what, n in counts.items() if n)
        notes.append(f"batch: {provider} batch {batch_id} ended {status!r} at the provider; "
                     f"of its {len(fate)} request(s): {told}")
    return notes


def report_failed_batches(batcher: RecordedBatcher) -> None:
    for note in failed_batch_notes(batcher):
        print(note, file=sys.stderr)
