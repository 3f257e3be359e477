"""One run at a time sends requests through a request cache: two runs never pay for one request twice.

Two workspaces may share a request cache (``requests.cache_dir`` pointing at one folder), and two
``dvc repro`` may run at once. Each run looks its requests up in the cache, then sends the misses:
without a lock both runs miss the same requests and both pay. :func:`sending` holds an exclusive
``flock`` on ``<cache>/paid.lock`` while a run sends and until its answers are records; the run
that must wait says which run it waits for, then looks its requests up again (what the other run
paid for is a hit). Threads of one process share the lock (a stage runs every job at once).
The lock dies with its process (a SIGKILL frees it); the file stays, empty of meaning.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sideways.core.errors import SidewaysError

LOCK_NAME = "paid.lock"
_guard = threading.Lock()
_held: dict[str, list[int]] = {}  # cache root -> [fd, users in this process]


@contextmanager
def sending(root: Path, desc: str) -> Iterator[bool]:
    """Hold the cache's send lock; yields whether this run waited for another (its lookups are stale)."""
    name = str(Path(root).resolve())
    waited = not _guard.acquire(blocking=False)
    if waited:
        _guard.acquire()
    try:
        entry = _held.get(name)
        if entry is None:
            fd, blocked = _lock(Path(root), desc)
            waited = waited or blocked
            entry = _held[name] = [fd, 0]
        entry[1] += 1
    finally:
        _guard.release()
    try:
        yield waited
    finally:
        with _guard:
            entry[1] -= 1
            if entry[1] == 0:
                del _held[name]
                os.close(entry[0])  # releases the flock


def _lock(root: Path, desc: str) -> tuple[int, bool]:
    """The locked file descriptor of ``root``'s lock file, and whether another process held it first."""
    root.mkdir(parents=True, exist_ok=True)
    # O_NOFOLLOW: a symlink planted at paid.lock must not make a run open (and truncate) its target
    try:
        fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise SidewaysError(f"{root / LOCK_NAME}: a symbolic link, not the request cache's lock file: remove it "
                            "(a run never follows it)") from None
    blocked = False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            blocked = True
            print(f"{desc}: waiting for another run that is sending requests through the request cache {root} "
                  f"({holder(fd)}); what it pays for will be a cache hit here, not paid twice",
                  file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        about = {"pid": os.getpid(), "what": desc, "cwd": os.getcwd(), "since": time.strftime("%H:%M:%S")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(about).encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    return fd, blocked


def holder(fd: int) -> str:
    """Who holds the lock, as its holder wrote it (pid, what, folder, since when)."""
    try:
        about = json.loads(os.pread(fd, 4096, 0))
        return f"pid {about['pid']}, {about['what']}, in {about['cwd']}, since {about['since']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a run that has not said who it is yet"
