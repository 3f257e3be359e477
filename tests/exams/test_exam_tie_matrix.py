"""The exam's tie groups from one questions x models matrix are the pair-by-pair groups, exactly.

The reference below is the pair-by-pair computation the matrix replaced (kept here verbatim in
its arithmetic: per-model frames, index intersection, pandas groupby of the influences by topic).
It is compared on the demo project (the demo exam, params.yaml's models), on 50 simulated models
taking a bigger exam, and on tables built to sit on the edges: models with the same answers,
questions some models failed, a single topic, fractional points.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from helpers.exams import items, mcq, short, sim_judge, sim_model
from sideways.backends.base import RunContext
from sideways.config.params import parse_params
from sideways.exams import changes
from sideways.exams.answer import exam_predictions
from sideways.exams.changes import _values, exam_tie_groups, paired_values
from sideways.exams.format import load_exam
from sideways.exams.grade import exam_grades, exam_panel
from sideways.exams.items import items_table
from sideways.exams.results import detail_table
from sideways.scoring.verdicts import tie_groups


def reference_interval(va: pd.DataFrame, vb: pd.DataFrame) -> tuple[float, float] | None:
    """The per-pair path's (lo, hi) from two models' values (each model's frame built once)."""
    got = paired_values(va, vb)
    return None if got is None else (got["lo"], got["hi"])


def reference_tie_groups(detail: pd.DataFrame, metric: str = "exam_score") -> dict[str, str]:
    """The old exam_tie_groups: a loop over every pair of models."""
    by_model = {str(m): _values(d, metric) for m, d in detail.groupby("model", sort=True)}
    value = {}
    for m, v in by_model.items():
        value[m] = float(np.sum(v["w"] * v["x"]) / np.sum(v["w"])) if len(v) else -math.inf
    order = sorted(by_model, key=lambda m: (-value[m], m))
    apart: set[frozenset[str]] = set()
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            got = reference_interval(by_model[a], by_model[b])
            if got is not None and (got[0] > 0 or got[1] < 0):
                apart.add(frozenset((a, b)))
    return {m: ",".join(map(str, g)) for m, g in tie_groups(order, apart).items()}


def simulated_detail(table: pd.DataFrame, models: list[Any], params: Any = None) -> pd.DataFrame:
    """The exam_score stage's detail table for ``models`` answering ``table`` (sim backends)."""
    ctx = RunContext(seed=7)
    predictions, grades = [], []
    for model in models:
        p = exam_predictions(table, model, ctx)
        predictions.append(p)
        panel = exam_panel(params, params.exams["demo"], model) if params else (sim_judge(),)
        grades += [exam_grades(table, p, model, judge, "rubric_anchored", ctx) for judge in panel]
    return detail_table(table, pd.concat(predictions, ignore_index=True), pd.concat(grades, ignore_index=True))


def assert_same_groups(detail: pd.DataFrame, metrics: tuple[str, ...] = tuple(changes.METRICS)) -> None:
    for metric in metrics:
        assert exam_tie_groups(detail, metric) == reference_tie_groups(detail, metric), metric


def test_the_demo_projects_groups_are_the_pair_by_pair_ones(default_params):
    params = parse_params(default_params)
    table = items_table(load_exam("data/exams/demo.json"), params.seed, True)
    detail = simulated_detail(table, list(params.models_taking("demo")), params)
    assert_same_groups(detail)


QUESTIONS = ([mcq(f"m{i:03d}", f"Q{i}?", answer="ABCD"[i % 4], topic=f"t{i % 7}") for i in range(300)]
             + [short(f"s{i:02d}", f"Why {i}?", rubric=["one", "two", "three"], points=3, topic=f"t{i % 7}")
                for i in range(21)])


@pytest.fixture(scope="module")
def fifty() -> pd.DataFrame:
    skills = np.linspace(0.05, 0.95, 50)
    return simulated_detail(items(QUESTIONS), [sim_model(f"sim-{i:02d}", skill=float(s)) for i, s in enumerate(skills)])


def test_fifty_models_groups_are_the_pair_by_pair_ones(fifty):
    groups = exam_tie_groups(fifty)
    assert groups == reference_tie_groups(fifty)
    assert len(set(groups.values())) > 5  # a real mix of groups, not one big tie
    assert_same_groups(fifty, ("idk_score", "short_answer"))


def test_pairs_are_recomputed_one_by_one_only_near_the_edge(fifty, monkeypatch):
    calls = []
    monkeypatch.setattr(changes, "paired_values", lambda a, b: calls.append(1) or None)
    monkeypatch.setattr(changes, "paired_metric", lambda a, b, metric: calls.append(1) or None)
    exam_tie_groups(fifty)
    assert len(calls) <= 12  # of 1,225 pairs


def edge_detail(rng: np.random.Generator, models: int, questions: int, topics: int) -> pd.DataFrame:
    """Random detail rows: fractional short-answer points, failures, copies of one model."""
    rows = []
    right = rng.random((questions, models)) < np.linspace(0.2, 0.9, models)
    right[:, 1] = right[:, 0]  # a copy
    right[:, 3] = right[:, 2]
    for j in range(models):
        for i in range(questions):
            points = 1.0 if i % 3 else 3.0
            earned = points * float(right[i, j]) if i % 3 else float(rng.integers(0, 7)) / 2
            status = "api_error" if (j == 4 and i % 5 == 0) or (j == 5 and i < questions - 2) else "ok"
            rows.append({"model": f"m{j:02d}", "item_id": f"q{i:03d}", "kind": "mcq" if i % 3 else "short_answer",
                         "topic": f"t{i % topics}", "points": points, "trad": float(right[i, j]) if i % 3 else None,
                         "idk": (1.0 if right[i, j] else -1.0) if i % 3 else None, "earned": earned,
                         "status": status})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("topics", [1, 2, 6])
def test_edge_tables_groups_are_the_pair_by_pair_ones(topics):
    detail = edge_detail(np.random.default_rng(topics), models=14, questions=60, topics=topics)
    assert_same_groups(detail)


def test_an_exact_tie_is_not_apart():
    # two questions per topic, the models differ on each by +1 and -1: change 0 and se 0
    rows = [{"model": m, "item_id": f"q{i}", "kind": "mcq", "topic": f"t{i // 2}", "points": 1.0,
             "trad": float((i + (m == "b")) % 2), "idk": 0.0, "earned": float((i + (m == "b")) % 2),
             "status": "ok"} for m in ("a", "b") for i in range(8)]
    detail = pd.DataFrame(rows)
    assert exam_tie_groups(detail) == reference_tie_groups(detail) == {"a": "1", "b": "1"}


def test_pairs_known_from_before_give_the_same_groups_and_only_new_pairs_are_computed(fifty, monkeypatch):
    from sideways.exams import tie_matrix

    groups, apart = changes.exam_ties(fifty)
    assert groups == exam_tie_groups(fifty) and apart  # some pairs apart among fifty models
    before = fifty[fifty["model"] != "sim-17"]  # the run before sim-17 was added
    _, apart_before = changes.exam_ties(before)
    seen = []
    real = tie_matrix.pair_intervals
    monkeypatch.setattr(changes, "pair_intervals", lambda v, c, fresh=None: seen.append(fresh) or real(v, c, fresh))
    known = ({str(m) for m in before["model"]} | {"gone-model"}, apart_before | {frozenset(("gone-model", "sim-01"))})
    assert changes.exam_ties(fifty, known=known) == (groups, apart)
    assert [sum(f) for f in seen] == [1]  # only sim-17's 49 pairs were computed


def test_fresh_pairs_alone_are_decided_as_in_the_whole_matrix(fifty):
    from sideways.exams.tie_matrix import pair_intervals

    values = {str(m): _values(d, "exam_score") for m, d in fifty.groupby("model", sort=True)}
    order = sorted(values)
    whole = pair_intervals([values[m] for m in order], lambda g: changes.t_quantile(0.95, g))
    fresh = [i in (3, 30) for i in range(len(order))]
    part = pair_intervals([values[m] for m in order], lambda g: changes.t_quantile(0.95, g), fresh)
    needed = np.logical_or.outer(fresh, fresh)
    assert np.array_equal(part.apart, whole.apart & needed) and part.apart.any()
    assert not (part.unsure & ~needed).any()
