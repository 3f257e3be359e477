"""The cost table (sideways.scoring.costs): each model's cost on a benchmark and what each mechanism saved."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import project_params
from sideways.config.params import parse_params
from sideways.core.errors import SchemaError
from sideways.scoring.costs import (
    CASCADE,
    Saved,
    cascade_saved,
    cost_table,
    design_lines,
    design_summary,
    exam_costs,
    labels_line,
    model_costs,
    sample_saved,
    split_costs,
    usd,
    verdict_cost,
    with_saved,
)


def predictions(rows: list[tuple[str, str, float | None]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["riddle_id", "model", "cost_usd"])


def judgments(rows: list[tuple[str, str, str, float | None]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["riddle_id", "model", "judge", "cost_usd"])


def test_each_model_costs_its_answers_and_the_verdicts_on_them_and_a_missing_price_is_counted():
    p = predictions([("r1", "m", 0.01), ("r2", "m", None), ("r1", "n", 0.5)])
    j = judgments([("r1", "m", "a", 0.001), ("r2", "m", "a", 0.002), ("r1", "n", "a", None)])
    m, n, o = model_costs(p, j, ["m", "n", "o"])
    assert (m.predict_usd, m.judge_usd, m.answers, m.verdicts, m.unpriced) == (0.01, 0.003, 2, 2, 1)
    assert (n.predict_usd, n.judge_usd, n.unpriced) == (0.5, 0.0, 1)
    assert n.known("predict") and not n.known("judge") and n.known("total") and n.full_usd == 0.5
    assert (o.total_usd, o.answers, o.full_usd) == (0.0, 0, 0.0)  # no rows: nothing paid, nothing saved
    (u,) = model_costs(predictions([("r1", "u", None)]), judgments([("r1", "u", "a", None)]), ["u"])
    assert not u.known("total") and u.full_usd is None  # nothing priced: no cost, not $0
    assert cost_table([u])[1].split() == ["u", "-", "-", "-", "$?"]
    assert design_summary([u], 0)["models"][0] | {"unpriced": 2} == {
        "model": "u", "predict_usd": None, "judge_usd": None, "total_usd": None, "unpriced": 2, "full_usd": None,
        "saved": []}


@pytest.mark.parametrize("bad", [math.nan, math.inf, -0.01, 2e9])
def test_a_cost_that_is_not_a_finite_amount_is_one_line_naming_the_benchmark(bad):
    p = predictions([("r1", "m", bad)])
    with pytest.raises(SchemaError) as err:
        model_costs(p, judgments([]), ["m"], "llm") if not math.isnan(bad) else usd(bad, "llm predictions")
    assert "llm predictions" in str(err.value) and "\n" not in str(err.value)


def test_usd_refuses_what_is_not_an_amount():
    for bad in (True, "1", None, math.inf, -1.0):
        with pytest.raises(SchemaError):
            usd(bad, "x")
    assert usd(0, "x") == 0.0 and usd(1.5, "x") == 1.5


def test_the_cascade_saved_the_verdicts_a_later_judge_was_not_asked_at_what_its_verdicts_cost():
    rows = [(r, "m", j, 0.001) for r in ("r1", "r2", "r3", "r4") for j in ("a", "b")]
    rows += [("r1", "m", "c", 0.01), ("r2", "m", "c", 0.03)]  # c asked on two of four: a verdict of c costs $0.02
    rows += [(r, "n", j, 0.001) for r in ("r1", "r2") for j in ("a", "b")]  # n: c asked nothing of n
    j = judgments(rows)
    saved = cascade_saved(j, {"m": (["a", "b"], ["c"]), "n": (["a", "b"], ["c"]), "o": (["a", "b", "c"], [])})
    assert saved == {"m": Saved(CASCADE, 2, pytest.approx(0.04)), "n": Saved(CASCADE, 2, pytest.approx(0.04))}
    assert verdict_cost(j, "c") == pytest.approx(0.02) and verdict_cost(j, "zzz") is None
    assert verdict_cost(j, "c", free={"c"}) == 0.0
    only_n = judgments([r for r in rows if r[2] != "c"])
    assert cascade_saved(only_n, {"n": (["a", "b"], ["c"])})["n"] == Saved(CASCADE, 2, None)  # c never priced here
    assert cascade_saved(only_n, {"n": (["a", "b"], ["c"])}, free={"c"})["n"] == Saved(CASCADE, 2, 0.0)


def test_the_full_design_is_what_was_paid_plus_every_saving_and_unknown_when_one_is():
    (m,) = model_costs(predictions([("r1", "m", 0.5)]), judgments([("r1", "m", "a", 0.25)]), ["m"])
    known = with_saved([m], {"m": Saved(CASCADE, 3, 0.125)}, {"m": Saved("exams.x.sample", 2, 0.5)})[0]
    assert known.full_usd == 0.5 + 0.25 + 0.125 + 0.5
    assert with_saved([m], {"m": Saved(CASCADE, 3, None)})[0].full_usd is None


def test_the_exam_sample_saves_the_questions_not_asked_at_what_the_asked_ones_cost():
    saved = sample_saved("exams.mmlu.sample", 100, {"m": 25, "n": 0}, {"m": 0.5})
    assert saved["m"] == Saved("exams.mmlu.sample", 75, pytest.approx(1.5)) and saved["n"].usd is None
    with pytest.raises(SchemaError, match="asked 101 of 100"):
        sample_saved("exams.mmlu.sample", 100, {"m": 101}, {})
    with pytest.raises(SchemaError):
        sample_saved("exams.mmlu.sample", 100, {"m": 5}, {"m": math.nan})


def test_the_table_fits_120_columns_with_a_long_model_key_and_two_mechanisms_and_sums_the_models():
    costs = model_costs(predictions([("r1", "m" * 150, 1234.5), ("r1", "n", 0.25)]),
                        judgments([("r1", "n", "a", 0.125)]), ["m" * 150, "n"])
    costs = with_saved(costs, {"n": Saved(CASCADE, 1_234, 0.5)}, {"n": Saved("exams.some-exam.sample", 7, None)})
    lines = cost_table(costs)
    assert max(map(len, lines)) <= 120
    assert lines[0].split()[:4] == ["model", "answers", "verdicts", "total"] and "jury.cascade saved" in lines[0]
    assert lines[2].split() == ["n", "$0.2500", "$0.1250", "$0.3750", "1,234", "calls", "$0.5000", "7", "calls", "$?",
                                "$?"]
    assert lines[3].split()[:3] == ["all", "models", "$1,234.7500"] and "1,234 calls $0.5000" in lines[3]
    assert "..." in lines[1]  # the long key, cut
    assert max(len(x) for x in [labels_line("x" * 200, 10**9)]) <= 120


def test_the_dry_run_lines_put_the_full_design_against_this_one():
    assert design_lines(10, 1.0, []) == []  # no mechanism: this design is the full design
    full, this = design_lines(1_000, 2.0, [Saved(CASCADE, 300, 0.75, in_plan=True),
                                           Saved("exams.x.sample", 50, 0.5)])
    assert "1,050 requests, $2.5000 to send" in full
    assert this.startswith("this design: 700 requests, $1.2500 (jury.cascade -300 requests -$0.7500, "
                           "exams.x.sample -50 requests -$0.5000)")
    _, this = design_lines(1_000, None, [Saved(CASCADE, 300, 0.75, in_plan=True)])
    assert "700 requests, $?" in this


def test_split_costs_reads_the_cascade_from_params_and_a_simulated_judges_verdict_saves_nothing():
    data = project_params()
    data["jury"]["judges"] = 3
    data["jury"]["cascade"] = {"first": 2}
    params = parse_params(data)
    model = params.models_taking("llm")[0]
    first, later = params.jury.escalation(model.provider)
    rows = [("r1", model.key, j.key, 0.001) for j in first] + [("r2", model.key, j.key, 0.001) for j in first]
    rows.append(("r1", model.key, later[0].key, 0.003))
    costs = split_costs(params, "llm", predictions([("r1", model.key, 0.01), ("r2", model.key, 0.01)]),
                        judgments(rows))
    mine = next(c for c in costs if c.model == model.key)
    assert not later[0].capabilities.sends_requests  # the project's judges are simulated: an unasked verdict is free
    assert mine.saved == (Saved(CASCADE, 1, 0.0),)
    summary = design_summary([mine], 12)
    assert summary["labels"] == 12 and summary["mechanisms"] == [CASCADE]
    assert summary["models"][0]["full_usd"] == round(0.02 + 0.007, 6)


amounts = st.one_of(st.none(), st.floats(min_value=0, max_value=1e3, allow_nan=False))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["r1", "r2", "r3"]), st.sampled_from(["m", "n"]), amounts), max_size=12),
       st.lists(st.tuples(st.sampled_from(["r1", "r2", "r3"]), st.sampled_from(["m", "n"]),
                          st.sampled_from(["a", "b", "c"]), amounts), max_size=20))
def test_any_priced_tables_give_finite_figures_that_add_up(p_rows, j_rows):
    p, j = predictions(p_rows), judgments(j_rows)
    costs = with_saved(model_costs(p, j, ["m", "n"]), cascade_saved(j, {"m": (["a", "b"], ["c"]),
                                                                       "n": (["a", "b"], ["c"])}, free={"c"}))
    for c in costs:
        assert math.isfinite(c.total_usd) and c.full_usd == (c.total_usd if c.known("total") else None)
        assert c.answers + c.verdicts == int((p["model"] == c.model).sum() + (j["model"] == c.model).sum())
    assert sum(c.total_usd for c in costs) == pytest.approx(p["cost_usd"].fillna(0).sum() + j["cost_usd"].fillna(0).sum())
    assert max(map(len, cost_table(costs))) <= 120


def test_an_exam_costs_its_replies_and_grades_and_a_sampled_model_saved_the_questions_it_was_not_asked():
    items = pd.DataFrame({"item_id": [f"q{i}" for i in range(10)]})
    replies = pd.DataFrame({"item_id": [f"q{i}" for i in range(10)] + ["q0", "q1"],
                            "model": ["full"] * 10 + ["sampled"] * 2, "cost_usd": [0.01] * 10 + [0.02, 0.02]})
    grades = pd.DataFrame({"item_id": ["q0", "q1"], "model": ["sampled"] * 2, "judge": "j", "cost_usd": [0.01, 0.01]})
    full, sampled = exam_costs("x", items, replies, grades, ["full", "sampled"])
    assert full.saved == () and full.full_usd == pytest.approx(0.1)  # asked every question: no sample
    assert sampled.total_usd == pytest.approx(0.06)
    assert sampled.saved == (Saved("exams.x.sample", 8, pytest.approx(0.24)),)  # 8 more at $0.03 each
    assert sampled.full_usd == pytest.approx(0.3)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats()), min_size=1, max_size=8))
def test_any_cost_column_gives_finite_figures_or_one_line_naming_the_benchmark(values):
    p = predictions([(f"r{i}", "m", v) for i, v in enumerate(values)])
    j = judgments([(f"r{i}", "m", "c", v) for i, v in enumerate(values)])
    values = [v for v in values if v is not None and not math.isnan(v)]  # null (NaN in pandas): a row without a price
    sane = all(math.isfinite(v) and 0 <= v <= 1e9 for v in values) and sum(values) <= 1e9
    try:
        costs = with_saved(model_costs(p, j, ["m"], "llm"), cascade_saved(j, {"m": (["a"], ["c"])}))
    except SchemaError as err:
        assert not sane and str(err).startswith("llm ") and "\n" not in str(err)
        return
    assert sane and all(math.isfinite(c.total_usd) and c.total_usd >= 0 for c in costs)
