"""A coarse stage's jobs: reused when their inputs did not change; a failed job fails alone.

``predict`` and ``judge`` are one DVC stage each over every model, the exam's jobs included
(docs/design.md, "Coarse stages" and "Every batch in flight"). DVC reruns such a stage whenever any model changes, and
deletes its output folders first. Each job (one model on one split) therefore looks for its
previous files (in the workspace, else in DVC's cache through ``dvc.lock``): when its previous
table carries the same inputs fingerprint, the three files are reused byte for byte; otherwise
the job runs, after restoring the answers its previous results carried (nothing is paid twice).
Once every job has ended, the files of those that succeeded are written; a job that failed on
its input or its provider (a :class:`~sideways.core.errors.SidewaysError`: a provider down, too
many failed items, the spending cap) is named in the stage's failure record instead
(:mod:`sideways.artifacts.failures`), and the next run retries it alone (docs/design.md, "Failed
jobs"). Any other exception is a bug: the stage fails and writes nothing.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sideways.artifacts.failures import (
    BLOCKED,
    PROVIDER_ERROR,
    SPENDING_CAP,
    FailedJob,
    failures_path,
    first_line,
    http_status,
    write_failures,
)
from sideways.artifacts.io import atomic_write_bytes, json_bytes, table_bytes, table_inputs
from sideways.artifacts.previous import previous_bytes, previous_output
from sideways.config.backends import backend_entry
from sideways.core.errors import SidewaysError
from sideways.core.width import WIDTH, wrap
from sideways.jobs.fanout import Failed, Job, JobsFailed, settle_jobs
from sideways.llm import budget
from sideways.llm.answers import answers_bytes, restore_previous, used
from sideways.llm.budget import SpendingCapReached, owned_by
from sideways.llm.cache import RequestCache

if TYPE_CHECKING:
    import pandas as pd

    from sideways.artifacts.schema import TableSchema
    from sideways.config.params import JudgeSpec, ModelSpec


NAMED = 20  # the stage's summary names the jobs that ran when there are no more than this
ERROR_LINES = 3  # a failed job's error in the summary: its first line, over at most this many lines


def computed_here(backend: str) -> bool:
    """Whether ``backend``'s answers are computed in this process, asking nobody (simulated,
    replayed or imported, by the backend table): its jobs are local (Job.local)."""
    entry = backend_entry(backend)
    return entry.simulated or entry.replays or entry.imported


@dataclass(frozen=True)
class JobFiles:
    """The three files of one job: its table, the answers behind it, and what it cost; and
    ``design``, a fourth some jobs keep (a sampled exam's frozen design: :mod:`sideways.exams.frozen`)."""

    table: Path
    answers: Path
    cost: Path
    design: Path | None = None


@dataclass(frozen=True)
class Result:
    """The bytes of a job's three files, and whether they are its previous ones, reused."""

    files: JobFiles
    table: bytes
    answers: bytes
    cost: bytes
    reused: bool
    design: bytes | None = None


@dataclass(frozen=True)
class Work:
    """What a job that ran made: its table, its cost, the request keys behind its rows, and those
    of them answered through the request cache (each must have a record: :func:`answered_keys`)."""

    table: pd.DataFrame
    schema: TableSchema
    cost: dict[str, Any]
    keys: Iterable[object]
    answered: Iterable[object] = ()
    design: bytes | None = None  # the bytes of JobFiles.design, when the job keeps one


def senders(specs: Iterable[ModelSpec | JudgeSpec]) -> set[str]:
    """The keys of ``specs`` whose backend sends requests through the request layer."""
    return {s.key for s in specs if s.capabilities.sends_requests}


def answered_keys(table: pd.DataFrame, column: str, senders: Collection[str]) -> list[object]:
    """The ``request_hash`` of every ok row whose ``column`` (``model`` or ``judge``) is one of
    ``senders``, the specs whose backend sends requests (its answers are cache records)."""
    rows = table[(table["status"] == "ok") & table[column].isin(list(senders))]
    return list(rows["request_hash"])


def previous_result(stage: str, files: JobFiles, inputs: str) -> Result | None:
    """The job's previous files when its table was made from the same inputs, else None."""
    table = previous_output(stage, files.table)
    if table is None or table_inputs(table) != inputs:
        return None
    answers, cost = previous_bytes(stage, files.answers), previous_bytes(stage, files.cost)
    design = None if files.design is None else previous_bytes(stage, files.design)
    if answers is None or cost is None or (files.design is not None and design is None):
        return None
    return Result(files, table.read_bytes(), answers, cost, reused=True, design=design)


@dataclass(frozen=True)
class JobId:
    """What a job is for: its kind (predict, judge, exam_predict, exam_judge), model and benchmark."""

    kind: str
    model: str
    benchmark: str


@dataclass(frozen=True)
class PaidJob:
    """A job of a coarse stage: ``previous`` gives its reused files (or None), ``job`` runs it."""

    previous: Callable[[], Result | None]
    job: Job[Result]
    id: JobId | None = None


class Blocked(SidewaysError):
    """The job could not run: a job it needs failed (a judge job whose predict job failed)."""


def blocked_job(name: str, provider: str, id: JobId, why: str) -> PaidJob:
    """A job that fails at once with ``why``, as a failed job of the stage (reason ``blocked``)."""

    def run() -> Result:
        raise Blocked(why)

    return PaidJob(lambda: None, Job(name, provider, run), id)


def paid_job(stage: str, name: str, provider: str, files: JobFiles, inputs: str, cache: RequestCache,
             work: Callable[[], Work], id: JobId | None = None, local: bool = False) -> PaidJob:
    """The job ``name`` of ``stage``: its previous files if ``inputs`` match, else ``work`` run
    after restoring the answers its previous results carried (``local``: :attr:`Job.local`)."""

    def run() -> Result:
        restored = restore_previous(stage, files.answers, cache)
        if restored:
            print(f"{name}: {restored} answers restored from the previous results", file=sys.stderr)
        with owned_by(id.model) if id is not None else contextlib.nullcontext():  # the per-model cap
            made = work()
        return Result(files, table_bytes(made.table, made.schema, str(files.table), inputs),
                      answers_bytes(used(made.keys, cache, made.answered)), json_bytes(made.cost), reused=False,
                      design=made.design if files.design is not None else None)

    return PaidJob(lambda: previous_result(stage, files, inputs), Job(name, provider, run, local), id)


def run_stage(stage: str, jobs: Sequence[PaidJob], folders: Sequence[Path], root: Path | None = None) -> list[Result]:
    """Run the ``jobs`` that cannot reuse their previous files, then write the files of every job
    that succeeded (atomically) and, under ``root`` (the project; None: not), the stage's failure
    record and retry marker (:func:`sideways.artifacts.failures.write_failures`), remove any other file under
    ``folders`` (the stage owns them: a removed model's files go, and a failed job's), and say how
    many jobs were reused, which ran and which failed.

    Reuse is decided here, before any thread starts: adding one model to 48 ran 147 threads that
    only copied files back. Reused bytes come from DVC's cache, already durable, so they are
    renamed into place without an fsync; new ones are fsync'd.
    """
    previous = [j.previous() for j in jobs]
    to_run: list[Job[Result]] = [j.job for j, p in zip(jobs, previous, strict=True) if p is None]
    settled: list[Result | Failed] = settle_jobs(to_run)
    fresh = iter(settled)
    outcomes = [p if p is not None else next(fresh) for p in previous]
    bugs = {j.job.name: o.error for j, o in zip(jobs, outcomes, strict=True)
            if isinstance(o, Failed) and not isinstance(root_error(o.error), SidewaysError)}
    if bugs:
        raise JobsFailed(bugs, total=len(jobs))
    results = [o for o in outcomes if isinstance(o, Result)]
    errors = [(j, root_error(o.error)) for j, o in zip(jobs, outcomes, strict=True) if isinstance(o, Failed)]
    failed = [failed_job(j, e) for j, e in errors]
    keep = set()
    for r in results:
        written = [(r.files.table, r.table), (r.files.answers, r.answers), (r.files.cost, r.cost)]
        if r.files.design is not None and r.design is not None:
            written.append((r.files.design, r.design))
        for path, data in written:
            atomic_write_bytes(path, data, sync=not r.reused)
            keep.add(path.resolve())
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)  # a DVC output even when no job writes in it (exams: {})
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.resolve() not in keep:
                path.unlink()
    if root is not None:
        run_budget = budget.current()
        spent = None if run_budget is None else run_budget.spent_here()
        write_failures(stage, failed, root, spent, benchmarks=[j.id.benchmark for j in jobs if j.id is not None])
        budget.finish()  # the ledger: this run's attempts become one line per model
    ran = [j.job.name for j, o in zip(jobs, outcomes, strict=True) if isinstance(o, Result) and not o.reused]
    lost = [(j.job.name, j.job.provider, e) for j, e in errors]
    for line in summary_lines(stage, len(results) - len(ran), ran, lost):
        print(line, file=sys.stderr)
    return results


