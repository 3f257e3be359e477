"""The jobs of a coarse stage (one model on one split each), run through one function.

``predict``, ``judge``, ``exam_predict`` and ``exam_judge`` are one DVC stage each over every
model (docs/design.md, "Coarse stages"); their jobs go through :func:`run_jobs`, so that how
they run (one after another here) is decided in one place. Every job runs to its end even when
another failed: what the others paid is in the request cache, and a rerun pays only the failed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from sideways.core.errors import SidewaysError

T = TypeVar("T")


@dataclass(frozen=True)
class Job(Generic[T]):  # noqa: UP046 - the API issue 19 shares
    """One unit of a coarse stage's work."""

    name: str  # "predict@atlas-large-llm": what messages name
    provider: str  # groups progress and status: the spec's provider/backend
    run: Callable[[], T]


class JobsFailed(SidewaysError):
    """Some jobs failed; every job ran to its end first. ``failures`` maps job name to error."""

    def __init__(self, failures: dict[str, BaseException]) -> None:
        self.failures = dict(failures)
        lines = [f"{name}: {error}" for name, error in self.failures.items()]
        super().__init__(f"{len(self.failures)} job(s) failed:\n  " + "\n  ".join(lines))


def run_jobs(jobs: Sequence[Job[T]]) -> list[T]:  # noqa: UP047 - the API issue 19 shares
    """Run every job; results in the order given. When any failed, raise JobsFailed after all
    have ended (the others' answers are in the request cache, so a rerun pays only the failed)."""
    results: list[T] = []
    failures: dict[str, BaseException] = {}
    for job in jobs:
        try:
            results.append(job.run())
        except Exception as exc:  # noqa: BLE001 - every job runs; the failures are reported together
            failures[job.name] = exc
    if failures:
        raise JobsFailed(failures)
    return results
