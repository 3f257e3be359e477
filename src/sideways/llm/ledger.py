"""What the evaluation has paid: a ledger of every paid attempt, per paid stage, kept in git.

``data/spend/<stage>.jsonl`` (``extract``, ``predict``, ``judge``) is appended to while a stage sends: before an
attempt goes out, a line reserving its worst case (``{"id", "model", "key", "worst"}``); when it
ends, a line settling it (``{"id", "usd"}``: its priced usage, its worst case when the provider may
have billed it without a usable usage, 0 for an HTTP error). Each line is one ``write()`` to a file
opened with ``O_APPEND``: once it returns the bytes are the kernel's, so a ``kill -9`` loses none.

:func:`spent` reads every paid stage's ledger: settled attempts at what they cost; an attempt
reserved and never settled (its run died) at its answer's cost when the request cache has its
answer (the journal of the dead run made it a record), else at its worst case (it may have been
billed). :func:`compact` turns a finished or dead run's attempt lines into one line per model
(``{"run", "model", "usd", "attempts", "seen"}``; ``seen``: what its answers cost and what they were
expected to cost, so the next run's stop rule starts from realistic costs), so the file stays a few
lines per run.

The ledger is tracked in git (not a DVC output: a DVC output is removed before its stage runs, and
a killed run's spend must survive it), so a clone of the commit carries what was paid, and
``.gitattributes`` merges two branches' ledgers by union (every line names its run). A run appending
holds a shared ``flock`` on the file until it closes; :func:`compact` takes it exclusively or leaves
the file alone, so a run still sending (an orphaned stage whose shell was killed, a stage run by
hand) never appends to a file that compaction has replaced. Reading is
strict: a line that is not a ledger line stops the stage with one line naming file and line (a
torn last line, from a crash mid-write, is ignored: it reserved nothing that was sent).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from sideways.artifacts.io import atomic_write_bytes
from sideways.core.errors import SchemaError
from sideways.core.money import usd, usd_or_none
from sideways.llm.cache import RequestCache

SPEND_DIR = Path("data/spend")
PAID_STAGES = ("extract", "predict", "judge")  # every stage that may pay for requests


def ledger_path(stage: str, root: Path = Path(".")) -> Path:
    return root / SPEND_DIR / f"{stage}.jsonl"


def _lines(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, line) of every ledger line of ``path``; a torn last line is skipped."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    rows = data.split(b"\n")
    for n, raw in enumerate(rows, 1):
        if not raw.strip():
            continue
        where = f"{path}:{n}"
        try:
            line = json.loads(raw, parse_constant=_no_constant)
        except ValueError as exc:
            if n == len(rows) and not data.endswith(b"\n"):
                continue  # a torn last line: the write that reserved it did not finish
            raise SchemaError(f"{where}: not a ledger line ({exc})") from None
        if not isinstance(line, dict):
            raise SchemaError(f"{where}: not a ledger line (expected an object, got {type(line).__name__})")
        yield where, line


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _text(line: dict[str, Any], field: str, where: str) -> str:
    value = line.get(field)
    if not isinstance(value, str) or not value or len(value) > 200:
        raise SchemaError(f"{where}: '{field}' must be a non-empty string, got {str(value)[:40]!r}")
    return value


def _read(path: Path) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]], dict[str, float], set[str]]:
    """(summary lines, reservations by id, settled USD by id, ids settled by an answer) of one ledger,
    every value checked."""
    summaries: list[dict[str, Any]] = []
    reserved: dict[str, dict[str, Any]] = {}
    settled: dict[str, float] = {}
    answered: set[str] = set()
    for where, line in _lines(path):
        if "run" in line:
            attempts = line.get("attempts")
            if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 0:
                raise SchemaError(f"{where}: 'attempts' must be a count, got {str(attempts)[:40]!r}")
            seen = line.get("seen", [0.0, 0.0])
            if not isinstance(seen, list) or len(seen) != 2:
                raise SchemaError(f"{where}: 'seen' must be [answered USD, their expected USD], got {str(seen)[:40]!r}")
            summaries.append({"run": _text(line, "run", where), "model": _text(line, "model", where),
                              "usd": usd(line.get("usd"), where, "usd"), "attempts": attempts,
                              "seen": [usd(seen[0], where, "seen"), usd(seen[1], where, "seen")]})
        elif "worst" in line:
            worst, key = line["worst"], line.get("key")
            reserved[_text(line, "id", where)] = {
                "model": _text(line, "model", where), "key": key if isinstance(key, str) else "",
                "worst": None if worst is None else usd(worst, where, "worst"),
                "expected": usd(line.get("expected", 0.0), where, "expected")}
        elif "usd" in line:
            settled[_text(line, "id", where)] = usd(line["usd"], where, "usd")
            if line.get("answered") is True:
                answered.add(_text(line, "id", where))
        else:
            raise SchemaError(f"{where}: not a ledger line (no 'run', 'worst' or 'usd')")
    return summaries, reserved, settled, answered


Lookup = Callable[[str], float | None]  # a request key's answer cost in the request cache, if it has one


def answer_cost(cache: RequestCache) -> Lookup:
    """What the request cache says a request's answer cost (None: no answer, or no sane cost)."""
    def lookup(key: str) -> float | None:
        record = cache.get(key) if key else None
        return None if record is None else usd_or_none(record.get("cost_usd"))
    return lookup


