"""run_jobs: results in order; every job runs even when one fails, then the failures together."""

from __future__ import annotations

import threading
import time

import pytest

from sideways.core.errors import SidewaysError
from sideways.jobs.fanout import LOCAL_AT_ONCE, Job, JobsFailed, run_jobs


def test_results_come_in_the_order_given():
    jobs = [Job(f"predict@m{i}-llm", "sim", lambda i=i: i * i) for i in range(5)]
    assert run_jobs(jobs) == [0, 1, 4, 9, 16]
    assert run_jobs([]) == []


def test_a_failed_job_does_not_stop_the_others_and_all_failures_are_named():
    ran: list[str] = []

    def job(name: str, fail: bool) -> Job[str]:
        def run() -> str:
            ran.append(name)
            if fail:
                raise RuntimeError(f"{name} broke")
            return name
        return Job(name, "openai", run)

    with pytest.raises(JobsFailed) as caught:
        run_jobs([job("a", True), job("b", False), job("c", True)])
    assert sorted(ran) == ["a", "b", "c"]  # concurrent: every job ran, in any order
    assert set(caught.value.failures) == {"a", "c"}
    assert isinstance(caught.value, SidewaysError)
    assert "a: a broke" in str(caught.value) and "c: c broke" in str(caught.value)


def test_local_jobs_work_two_at_a_time_while_the_others_are_all_in_flight():
    lock, now, most = threading.Lock(), {"local": 0, "remote": 0}, {"local": 0, "remote": 0}

    def work(kind: str) -> str:
        with lock:
            now[kind] += 1
            most[kind] = max(most[kind], now[kind])
        time.sleep(0.05)
        with lock:
            now[kind] -= 1
        return kind

    jobs = [Job(f"local-{i}", "sim", lambda: work("local"), local=True) for i in range(8)]
    jobs += [Job(f"remote-{i}", "openai", lambda: work("remote")) for i in range(8)]
    assert run_jobs(jobs) == ["local"] * 8 + ["remote"] * 8
    assert most == {"local": LOCAL_AT_ONCE, "remote": 8}
