"""Every job of a stage in flight at once: one model on one split, or one judge of a panel (issue 19).

A coarse stage (``predict`` over every model and split, ``judge`` over every panel judge) lists
its jobs and hands them to :func:`run_jobs`. Each job runs in a thread of its own: a backend
runs its own event loop per request run (``HttpBackend._run``), and a batch job spends its
time asleep between polls, so threads cost nothing and every batch is submitted before any
is waited for. The wall time of the stage is then about that of its slowest job (one batch
latency) instead of the sum of them all.

What makes that safe is elsewhere and said there: the collector's freeze is counted
(:mod:`sideways.core.collector`); request runs journal into files of their own and records are
written under per-thread names (:mod:`sideways.llm.journal`, :mod:`sideways.llm.cache`); the
batch ledger opens one sqlite connection per operation (:mod:`sideways.backends.batch_ledger`);
keys are read from the run context, never written. Online endpoints keep their own
concurrency: inside :func:`run_jobs` the requests of every job to one ``base_url`` share one
gate (:func:`sideways.llm.ratelimit.shared_gates`), sized by the smallest ``concurrency`` the
models on it declare.

While they wait, each provider shows one progress bar for all its jobs
(:class:`sideways.core.progress.Group`), and ``sideways status`` reads what each job has in
flight. A job may itself call :func:`run_jobs` (a judge job over its panel's judges): the inner
jobs join the outer fan-out's bars and endpoint gates, and are in flight with everything else.
A failed job fails alone: the others run to their end, their answers are cached, and
:class:`JobsFailed` names every failure once they have all ended.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from sideways.core import progress
from sideways.core.errors import SidewaysError
from sideways.llm.ratelimit import shared_gates

T = TypeVar("T")


@dataclass(frozen=True)
class Job(Generic[T]):  # noqa: UP046 - the API issue 19 shares
    """One unit of a coarse stage: what to call, named for messages and grouped by provider."""

    name: str  # "predict@atlas-large+llm": what messages name
    provider: str  # groups progress and status: the spec's provider/backend
    run: Callable[[], T]
    # computed here, not asked of anyone (sim, replay): at most LOCAL_AT_ONCE such jobs work at a
    # time. Running all of them at once gains nothing under the GIL and holds every job's working
    # set together: 200 simulated models on a 14,042-question exam held 5 GB in predict.
    # Only a job that runs no jobs of its own may be local (a waiting outer job would hold a slot).
    local: bool = False


class JobsFailed(SidewaysError):
    """Some jobs failed; every job ran to its end first. ``failures`` maps job name to error."""

    def __init__(self, failures: dict[str, BaseException], total: int | None = None) -> None:
        self.failures = dict(failures)
        self.total = total
        super().__init__(failure_summary(self.failures, total))

    def __str__(self) -> str:
        """One line per failed job (each job's own error is one line): not escaped into one."""
        return Exception.__str__(self)


def failure_summary(failures: dict[str, BaseException], total: int | None = None) -> str:
    """The message of :class:`JobsFailed`: how many failed, then one line per failed job."""
    of = f" of {total}" if total is not None else ""
    lines = [f"{len(failures)}{of} job(s) failed; every other job ran to its end and its answers are cached, "
             "so a rerun sends only what failed:"]
    for name, exc in failures.items():
        kind = "" if isinstance(exc, SidewaysError) else f" ({type(exc).__name__})"
        lines.append(f"  {name}: {str(exc) or type(exc).__name__}{kind}")
    return "\n".join(lines)


def run_jobs(jobs: Sequence[Job[T]]) -> list[T]:  # noqa: UP047 - the API issue 19 shares
    """Run every job; results in the order given. When any failed, raise JobsFailed after all
    have ended (the others' answers are in the request cache, so a rerun pays only the failed)."""
    outcomes = settle_jobs(jobs)
    failures = {job.name: value for job, value in zip(jobs, outcomes, strict=True) if isinstance(value, Failed)}
    if failures:
        raise JobsFailed({name: f.error for name, f in failures.items()}, total=len(jobs))
    return [cast(T, value) for value in outcomes]


@dataclass(frozen=True)
class Failed:
    """How a job of :func:`settle_jobs` ended when it raised."""

    error: BaseException


def settle_jobs(jobs: Sequence[Job[T]]) -> list[T | Failed]:  # noqa: UP047 - the API issue 19 shares
    """Run every job; each one's result, or :class:`Failed` with its error, in the order given."""
    names = [job.name for job in jobs]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"run_jobs: job names must be unique; given more than once: {', '.join(twice)}")
    if not jobs:
        return []
    outcomes: list[tuple[bool, object]] = [(False, None)] * len(jobs)
    groups, made = _groups(jobs)
    token = _active.set(groups)
    with shared_gates():
        threads = [_start(i, job, groups[job.provider], outcomes) for i, job in enumerate(jobs)]
        try:
            for thread in threads:
                while thread.is_alive():  # a timeout keeps the main thread responsive to Ctrl-C
                    thread.join(0.5)
        finally:
            _active.reset(token)
            for group in made:
                group.close()
    return [cast(T, value) if ok else Failed(cast(BaseException, value)) for ok, value in outcomes]


#: How many local jobs (:attr:`Job.local`) work at once, in every fan-out of the process.
LOCAL_AT_ONCE = 2
_local_slots = threading.BoundedSemaphore(LOCAL_AT_ONCE)


# The provider bars of the outermost run_jobs: a run_jobs inside a job (a judge job fanning out
# its panel's judges) adds its jobs to them instead of drawing bars of its own.
_active: contextvars.ContextVar[dict[str, progress.Group] | None] = contextvars.ContextVar("sideways_groups",
                                                                                           default=None)


def _groups(jobs: Sequence[Job[Any]]) -> tuple[dict[str, progress.Group], list[progress.Group]]:
    """The bar of each provider of ``jobs`` (the enclosing fan-out's when there is one), and those made here."""
    groups = dict(_active.get() or {})
    made = []
    for provider in dict.fromkeys(j.provider for j in jobs):
        count = sum(j.provider == provider for j in jobs)
        if provider in groups:
            groups[provider].add_jobs(count)
        else:
            groups[provider] = progress.Group(provider, count)
            made.append(groups[provider])
    return groups, made


def _start(index: int, job: Job[Any], group: progress.Group, outcomes: list[tuple[bool, object]]) -> threading.Thread:
    """A daemon thread running ``job`` in a copy of the caller's context (its gates) and the job's scope.

    Daemon: a run interrupted in the main thread ends with its process, as a stage killed by DVC
    does; the journals keep every answer that had arrived.
    """
    context = contextvars.copy_context()
    scope = progress.JobScope(job.name, job.provider, group)

    def target() -> None:
        try:
            with progress.job_scope(scope), _local_slots if job.local else contextlib.nullcontext():
                outcomes[index] = (True, job.run())
        except BaseException as exc:  # noqa: BLE001 -- reported with the others once all have ended
            outcomes[index] = (False, exc)
        finally:
            group.job_ended()

    thread = threading.Thread(target=context.run, args=(target,), name=f"sideways-job-{job.name}", daemon=True)
    thread.start()
    return thread
