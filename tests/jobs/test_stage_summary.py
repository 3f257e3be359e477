"""A coarse stage's summary fits 120 columns: the jobs that ran are named over indented lines, a failed
job's long error is cut to one line, and the last line says where the failures are kept."""

from __future__ import annotations

from helpers.harness import jobs_ran
from sideways.artifacts.failures import FailedJob, summary
from sideways.core.errors import RequestError
from sideways.jobs.coarse import JobFiles, PaidJob, Result, run_stage
from sideways.jobs.fanout import Job


def _job(tmp_path, name: str, fail: str | None = None) -> PaidJob:
    files = JobFiles(tmp_path / f"{name}.parquet", tmp_path / f"{name}.jsonl", tmp_path / f"{name}.json")

    def run() -> Result:
        if fail is not None:
            raise RequestError(fail)
        return Result(files, b"table", b"", b"{}", reused=False)

    return PaidJob(lambda: None, Job(name, "sim", run))


def test_eighteen_jobs_and_an_814_character_error_print_no_line_over_120_columns(tmp_path, capsys):
    names = [f"predict@model-with-a-long-name-{i:02d}+llm" for i in range(18)]
    error = "36 of 36 items failed, the first: R000: api_error: " + "HTTP 503: service unavailable; " * 25
    run_stage("predict", [_job(tmp_path, n) for n in names] + [_job(tmp_path, "predict@bad-m+llm", error)],
              [], root=None)
    err = capsys.readouterr().err
    assert all(len(line) <= 120 for line in err.splitlines()), err
    assert err.startswith("predict: 0 jobs reused, 18 ran, 1 failed: ")
    assert jobs_ran(type("P", (), {"stdout": "", "stderr": err})()) == set(names)
    failed = [line for line in err.splitlines() if line.startswith("failed: predict@bad-m+llm (sim): 36 of 36")]
    assert len(failed) == 1 and failed[0].endswith("...")
    assert err.splitlines()[-1] == ("predict: the failed jobs and their errors are in metrics/failures/predict.json "
                                    "(`sideways status --failed`)")


def test_the_failed_jobs_summary_fits_120_columns():
    long = FailedJob("predict@m+llm", "predict", "m", "llm", "badco", "provider error", 503, "x" * 300)
    lines = summary([long])
    assert all(len(line) <= 120 for line in lines) and lines[1].startswith("  predict@m+llm: provider badco, HTTP 503")


def test_sideways_shows_a_missing_model_in_one_line_within_120_columns(tmp_path, monkeypatch):
    from sideways.artifacts.failures import write_failures
    from sideways.commands.show import missing_lines

    long = FailedJob("predict@m+llm", "predict", "m", "llm", "badco", "provider error", 503, "y" * 300)
    write_failures("predict", [long], tmp_path, benchmarks=["llm", "demo"])
    monkeypatch.chdir(tmp_path)
    lines = missing_lines("llm").splitlines()
    assert len(lines) == 1 and len(lines[0]) <= 120 and lines[0].startswith("  m: missing, predict@m+llm: provider badco")
    assert missing_lines("demo") == ""  # the exam's own file: nothing failed there
