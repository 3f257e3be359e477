"""A sampled exam's frozen design: seeded, nested, frozen once drawn, read back only when valid;
and its estimate weighted by points."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sideways.core.errors import SchemaError
from sideways.exams import frozen, sample, sampled

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ITEMS = [f"q{i:02d}" for i in range(40)]


def detail(model: str, right: dict[str, float], points: float = 1.0) -> pd.DataFrame:
    return pd.DataFrame({"model": model, "item_id": list(right), "points": points,
                         "earned": [points * v for v in right.values()], "status": "ok"})


def test_the_design_is_seeded_per_model_and_the_same_bytes_from_the_same_inputs():
    earlier = {"a": detail("a", {i: float(n % 3 == 0) for n, i in enumerate(ITEMS)})}
    seed = frozen.design_seed(0, "demo", "m")
    one = frozen.frozen_bytes(frozen.choose(ITEMS, None, earlier, seed))
    assert one == frozen.frozen_bytes(frozen.choose(ITEMS, None, earlier, seed))
    other = frozen.choose(ITEMS, None, earlier, frozen.design_seed(0, "demo", "n"))
    assert other.order != frozen.parse_frozen(one, "f").order  # another model, another sample
    assert frozen.design_seed(1, "demo", "m") != seed


def test_the_order_is_every_item_once_and_each_prefix_is_stratified_on_the_learned_ease():
    right = {i: float(n < 20) for n, i in enumerate(ITEMS)}  # the first 20 easy, the last 20 hard
    design = frozen.choose(ITEMS, None, {"a": detail("a", right), "b": detail("b", right)}, 7)
    assert sorted(design.order) == ITEMS and design.learned_from == ("a", "b")
    for n in (10, 20, 30):
        easy = sum(right[i] for i in design.asked(n))
        assert abs(easy - n / 2) <= 1  # the strata follow the ease: half easy in every prefix
        assert set(design.asked(n - 5)) < set(design.asked(n))  # nested: a larger sample holds a smaller one


def test_no_model_run_gives_every_item_the_same_ease_and_a_previous_design_stays_frozen():
    first = frozen.choose(ITEMS, None, {}, 3)
    assert len(set(first.ease.values())) == 1 and first.learned_from == ()
    later = {"a": detail("a", {i: 1.0 for i in ITEMS[:5]})}
    assert frozen.choose(ITEMS, first, later, 3) is first  # a model added since changes nothing
    assert frozen.choose(ITEMS[:-1], first, later, 3).learned_from == ("a",)  # the exam changed: drawn again


def test_the_ease_counts_only_the_models_asked_each_item_and_leaves_failed_rows_out():
    rows = detail("a", {"q00": 1.0, "q01": 0.0})
    rows.loc[1, "status"] = "api_error"
    ease = frozen.learned_ease(["q00", "q01", "q02"], [rows])
    assert ease["q00"] == pytest.approx(float(sample.ease([1], [1])[0]))
    assert ease["q01"] == ease["q02"] == pytest.approx(0.0)  # unasked or failed: the prior's even ease


@FAST
@given(st.binary(max_size=200) | st.builds(lambda d: json.dumps(d).encode(), st.recursive(
    st.none() | st.booleans() | st.integers(-2, 50) | st.floats() | st.text(max_size=4),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(
        st.sampled_from(["version", "order", "ease", "strata", "seed", "learned_from", "q"]), c, max_size=6),
    max_leaves=12)))
def test_any_bytes_are_a_design_or_one_line_naming_the_file(data: bytes) -> None:
    try:
        got = frozen.parse_frozen(data, "data/exam/samples/demo/m.json")
    except SchemaError as exc:
        assert str(exc).startswith("data/exam/samples/demo/m.json: ") and "\n" not in str(exc)
    else:
        assert frozen.parse_frozen(frozen.frozen_bytes(got), "f") == got


@FAST
@given(st.integers(2, 40), st.integers(0, 2**32))
def test_a_written_design_reads_back_the_same(n: int, seed: int) -> None:
    got = frozen.choose(ITEMS[:n], None, {}, seed)
    assert frozen.parse_frozen(frozen.frozen_bytes(got), "f") == got


def test_the_estimate_weights_by_points_and_is_exact_when_every_question_was_asked():
    points = {i: (3.0 if n % 4 == 0 else 1.0) for n, i in enumerate(ITEMS)}
    right = {i: float(points[i] == 1.0) for i in ITEMS}  # every one-point question right, every 3-point wrong
    rows = pd.DataFrame({"model": "m", "item_id": ITEMS, "points": [points[i] for i in ITEMS],
                         "earned": [points[i] * right[i] for i in ITEMS], "status": "ok"})
    design = frozen.choose(ITEMS, None, {}, 1)
    whole = sampled.score_estimate(design, rows, points)
    share = sum(points[i] * right[i] for i in ITEMS) / sum(points.values())
    assert (whole.score, whole.lo, whole.hi, whole.n) == pytest.approx((share, share, share, 40))
    part = sampled.score_estimate(design, rows[rows["item_id"].isin(design.asked(20))], points)
    assert part.n == 20 and part.population == 40 and part.lo <= part.score <= part.hi
    assert part.lo < share < part.hi


def test_the_tie_groups_compare_the_estimates_the_metrics_show():
    figures = {"a": {"exam_score": 90.0, "exam_score_se": 2.0, "asked_n": 20},
               "b": {"exam_score": 86.0, "exam_score_se": 2.0, "asked_n": 20},
               "c": {"exam_score": 40.0, "exam_score_se": 3.0, "asked_n": 20}}
    groups, apart = sampled.estimate_ties(figures)
    assert groups == {"a": "1", "b": "1", "c": "2"} and apart == {frozenset("ac"), frozenset("bc")}


def test_a_weighted_estimate_of_equal_points_is_the_unweighted_one():
    rng = np.random.default_rng(0)
    e = rng.normal(size=60)
    y = (rng.random(60) < 1 / (1 + np.exp(-e))).astype(float)
    s = sample.design(e, 30, 5, count=5)
    st_ = sample.strata(e, 5, 5)
    assert sample.estimate(y[s], s, e, st_) == sample.estimate(y[s], s, e, st_, weights=np.full(60, 2.0))
