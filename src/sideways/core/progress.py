"""Progress bars for long work (predict, judge, scrape): shown on a terminal, silent otherwise.

When several jobs run at once (:func:`sideways.jobs.fanout.run_jobs`), each provider gets
one bar for all its jobs: a job's thread runs inside :func:`job_scope`, and the request runs it
makes ask :func:`counter` for their progress, which is then that provider's :class:`Group`.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn, Protocol, overload

if TYPE_CHECKING:  # tqdm costs ~65 ms to import: only a stage that shows a bar pays it
    from tqdm import tqdm


def enabled() -> bool:
    """True when stderr is a terminal and SIDEWAYS_PROGRESS is not ``0`` (``1`` forces it on)."""
    flag = os.environ.get("SIDEWAYS_PROGRESS")
    if flag is not None:
        return flag not in ("0", "", "false")
    return sys.stderr.isatty()


@overload
def bar[T](iterable: Iterable[T], *, total: int | None = None, desc: str = "") -> tqdm[T]: ...


@overload
def bar(iterable: None = None, *, total: int | None = None, desc: str = "") -> tqdm[NoReturn]: ...


def bar[T](
    iterable: Iterable[T] | None = None, *, total: int | None = None, desc: str = ""
) -> tqdm[T] | tqdm[NoReturn]:
    """A tqdm bar over ``iterable`` (or a manual one with ``total``), disabled off a terminal."""
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, disable=not enabled(), leave=False, dynamic_ncols=True)


class Counter(Protocol):
    """What a request run advances: a bar of its own, or its share of a provider's bar."""

    def update(self, n: float | None = 1) -> bool | None: ...

    def close(self) -> None: ...


class Group:
    """One bar for several concurrent runs (the jobs of one provider in :func:`run_jobs`).

    Each run adds its total when it starts and advances the shared count; the bar says how
    many of the group's runs are over. Thread-safe: each job runs in a thread of its own.
    """

    def __init__(self, desc: str, jobs: int) -> None:
        self.desc, self.jobs, self.ended = desc, jobs, 0
        self._lock = threading.Lock()
        self._bar: tqdm[NoReturn] | None = None  # made by the first run that sends something

    def part(self, total: int) -> _Part:
        with self._lock:
            if self._bar is None:
                self._bar = bar(total=0, desc=self.desc)
                self._postfix()
            self._bar.total = (self._bar.total or 0) + total
            self._bar.refresh()
        return _Part(self)

    def advance(self, n: float) -> None:
        with self._lock:
            if self._bar is not None:
                self._bar.update(n)

    def add_jobs(self, n: int) -> None:
        """``n`` more jobs share this bar (a fan-out inside one of its jobs)."""
        with self._lock:
            self.jobs += n
            self._postfix()

    def job_ended(self) -> None:
        with self._lock:
            self.ended += 1
            self._postfix()

    def _postfix(self) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(f"jobs {self.ended}/{self.jobs} done", refresh=True)

    def close(self) -> None:
        with self._lock:
            if self._bar is not None:
                self._bar.close()


class _Part:
    """A run's share of a :class:`Group` (closing it leaves the group's bar up)."""

    def __init__(self, group: Group) -> None:
        self._group = group

    def update(self, n: float | None = 1) -> bool | None:
        if n:
            self._group.advance(n)
        return None

    def close(self) -> None:
        """Nothing to close: the group's bar stays until every job of the group has ended."""


@dataclass(frozen=True)
class JobScope:
    """The job the current thread works for: its name, provider and progress group."""

    name: str
    provider: str
    group: Group | None = None


_job: ContextVar[JobScope | None] = ContextVar("sideways_job", default=None)


def current_job() -> JobScope | None:
    """The :class:`JobScope` set by :func:`job_scope` in this thread (None outside run_jobs)."""
    return _job.get()


@contextlib.contextmanager
def job_scope(scope: JobScope) -> Iterator[None]:
    """Work done inside (request runs, their event loops' tasks) counts for ``scope``."""
    token = _job.set(scope)
    try:
        yield
    finally:
        _job.reset(token)


def counter(total: int, desc: str = "") -> Counter:
    """A request run's progress: its share of the job's provider bar inside :func:`job_scope`,
    a bar of its own otherwise."""
    scope = _job.get()
    if scope is not None and scope.group is not None:
        return scope.group.part(total)
    return bar(total=total, desc=desc)
