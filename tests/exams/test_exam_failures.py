"""An exam job whose provider fails is stopped with the same summary as a riddle job (issue 28):
the failure share check names the failed items by the id column the table has, not ``riddle_id``."""

from __future__ import annotations

import pandas as pd
import pytest
import respx

from helpers.exams import items, mcq, short
from helpers.fake_batch_apis import FakeOpenAIBatches
from helpers.request_layer import context
from sideways.artifacts import paths
from sideways.artifacts.io import write_table
from sideways.artifacts.schema import EXAM_ITEMS
from sideways.config.options import BatchOptions
from sideways.config.params import ModelSpec, parse_params
from sideways.core.errors import RequestError
from sideways.jobs.exams import exam_predict_job
from sideways.jobs.fanout import JobsFailed, run_jobs
from sideways.llm.cache import RequestCache
from sideways.llm.failures import check_failure_share

FAST = {"batch_window_s": 0.05, "batch_poll_s": 0.01, "backoff_s": 0.01, "max_backoff_s": 0.02, "max_attempts": 2}
QUESTIONS = [mcq("m0", "Q0?"), mcq("m1", "Q1?", answer="C"), short("s0", "Why?")]


def test_an_unreachable_batch_provider_fails_an_exam_job_with_the_summary(tmp_path, monkeypatch, default_params):
    monkeypatch.chdir(tmp_path)
    write_table(items(QUESTIONS), EXAM_ITEMS, paths.exam_items("demo"))
    model = ModelSpec("b1", "batch", "openai", "gpt-test", 0, BatchOptions())
    ctx = context(tmp_path, env={"OPENAI_API_KEY": "sk-openai-fake-1"}, **FAST)
    params = parse_params(default_params)
    job = exam_predict_job(params, params.exams["demo"], model, ctx, RequestCache(tmp_path / "cache"), "code")
    with respx.mock(assert_all_called=False) as mock:
        FakeOpenAIBatches(poll_errors=1000).install(mock)
        with pytest.raises(JobsFailed) as failed:
            run_jobs([job.job])
    message = str(failed.value)
    assert "KeyError" not in message
    assert "exam_predict@b1+demo: 3 of 3 items failed" in message and "by status {'api_error': 3}" in message
    assert "first failures: m0: api_error: " in message and "| m1: api_error: " in message


@pytest.mark.parametrize("id_column", ["riddle_id", "item_id"])
def test_the_summary_names_the_items_by_their_own_id_column(id_column):
    df = pd.DataFrame({id_column: ["x1", "x2"], "status": ["parse_error", "ok"], "error": ["no letter", None]})
    with pytest.raises(RequestError, match=r"^job: 1 of 2 items failed .*first failures: x1: parse_error: no letter"):
        check_failure_share(df, 0.1, "job")


def test_a_table_without_an_id_column_is_a_programming_error_named():
    df = pd.DataFrame({"status": ["api_error"], "error": ["down"]})
    with pytest.raises(ValueError, match=r"job: the failure summary needs an id column \(riddle_id or item_id\)"):
        check_failure_share(df, 0.1, "job")