def _attempt_cost(entry: dict[str, Any], settled: float | None, lookup: Lookup) -> float:
    if settled is not None:
        return settled
    known = lookup(entry["key"]) if entry["key"] else None
    if known is not None:
        return known
    return entry["worst"] or 0.0


def spent(root: Path = Path("."), lookup: Lookup = lambda key: None,
          stages: Iterable[str] = PAID_STAGES, besides: str | None = None) -> dict[str, float]:
    """USD the evaluation has paid per model (a judge's requests count for the model it grades);
    ``besides``: a run of this process whose attempts its budget counts already (left out)."""
    total: dict[str, float] = defaultdict(float)
    for stage in stages:
        summaries, reserved, settled, _ = _read(ledger_path(stage, root))
        for s in summaries:
            total[s["model"]] += s["usd"]
        for rid, entry in reserved.items():
            if besides is None or rid.rsplit("-", 1)[0] != besides:
                total[entry["model"]] += _attempt_cost(entry, settled.get(rid), lookup)
    return dict(total)


def observed(root: Path = Path("."), stages: Iterable[str] = PAID_STAGES) -> tuple[float, float]:
    """(USD the evaluation's answers cost, USD they were expected to cost): how realistic estimates are."""
    actual = expected = 0.0
    for stage in stages:
        summaries, reserved, settled, answered = _read(ledger_path(stage, root))
        for s in summaries:
            actual, expected = actual + s["seen"][0], expected + s["seen"][1]
        for rid in answered & set(reserved):
            actual, expected = actual + settled[rid], expected + reserved[rid]["expected"]
    return actual, expected


def compact(path: Path, lookup: Lookup = lambda key: None) -> bool:
    """Replace the attempt lines of finished or dead runs by one line per run and model (atomic);
    False, the file left as it is, while a run still appends to it (it holds its shared lock)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SchemaError(f"{path}: a symbolic link, not a ledger: remove it (a run never follows it)") from None
        raise
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        _compact(path, lookup)  # the lock is held until the new file has replaced the old one
        return True
    finally:
        os.close(fd)


def _compact(path: Path, lookup: Lookup) -> None:
    summaries, reserved, settled, answered = _read(path)
    if not reserved:
        return
    runs: dict[tuple[str, str], list[float]] = {}
    for rid, entry in reserved.items():
        slot = runs.setdefault((rid.rsplit("-", 1)[0], entry["model"]), [0.0, 0, 0.0, 0.0])
        slot[0] += _attempt_cost(entry, settled.get(rid), lookup)
        slot[1] += 1
        if rid in answered:
            slot[2] += settled[rid]
            slot[3] += entry["expected"]
    lines = summaries + [{"run": run, "model": model, "usd": round(usd, 10), "attempts": int(n),
                          "seen": [round(a, 10), round(e, 10)]}
                         for (run, model), (usd, n, a, e) in sorted(runs.items())]
    atomic_write_bytes(path, b"".join(_encode(line) for line in lines))


def _encode(line: dict[str, Any]) -> bytes:
    return (json.dumps(line, sort_keys=True, separators=(",", ":"), allow_nan=False) + "\n").encode()


class Ledger:
    """One run's appends to its stage's ledger (thread-safe): :meth:`reserve`, :meth:`settle`, :meth:`close`."""

    def __init__(self, path: Path):
        self.path = path
        self.run = f"{os.getpid()}{secrets.token_hex(4)}"
        self._n = 0
        self._lock = threading.Lock()
        self._fd: int | None = None  # opened by the first attempt: a run that pays nothing leaves no file
        self._closed = False

    def _append(self, line: dict[str, Any]) -> None:
        data = memoryview(_encode(line))
        with self._lock:
            if self._closed:
                raise RuntimeError(f"{self.path}: the ledger is closed")
            if self._fd is None:
                self._fd = self._open()
            while data:
                data = data[os.write(self._fd, data):]

    def _open(self) -> int:
        """The ledger file, opened for appends with its shared lock held: :func:`compact` leaves it alone
        from then on. Opened again when compaction replaced the file between the open and the lock."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise SchemaError(f"{self.path}: a symbolic link, not a ledger: remove it (a run never "
                                      "follows it)") from None
                raise
            fcntl.flock(fd, fcntl.LOCK_SH)
            try:
                current = os.stat(self.path, follow_symlinks=False).st_ino
            except FileNotFoundError:
                current = -1
            if current == os.fstat(fd).st_ino:
                return fd
            os.close(fd)

    def reserve(self, model: str, key: str, worst: float | None, expected: float = 0.0) -> str:
        """Record an attempt about to be sent; its id, for :meth:`settle`."""
        with self._lock:
            self._n += 1
            rid = f"{self.run}-{self._n}"
        self._append({"id": rid, "model": model, "key": key, "worst": None if worst is None else round(worst, 10),
                      "expected": round(expected, 10)})
        return rid

    def settle(self, rid: str, usd: float, answered: bool = False) -> None:
        """Record what an attempt cost (``answered``: an answer's priced usage, not a worst case)."""
        self._append({"id": rid, "usd": round(usd, 10), **({"answered": True} if answered else {})})

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._fd is not None:
                os.fsync(self._fd)
                os.close(self._fd)
                self._fd = None
