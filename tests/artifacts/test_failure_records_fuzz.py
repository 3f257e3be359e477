"""Failure records and retry markers are read back from files anyone can edit (a merge, a hand
edit, a NaN another version wrote): any content reads as a record or fails in one line naming the
file, never a traceback; and a record written is always JSON (no NaN)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sideways.artifacts.failures import (
    FailedJob,
    failures_path,
    read_failures,
    read_marker,
    retry_marker,
    write_failures,
)
from sideways.core.errors import SchemaError

FIELDS = ["job", "kind", "model", "benchmark", "provider", "reason", "status", "error", "stage", "failed",
          "attempt", "state", "spent_usd"]
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True), st.text(max_size=6)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(FIELDS), inner, max_size=8)),
    max_leaves=12)
FUZZ = settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)


@FUZZ
@given(JSON)
def test_any_failure_record_reads_as_jobs_or_one_line(tmp_path, data):
    path = tmp_path / failures_path("predict")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))  # NaN and Infinity included, as Python writes them
    try:
        jobs = read_failures(("predict",), tmp_path)
    except SchemaError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)
    else:
        assert all(isinstance(j.job, str) and (j.status is None or isinstance(j.status, int)) for j in jobs)
        assert all(j.line() for j in jobs)


@FUZZ
@given(JSON)
def test_any_retry_marker_reads_as_a_marker_or_one_line_and_a_new_attempt_follows_it(tmp_path, data):
    path = tmp_path / retry_marker("predict")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    try:
        marker = read_marker("predict", tmp_path)
    except SchemaError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)
        return
    job = FailedJob("predict@m+llm", "predict", "m", "llm", "p", "provider error", None, "boom")
    write_failures("predict", [job], tmp_path)
    assert read_marker("predict", tmp_path)["attempt"] == int(marker.get("attempt", 0)) + 1


@pytest.mark.parametrize("spent", [float("nan"), float("inf"), 0.25])
def test_a_failure_record_is_always_json(tmp_path, spent):
    write_failures("predict", [], tmp_path, spent)
    record = json.loads((tmp_path / failures_path("predict")).read_text(),
                        parse_constant=lambda c: pytest.fail(f"{c} in a failure record"))
    assert record.get("spent_usd") is None or math.isfinite(record["spent_usd"])
