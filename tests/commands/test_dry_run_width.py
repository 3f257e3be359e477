"""``sideways dry-run --by-model`` fits 120 columns and shows the paid rows, not the zero-cost ones."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sideways.commands.dry_run import format_report
from sideways.planning.estimate import Estimate


def _row(stage: str, key: str, backend: str, requests: int, exact: bool = True, split: str = "llm") -> Estimate:
    cost = 0.0 if not requests else 12.3456
    return Estimate(stage, split, key, "prov", backend, requests, 0, 0, requests, 0, 123_456 * requests,
                    500 * requests, cost, exact)


def test_two_paid_rows_among_75_simulated_ones():
    sim = [_row("predict", f"sim-model-{i}", "sim", 0) for i in range(75)]
    paid = [_row("predict", "local-m", "openai-compatible", 36),
            _row("judge", "judge-anthropic", "openai-compatible", 36, exact=False)]
    lines = format_report(sim + paid, by_model=True).splitlines()
    assert max(len(line) for line in lines) <= 120, max(lines, key=len)
    table = lines[: lines.index("")]
    assert [line.split()[2] for line in table[1:3]] == ["local-m", "judge-anthropic"]
    assert "75 rows of models and judges with no request to send (zero cost; by backend: sim 75) not listed" in lines
    assert not [line for line in lines if "sim-model-" in line]


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,99}", fullmatch=True), min_size=1, max_size=5),
       split=st.from_regex(r"[a-z][a-z0-9_-]{0,39}", fullmatch=True), exact=st.booleans())
def test_no_line_over_120_columns_whatever_the_keys(keys, split, exact):
    rows = [_row("exam_predict", k, "openai-compatible", 14_042, exact, split) for k in keys]
    assert max(len(line) for line in format_report(rows, by_model=True).splitlines()) <= 120
