"""The label file on disk: whole lines appended under an exclusive lock, fsync'd before return.

Every append takes ``fcntl.flock(LOCK_EX)`` on the file, reads it again (another app may have
written since), lets the caller refuse the line in view of what is there (a prediction that
meanwhile got all its labels), writes the line with one ``write`` on an ``O_APPEND`` descriptor
and fsyncs it. Readers take ``LOCK_SH``, so they never see a line being written; a ``kill -9``
lands before or after a write, never inside it, so every acknowledged line is on disk.

The log is replayed once, when the store first reads it (at the app's start, so after a crash
too); afterwards only the lines appended since are read and fed to the replay, and each change
they make is passed on to the store's listeners (the app's :class:`~sideways.annotation_app.tally.Tally`),
so no request replays the whole log.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from sideways.annotation.log import Event, Replay
from sideways.core.errors import SchemaError
from sideways.core.jsonl import decode, encode_line, parse_text


def _records(text: str, first: int, source: str) -> tuple[list[dict[str, Any]], list[int]]:
    """The JSON objects of ``text`` (whole lines), numbered from line ``first``."""
    if text and not text.endswith("\n"):
        raise SchemaError(f"{source}: line {first + text.count(chr(10))} has no end of line (a half-written line?)")
    return parse_text(text[:-1], source, first)


def encode(record: Mapping[str, Any]) -> bytes:
    """One record as one line of JSON (keys in the given order, no line break inside)."""
    return encode_line(record)


class Listener(Protocol):
    """What keeps up with the log: told of each event a line adds (+1) or withdraws (-1), and of a
    new start when the file was replaced or cut shorter (then every surviving event again)."""

    def reset(self) -> None: ...

    def apply(self, sign: int, event: Event) -> None: ...


class LabelStore:
    """The log at ``path`` (created with its folder on the first append).

    The file only grows, so the lines already parsed are kept and only what was appended since
    (by this app or another) is read again; a file replaced or cut shorter is read from the start.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: tuple[int, int] | None = None  # (device, inode) of the file parsed so far
        self._offset = 0
        self._next_line = 1  # the number of the first line not parsed yet
        self._replay = Replay(str(path))
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> None:
        """Keep ``listener`` up to date from now on: it hears the events read so far at once."""
        with self._lock:
            listener.reset()
            for event in self._replay.events():
                listener.apply(1, event)
            self._listeners.append(listener)

    def _restart(self, file: tuple[int, int] | None) -> None:
        self._file, self._offset, self._next_line = file, 0, 1
        self._replay = Replay(str(self.path))
        for listener in self._listeners:
            listener.reset()

    def _load(self, fd: int) -> None:
        """Read and replay the lines appended since the last read (the whole file when it is new)."""
        with self._lock:
            st = os.fstat(fd)
            if self._file != (st.st_dev, st.st_ino) or st.st_size < self._offset:
                self._restart((st.st_dev, st.st_ino))
            os.lseek(fd, self._offset, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
            first = self._next_line
            records, lines = _records(decode(data, str(self.path)), first, str(self.path))
            try:
                for rec, line in zip(records, lines, strict=True):
                    change = self._replay.feed(rec, line)
                    for listener in self._listeners:
                        listener.apply(*change)
            except SchemaError:
                self._restart(None)  # read again from the start next time, and stop there again
                raise
            self._offset += len(data)
            self._next_line = first + data.count(b"\n")

    def sync(self) -> None:
        """Catch up with the file under a shared lock (nothing to do when it does not exist)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            self._load(fd)
        finally:
            os.close(fd)  # closing releases the lock

    def events(self) -> list[Event]:
        """The surviving events, read under a shared lock (none when the file does not exist)."""
        self.sync()
        with self._lock:
            return self._replay.events()

    def append(self, record: Mapping[str, Any], check: Callable[[list[Event]], None] | None = None) -> list[Event]:
        """Append ``record`` as one line, durably; ``check(events)`` may raise to refuse it.

        Returns the events after the append. Runs in a worker thread under the app: it blocks.
        """
        return self.append_many(lambda: [record], check)

    def append_many(self, records: Callable[[], Sequence[Mapping[str, Any]]],
                    check: Callable[[list[Event]], None] | None = None) -> list[Event]:
        """Append the lines ``records()`` gives once ``check(events)`` has seen the file, in one write."""
        self._append(records, None if check is None else lambda: check(self._replay.events()))
        with self._lock:
            return self._replay.events()

    def append_if(self, record: Mapping[str, Any], check: Callable[[], None]) -> None:
        """Append ``record`` durably once the listeners have caught up with the file and ``check()``
        (which reads them) has not raised: no list of every event is built, the app's way."""
        self._append(lambda: [record], check)

    def _append(self, records: Callable[[], Sequence[Mapping[str, Any]]], check: Callable[[], None] | None) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._load(fd)
            if check is not None:
                check()
            data = b"".join(encode(r) for r in records())
            if data:
                _write_whole(fd, data, self.path)
            self._load(fd)
        finally:
            os.close(fd)  # closing releases the lock

def _write_whole(fd: int, data: bytes, path: Path) -> None:
    """Append ``data`` and fsync it, or leave the file as it was: a full disk (``ENOSPC``), a short
    write or a failed fsync cuts the file back to its length before, so no half line stays behind."""
    before = os.fstat(fd).st_size
    try:
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(errno.ENOSPC, f"{path}: short write ({written} of {len(data)} bytes)")
        os.fsync(fd)
    except OSError:
        os.ftruncate(fd, before)
        os.fsync(fd)
        raise


def extend(store: LabelStore, records: list[dict[str, Any]]) -> int:
    """Append the ``records`` whose (riddle_id, model, annotator) has no label in the file yet, in
    one write under the lock (an import run twice adds nothing). Returns how many were appended."""
    added = 0

    def keep(events: list[Event]) -> None:
        nonlocal added, records
        have = {(e.riddle_id, e.model, e.annotator) for e in events if e.action == "label"}
        fresh = []
        for r in records:
            key = (r["riddle_id"], r["model"], r["annotator"])
            if key not in have:
                have.add(key)
                fresh.append(r)
        records, added = fresh, len(fresh)

    store.append_many(lambda: records, keep)
    return added
