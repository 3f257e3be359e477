"""Failed jobs: the record each paid stage writes, and what the stages after it make of it.

A paid stage (``predict``, ``judge``) whose job fails (a provider down, too many failed items, the
spending cap) still writes every other job's files, and records the failed ones in
``metrics/failures/<stage>.json`` (a DVC output of the stage): one entry per failed job with its
model, benchmark, provider, reason, HTTP status and first error line. The per-split stages, the
exam's scores and the report read it to run on the models that have results and to say which are
missing and why; ``sideways show``, ``sideways status`` and ``make repro`` print it.

Each paid stage also writes the failed jobs of each benchmark alone
(``metrics/failures/<stage>/<benchmark>.json``): the stages of one riddle split depend on their
split's, so an exam job that fails, or what a run spent under a spending cap (the whole record
says), reruns no stage of a riddle split.

A failed job must be retried by the next ``dvc repro``, though DVC saw the stage succeed: the
``failures`` stage, last in the pipeline, bumps ``data/retry/<stage>.json`` (a dependency of the
paid stage, tracked in git) while jobs are failed, and exits non-zero (docs/design.md, "Failed
jobs").
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sideways.artifacts import paths
from sideways.artifacts.io import atomic_write_bytes, json_bytes
from sideways.core.errors import SchemaError
from sideways.core.width import clip

PAID_STAGES = ("predict", "judge")
FAILURES_DIR = paths.METRICS / "failures"
RETRY_DIR = paths.DATA / "retry"

PROVIDER_ERROR = "provider error"
SPENDING_CAP = "spending cap"
BLOCKED = "blocked"  # a judge job whose model's predict job failed


@dataclass(frozen=True)
class FailedJob:
    """One failed job, as the record and every summary name it."""

    job: str  # predict@atlas-large-llm
    kind: str  # predict, judge, exam_predict, exam_judge
    model: str
    benchmark: str  # a riddle split or an exam key
    provider: str
    reason: str  # PROVIDER_ERROR, SPENDING_CAP or BLOCKED
    status: int | None  # the HTTP status of its first failed request, when there was one
    error: str  # the first line of its error

    def line(self) -> str:
        """``predict@d-llm: provider bad, HTTP 503, provider error: <first error line>``."""
        status = f", HTTP {self.status}" if self.status is not None else ""
        return f"{self.job}: provider {self.provider}{status}, {self.reason}: {self.error}"


def failures_path(stage: str) -> Path:
    """The failure record of paid ``stage`` (predict or judge)."""
    return FAILURES_DIR / f"{stage}.json"


def benchmark_failures_path(stage: str, benchmark: str) -> Path:
    """The failed jobs of paid ``stage`` on one ``benchmark`` (a riddle split or an exam key)."""
    return FAILURES_DIR / stage / f"{benchmark}.json"


def retry_marker(stage: str) -> Path:
    """The file the ``failures`` stage changes while ``stage`` has failed jobs (a dependency of ``stage``)."""
    return RETRY_DIR / f"{stage}.json"


_STATUS = re.compile(r"HTTP (\d{3})")


_COUNTS = re.compile(r"\d+ of \d+ items failed")
_FIRST = re.compile(r"first failures: (.*?)(?: \| |\. Nothing was written|$)")


def first_line(text: str) -> str:
    """The first line of an error (a line break a :class:`SidewaysError` escaped counts as one), at
    most 300 characters; of a too-many-failures error, its counts and its first failed item's error."""
    line = (text.replace("\\n", "\n").strip().splitlines() or [""])[0]
    counts, first = _COUNTS.search(line), _FIRST.search(line)
    if counts and first:
        line = f"{counts.group(0)}, the first: {first.group(1)}"
    return line[:300]


def http_status(text: str) -> int | None:
    """The first HTTP status an error message names, or None."""
    match = _STATUS.search(text)
    return int(match.group(1)) if match else None


def write_failures(stage: str, failed: Iterable[FailedJob], root: Path = Path("."), spent: float | None = None,
                   benchmarks: Iterable[str] = ()) -> None:
    """The failure record of ``stage``, sorted by job (an empty list when every job succeeded), and
    ``spent``: what its requests cost in this execution, when a spending cap was set; the failed
    jobs of each benchmark alone, for ``benchmarks`` and every benchmark a failed job names (any
    other file of the stage's folder is removed). With failed jobs, the stage's retry marker too:
    a new attempt, ``failed`` (see :func:`mark_retry`)."""
    jobs = sorted(failed, key=lambda f: f.job)
    record: dict[str, Any] = {"stage": stage, "failed": [asdict(f) for f in jobs]}
    if spent is not None and math.isfinite(spent):  # the record is JSON: never NaN
        record["spent_usd"] = round(spent, 8)
    atomic_write_bytes(root / failures_path(stage), json_bytes(record))
    written = set()
    for benchmark in dict.fromkeys([*benchmarks, *(f.benchmark for f in jobs)]):
        path = root / benchmark_failures_path(stage, benchmark)
        atomic_write_bytes(path, json_bytes({"stage": stage, "benchmark": benchmark,
                                             "failed": [asdict(f) for f in jobs if f.benchmark == benchmark]}))
        written.add(path.name)
    folder = root / FAILURES_DIR / stage
    for stale in folder.glob("*.json") if folder.is_dir() else ():
        if stale.name not in written:
            stale.unlink()
    if jobs:
        attempt = int(read_marker(stage, root).get("attempt", 0)) + 1
        write_marker(stage, {"stage": stage, "attempt": attempt, "state": "failed", "failed": [f.job for f in jobs]},
                     root)