def summary_lines(stage: str, reused: int, ran: Sequence[str], failed: Sequence[tuple[str, str, BaseException]]
                  ) -> list[str]:
    """What a coarse stage says when it ends, no line over 120 columns: how many jobs were reused,
    which ran (named, over several lines, up to :data:`NAMED` of them), which failed, each with the
    first line of its error over at most :data:`ERROR_LINES` lines, and where the failures are kept."""
    head = f"{stage}: {reused} jobs reused, {len(ran)} ran"
    if failed:
        head += f", {len(failed)} failed"
    lines = wrap(head + ": ", ran) if 0 < len(ran) <= NAMED else [head]
    for name, provider, error in failed:
        text = (str(root_error(error)).strip().splitlines() or [""])[0].removeprefix(f"{name}: ")  # named once
        lines += textwrap.wrap(f"failed: {name} ({provider}): {text}", WIDTH, subsequent_indent="  ",
                               max_lines=ERROR_LINES, placeholder=" ...")
    if failed:
        lines.append(f"{stage}: the failed jobs and their errors are in {failures_path(stage)} "
                     "(`sideways status --failed`)")
    return lines


def root_error(error: BaseException) -> BaseException:
    """The error behind a job's: a judge job fans out its panel's judges, and fails with theirs."""
    while isinstance(error, JobsFailed) and error.failures:
        inner = list(error.failures.values())
        error = next((e for e in inner if isinstance(root_error(e), SpendingCapReached)), inner[0])
    return error


def failed_job(job: PaidJob, error: BaseException) -> FailedJob:
    """The failure record's entry for ``job``, which raised ``error``."""
    error = root_error(error)
    text = str(error) or type(error).__name__
    reason = SPENDING_CAP if isinstance(error, SpendingCapReached) else BLOCKED if isinstance(error, Blocked) \
        else PROVIDER_ERROR
    id = job.id or JobId("", "", "")
    return FailedJob(job.job.name, id.kind, id.model, id.benchmark, job.job.provider, reason, http_status(text),
                     first_line(text))
