"""The report takes the rank stage's pairwise table (metrics/pairwise/<split>.json) instead of
computing every pair again, but only a table made for the split's scores: anything else, from a
stale run or a remote, is computed again, and the page is the same bytes either way."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from report_tables import params_with_models, split_tables

from helpers import project_params
from sideways.report.build import build_report
from sideways.report.site import site_files
from sideways.scoring.pairwise import agrees, pairwise
from sideways.scoring.ranking import rank_leaderboard

HEADER = {"commit": None, "dirty": None, "params": "p", "data": "d"}


@pytest.fixture(scope="module")
def project():
    params = params_with_models(project_params(), None)
    tables = {s: split_tables(params, s, 8) for s in params.splits}
    ranked = {s: rank_leaderboard(t.scores) for s, t in tables.items()}
    # as the rank stage writes it and the report reads it back: through JSON
    written = {s: json.loads(json.dumps(pairwise(ranked[s], t.jury, t.annotations), sort_keys=True))
               for s, t in tables.items()}
    return params, tables, ranked, written


def with_pairwise(tables: dict[str, Any], tables_pairwise: dict[str, Any]) -> dict[str, Any]:
    return {s: dataclasses.replace(t, pairwise=tables_pairwise.get(s)) for s, t in tables.items()}


def test_a_table_read_back_agrees_and_gives_the_same_site_as_computing_it(project):
    params, tables, ranked, written = project
    assert all(agrees(written[s], ranked[s]) for s in tables)
    fresh = site_files(build_report(tables, params, HEADER))
    assert site_files(build_report(with_pairwise(tables, written), params, HEADER)) == fresh


def test_a_table_that_agrees_is_shown_as_read_not_computed_again(project):
    params, tables, _, written = project
    marked = copy.deepcopy(written)
    split = next(iter(marked))
    marked[split]["pairs"][0]["change"] = 123.45  # a value no computation gives here
    report = build_report(with_pairwise(tables, marked), params, HEADER)
    assert report.summary["splits"][split]["pairwise"]["pairs"][0]["change"] == 123.45


def _drop_pair(t: dict) -> None:
    t["pairs"].pop()


def _duplicate_pair(t: dict) -> None:
    t["pairs"][-1] = dict(t["pairs"][0])


def _other_seed(t: dict) -> None:
    t["seed"] += 1


def _other_field(t: dict) -> None:
    t["field"] = "answer_correct" if t["field"] != "answer_correct" else "both_correct"


def _unknown_model(t: dict) -> None:
    t["tie_groups"]["nobody"] = [1]
    t["rank_sets"]["nobody"] = [1, 1]


def _missing_model(t: dict) -> None:
    t["tie_groups"].pop(next(iter(t["tie_groups"])))


def _text_change(t: dict) -> None:
    t["pairs"][0]["change"] = "<img src=x onerror=alert(1)>"


def _apart_as_number(t: dict) -> None:
    t["pairs"][0]["apart"] = 1


def _rank_set_of_three(t: dict) -> None:
    t["rank_sets"][next(iter(t["rank_sets"]))] = [1, 2, 3]


def _pair_with_itself(t: dict) -> None:
    t["pairs"][0]["b"] = t["pairs"][0]["a"]


BROKEN: list[Callable[[dict], None]] = [_drop_pair, _duplicate_pair, _other_seed, _other_field, _unknown_model,
                                        _missing_model, _text_change, _apart_as_number, _rank_set_of_three,
                                        _pair_with_itself]


@pytest.mark.parametrize("breaks", BROKEN, ids=lambda f: f.__name__.lstrip("_"))
def test_a_table_not_made_for_the_scores_is_computed_again(project, breaks):
    params, tables, ranked, written = project
    bad = copy.deepcopy(written)
    for t in bad.values():
        breaks(t)
    assert not any(agrees(bad[s], ranked[s]) for s in tables)
    fresh = site_files(build_report(tables, params, HEADER))
    assert site_files(build_report(with_pairwise(tables, bad), params, HEADER)) == fresh


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(value=JSON)
def test_any_json_value_is_checked_without_raising(project, value):
    _, tables, ranked, written = project
    split = next(iter(tables))
    assert agrees(value, ranked[split]) is False
    spliced = copy.deepcopy(written[split])
    spliced["pairs"] = [value] + spliced["pairs"][1:]  # one hostile row among good ones
    assert agrees(spliced, ranked[split]) is False