def read_marker(stage: str, root: Path = Path(".")) -> dict[str, Any]:
    """The retry marker of ``stage`` ({} when there is none yet); one line naming the file and the
    field when it is not one (its ``attempt`` a count, its ``state`` a string)."""
    path = root / retry_marker(stage)
    try:
        data: Any = json.loads(path.read_bytes(), parse_constant=_no_constant)
    except FileNotFoundError:
        return {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise SchemaError(f"{path}: not a retry marker ({exc})") from None
    if not isinstance(data, dict):
        return {}
    attempt = data.get("attempt", 0)
    if isinstance(attempt, bool) or not isinstance(attempt, int) or not 0 <= attempt < 10**9:
        raise SchemaError(f"{path}: 'attempt' must be a count, got {str(attempt)[:40]!r}")
    if not isinstance(data.get("state", ""), str):
        raise SchemaError(f"{path}: 'state' must be a string, got {str(data.get('state'))[:40]!r}")
    return dict(data)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def write_marker(stage: str, marker: dict[str, Any], root: Path = Path(".")) -> None:
    atomic_write_bytes(root / retry_marker(stage), json_bytes(marker))


def mark_retry(stage: str, root: Path = Path(".")) -> bool:
    """After a run: a marker the stage left ``failed`` becomes ``retry``, so the stage's dependency
    differs from what DVC recorded and the next ``dvc repro`` runs it again (its failed jobs only).
    Each failed run is a new attempt, so the marker never returns to a state DVC saw with failures
    (nor one its run-cache holds). True when the marker changed."""
    marker = read_marker(stage, root)
    if marker.get("state") != "failed":
        return False
    write_marker(stage, {**marker, "state": "retry"}, root)
    return True


def read_failures(stages: Sequence[str] = PAID_STAGES, root: Path = Path(".")) -> list[FailedJob]:
    """Every failed job the records of ``stages`` name (none for a record not written yet)."""
    out: list[FailedJob] = []
    for stage in stages:
        path = root / failures_path(stage)
        if path.is_file():
            out += _record_jobs(path)
    return out


def _record_jobs(path: Path) -> list[FailedJob]:
    """The failed jobs one record file names; any other bytes are one line naming the file."""
    try:
        data: Any = json.loads(path.read_bytes(), parse_constant=_no_constant)
        return [_failed_job(entry) for entry in data["failed"]]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise SchemaError(f"{path}: not a failure record ({str(exc)[:200]})") from None


def _failed_job(entry: Any) -> FailedJob:
    """A record's entry, every field of its type (a TypeError naming the field otherwise)."""
    if not isinstance(entry, dict):
        raise TypeError(f"an entry must be an object, got {type(entry).__name__}")
    job = FailedJob(**entry)
    for name, value in asdict(job).items():
        ok = (value is None or (isinstance(value, int) and not isinstance(value, bool))) if name == "status" \
            else isinstance(value, str)
        if not ok:
            raise TypeError(f"'{name}' must be {'an HTTP status' if name == 'status' else 'a string'}, "
                            f"got {str(value)[:40]!r}")
    return job


def read_benchmark_failures(benchmark: str, stages: Sequence[str] = PAID_STAGES,
                            root: Path = Path(".")) -> list[FailedJob]:
    """The failed jobs of ``stages`` on ``benchmark``, from their files of that benchmark (what the
    stages of one split depend on)."""
    out: list[FailedJob] = []
    for stage in stages:
        path = root / benchmark_failures_path(stage, benchmark)
        if not path.is_file():  # a workspace from before these files: the stage's whole record
            out += [f for f in read_failures((stage,), root) if f.benchmark == benchmark]
            continue
        out += _record_jobs(path)
    return out


def missing(benchmark: str, root: Path = Path(".")) -> dict[str, FailedJob]:
    """Models without results on ``benchmark`` (a split or an exam key): model -> its first failed job.

    A model is missing when any of its jobs on the benchmark failed (its predict job, or its judge
    job: a model without verdicts cannot be scored)."""
    found: dict[str, FailedJob] = {}
    for f in read_benchmark_failures(benchmark, root=root):
        if f.benchmark == benchmark and (f.model not in found or found[f.model].reason == BLOCKED):
            found[f.model] = f
    return found


def with_results(keys: Iterable[str], benchmark: str, root: Path = Path(".")) -> list[str]:
    """``keys`` (models that take ``benchmark``, in params order) less those missing on it."""
    gone = missing(benchmark, root)
    return [k for k in keys if k not in gone]


def summary(failed: Sequence[FailedJob]) -> list[str]:
    """The lines ``make repro`` and the ``failures`` stage end with: what failed and how to retry."""
    if not failed:
        return []
    lines = [f"{len(failed)} job(s) failed; every other job's results are written "
             f"(their errors: {FAILURES_DIR}/<stage>.json):"]
    lines += [clip(f"  {f.line()}") for f in failed]
    capped = any(f.reason == SPENDING_CAP for f in failed)
    lines.append("retry: `make repro` (or `dvc repro`) runs only the failed jobs and reuses every other one")
    if capped:
        lines.append("raise requests.max_cost_usd first for the spending cap")
    return lines
