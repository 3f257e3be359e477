"""The judges' rates against real labels (lab.judge_rates, benchmarks/studies/judge_rates.py): by riddle set
and by model graded, and the test's reach at a file's counts."""

from __future__ import annotations

import json

import judge_rates
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import PPI_LLM_FILE
from lab.judge_rates import heterogeneity, labelled_verdicts, pooled, simulated_ratios, spreads
from sideways.core.errors import SchemaError


def test_groups_that_share_a_rate_show_no_spread_and_groups_far_apart_do():
    same = heterogeneity([30, 30, 30], [100, 100, 100])
    assert same.x2 == pytest.approx(0.0) and same.df == 2 and same.tau == 0.0
    apart = heterogeneity([10, 90], [100, 100])
    assert apart.x2 > 100 and apart.tau > 2  # logits -2.2 and +2.2: an sd of about 3.1
    assert heterogeneity([5], [10]).df == 0 and heterogeneity([0, 5], [0, 10]).df == 0
    assert heterogeneity([10, 20], [10, 20]).df == 0  # every verdict "right": nothing to compare


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), min_size=0, max_size=6))
def test_the_spread_is_never_negative_and_ignores_the_groups_order(pairs):
    yes = [min(a, b) for a, b in pairs]
    n = [max(a, b) for a, b in pairs]
    s = heterogeneity(yes, n)
    r = heterogeneity(yes[::-1], n[::-1])
    informative = 0 < sum(yes) < sum(n)
    assert s.x2 >= 0 and s.tau >= 0 and s.df == (max(0, sum(b > 0 for b in n) - 1) if informative else 0)
    assert (s.x2, s.df) == pytest.approx((r.x2, r.df)) and s.tau == pytest.approx(r.tau, abs=1e-9)


def _judgments(rows):
    return pd.DataFrame(rows, columns=["riddle_id", "model", "judge", "status", "is_answer_correct",
                                       "is_justification_correct"]).assign(judge_provider=lambda d: "p-" + d["judge"])


def test_each_field_of_each_ok_verdict_on_a_labelled_row_is_read_once():
    judgments = _judgments([
        ("r1", "m1", "j1", "ok", True, False),
        ("r1", "m1", "j2", "ok", None, True),     # no answer verdict: its justification only
        ("r1", "m1", "j3", "error", True, True),  # not ok: left out
        ("r2", "m1", "j1", "ok", True, True),     # no label: left out
    ])
    labels = pd.DataFrame({"riddle_id": ["r1"], "model": ["m1"], "human_answer_correct": [True],
                           "human_justification_correct": [False]})
    v = labelled_verdicts(judgments, labels)
    got = sorted(zip(v["judge"], v["field"], v["said"], v["truth"], strict=True))
    assert list(v["judge_provider"]) == ["p-" + j for j in v["judge"]]
    assert got == [("j1", "answer", True, True), ("j1", "justification", False, False),
                   ("j2", "justification", True, False)]


def _verdicts(rate_by_model: dict[str, float], n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"judge": "j", "field": "answer", "truth": True, "model": m, "riddle_id": f"r{i}",
                          "said": bool(rng.random() < p)} for m, p in rate_by_model.items() for i in range(n)])


def test_a_judge_that_favours_one_model_is_found_and_one_that_does_not_is_not():
    fair = spreads(_verdicts({"a": 0.7, "b": 0.7, "c": 0.7}, 400, 0), "model")
    leaning = spreads(_verdicts({"a": 0.5, "b": 0.7, "c": 0.9}, 400, 0), "model")
    assert pooled(fair)["ratio"] < 3 and fair["tau"].iloc[0] < 0.2
    assert pooled(leaning)["ratio"] > 20 and 0.5 < leaning["tau"].iloc[0] < 2


def test_tables_drawn_with_a_spread_show_more_of_it_than_tables_drawn_without():
    v = _verdicts({m: 0.7 for m in "abcdef"}, 100, 1)
    without = simulated_ratios(v, "model", 0.0, 60, seed=2)
    leaning = simulated_ratios(v, "model", 1.0, 60, seed=2)
    assert 0.6 < np.median(without) < 1.6 and np.median(leaning) > 3 * np.median(without)
    assert np.array_equal(without, simulated_ratios(v, "model", 0.0, 60, seed=2))


def test_the_script_reads_the_vendored_file_and_writes_every_comparison(tmp_path, capsys):
    out = tmp_path / "rates.json"
    assert judge_rates.main(["--repeats", "5", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "614 labelled predictions" in text and "between models" in text
    got = json.loads(out.read_text())
    for name in judge_rates.COMPARISONS:
        total = got[name]["pooled"]
        assert total["df"] > 0 and total["ratio"] >= 0 and {"spread_0.0", "spread_0.7"} <= set(total)
        assert {r["judge"] for r in got[name]["rows"]} and all(0 <= r["rate"] <= 1 for r in got[name]["rows"])


def _with_one_judge_flipped(source, target, judge_column):
    """A copy of the calibration file ``source`` at ``target`` where one judge says the opposite of what it said."""
    with open(source, encoding="utf-8") as f, open(target, "w", encoding="utf-8") as out:
        for line in f:
            row = json.loads(line)
            if row[judge_column] is not None:
                row[judge_column] = not row[judge_column]
            out.write(json.dumps(row) + "\n")


def test_a_file_against_itself_shows_no_spread_and_against_a_judge_turned_round_shows_it(tmp_path, capsys):
    same, flipped = tmp_path / "same.json", tmp_path / "flipped.json"
    assert judge_rates.main(["--repeats", "5", "--against", str(PPI_LLM_FILE), "--json", str(same)]) == 0
    assert "between files" in capsys.readouterr().out
    assert json.loads(same.read_text())["files"]["pooled"]["x2"] == pytest.approx(0.0)
    turned = tmp_path / "turned.jsonl"
    _with_one_judge_flipped(PPI_LLM_FILE, turned, "is_answer_correct_gpt-5.1-2025-11-13")
    assert judge_rates.main(["--repeats", "5", "--against", str(turned), "--json", str(flipped)]) == 0
    got = json.loads(flipped.read_text())["files"]
    assert got["pooled"]["ratio"] > 50
    spread = {(r["judge"], r["field"]): r["tau"] for r in got["rows"]}
    assert max(spread, key=spread.get)[1] == "answer" and "gpt" in max(spread, key=spread.get)[0]


def test_a_broken_regular_expression_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit):
        judge_rates.main(["--sets", "W("])
    assert "not a regular expression: 'W('" in capsys.readouterr().err


def test_a_broken_file_to_compare_against_is_named_and_nothing_is_written(tmp_path):
    broken, out = tmp_path / "broken.jsonl", tmp_path / "rates.json"
    broken.write_text('{"riddle_id": "001-1"}\n')
    with pytest.raises(SchemaError, match="broken.jsonl: missing required column"):
        judge_rates.main(["--repeats", "2", "--against", str(broken), "--json", str(out)])
    assert not out.exists()
