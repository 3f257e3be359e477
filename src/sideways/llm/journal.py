"""An append-only journal of a run's answers, so a request's slot is free the moment it is answered.

Each answer's cache record is appended to ``<cache>/journal/<pid>-<token>.jsonl`` with one
``write()`` from the event loop: once it returns the bytes are the kernel's, and a SIGKILL
cannot lose them. Writer threads then turn the lines into the usual content-addressed records
(temporary file, fsync, rename), off the requests' path, and fdatasync the journal in groups
(one fdatasync covers every line appended before it starts), so an OS crash or power cut
loses at most the answers of the last few milliseconds (journalled, not yet synced). When the
run ends and every record is durable, the journal is deleted.

A journal whose run died (SIGKILL, crash) is recovered by the next run over the same cache
(:func:`recover`): its lines become records, then it is deleted. A torn last line is ignored.
A live run holds an exclusive ``flock`` on its journal, which the kernel drops when the
process dies however it dies; a journal that cannot be locked belongs to a live run and is
left alone.

Next to its journal a live run keeps ``<name>.status.json`` (:meth:`Journal.status`): the job
and provider it works for, its requests, and how many it has sent, had answered and seen fail,
rewritten at most once a second and deleted with the journal. ``sideways status`` reads them
through :func:`live_runs`; a status file whose journal is not locked is a dead run's.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import queue
import secrets
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sideways.llm.cache import RequestCache, is_key

JOURNAL_DIR = "journal"
STATUS_SUFFIX = ".status.json"


_SYNC = ("", b"")  # a writer's cue to fdatasync the journal


class Journal:
    """One run's journal and its record writers: :meth:`append` answers, then :meth:`close`."""

    def __init__(self, cache: RequestCache, writers: int = 4, about: Mapping[str, Any] | None = None):
        self.cache = cache
        folder = cache.root / JOURNAL_DIR
        folder.mkdir(parents=True, exist_ok=True)
        self.path, self._fd = _create_locked(folder)
        self.status_path = self.path.with_suffix(STATUS_SUFFIX)
        self._about = {**(about or {}), "pid": os.getpid(), "started_at": time.time()}
        self._shown: tuple[int, ...] = ()
        self._queue: queue.SimpleQueue[tuple[str, bytes] | None] = queue.SimpleQueue()
        self._sync_queued = False
        self._errors: list[BaseException] = []
        # Several writers, because concurrent fsyncs share one ext4 journal commit: one
        # thread fsyncing record after record falls behind as soon as the disk is busy.
        self._threads = [threading.Thread(target=self._write, name=f"sideways-cache-{i}", daemon=True)
                         for i in range(writers)]
        for thread in self._threads:
            thread.start()

    def append(self, key: str, data: bytes) -> None:
        """Journal one encoded record (no newline inside: :func:`~sideways.llm.cache.encode`)."""
        line = memoryview(data + b"\n")
        while line:
            line = line[os.write(self._fd, line):]
        if not self._sync_queued:  # one fdatasync covers every line appended before it runs
            self._sync_queued = True
            self._queue.put(_SYNC)
        self._queue.put((key, data))

    def status(self, **counts: int) -> None:
        """Rewrite the status file when ``counts`` changed (temporary file and rename, no fsync:
        it only says what is in flight, and dies with the run)."""
        shown = tuple(counts.values())
        if shown == self._shown:
            return
        self._shown = shown
        tmp = self.status_path.with_name(self.status_path.name + ".tmp")
        tmp.write_text(json.dumps({**self._about, **counts, "updated_at": time.time()}))
        os.replace(tmp, self.status_path)

    def close(self) -> None:
        """Wait until every journalled answer is a durable record, then delete the journal.

        If a writer failed, the journal is kept (the next run recovers it) and the error raised.
        """
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join()
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.status_path)
            if self._errors:
                raise self._errors[0]
            os.unlink(self.path)
        finally:
            os.close(self._fd)

    def _write(self) -> None:
        """A writer thread: records (temporary file, fsync, rename) and the journal's fdatasyncs."""
        while (item := self._queue.get()) is not None:
            try:
                if item is _SYNC:
                    self._sync_queued = False
                    os.fdatasync(self._fd)
                else:
                    self.cache.write_encoded(*item)
            except BaseException as exc:  # raised by close(); the journal still holds the answers
                self._errors.append(exc)


def _create_locked(folder: Path) -> tuple[Path, int]:
    """A new journal file, exclusively locked before it gets the name :func:`recover` looks at."""
    name = f"{os.getpid()}-{secrets.token_hex(8)}"
    tmp = folder / f"{name}.new"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    path = folder / f"{name}.jsonl"
    os.rename(tmp, path)
    _fsync_dir(folder)
    return path, fd


def recover(cache: RequestCache) -> int:
    """Turn the journals of dead runs into records, then delete them; the number of records written.

    Lines that do not parse (a torn last line) are skipped; records already present are kept.
    """
    folder = cache.root / JOURNAL_DIR
    if not folder.is_dir():
        return 0
    written = 0
    for path in sorted(folder.glob("*.jsonl")):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:  # another run recovered it meanwhile
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # a live run's journal
                continue
            with open(fd, "rb", closefd=False) as fh:
                lines = fh.read().split(b"\n")
            written += _replay(cache, lines)
            for dead in (path.with_suffix(STATUS_SUFFIX), path):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(dead)
        finally:
            os.close(fd)
    return written


def live_runs(cache_root: Path) -> list[dict[str, Any]]:
    """The status of every run that holds its journal's lock now, with ``journal_answers`` (answer
    lines journalled so far) and ``journal_errors`` (of those, rejections); oldest run first."""
    folder = cache_root / JOURNAL_DIR
    runs = []
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:  # the run ended meanwhile
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                continue  # nobody holds it: a dead run's journal, recovered by the next run
            except BlockingIOError:
                pass
            with open(fd, "rb", closefd=False) as fh:
                lines = [line for line in fh.read().split(b"\n") if line.strip()]
        finally:
            os.close(fd)
        try:
            about = json.loads(path.with_suffix(STATUS_SUFFIX).read_text())
        except (FileNotFoundError, ValueError):
            about = {}
        errors = sum(b'"error": null' not in line for line in lines)
        runs.append({**about, "journal": path.name, "journal_answers": len(lines), "journal_errors": errors})
    return sorted(runs, key=lambda r: (r.get("started_at", 0.0), r["journal"]))


def _replay(cache: RequestCache, lines: list[bytes]) -> int:
    """Write the records of journal lines whose key has none yet; torn or foreign lines are skipped."""
    written = 0
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        key = record.get("key") if isinstance(record, dict) else None
        if is_key(key) and cache.get(key) is None:
            cache.write_encoded(key, line)
            written += 1
    return written


def _fsync_dir(folder: Path) -> None:
    """Make a new name in ``folder`` durable (the file's own fsync does not cover its name)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
