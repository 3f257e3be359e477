"""The report takes the calibrate stage's audit of the raters (metrics/audit/<split>.json) instead of refitting the
latent-class model per annotator, but only a record made from the very tables the report read: anything else (a
stale run, another seed) is computed again, and the page is the same bytes either way. A broken record is refused
in one line naming the file."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from report_tables import params_with_models, split_tables

from helpers import project_params
from sideways.core.errors import SidewaysError
from sideways.report.build import build_report
from sideways.report.inputs import read_audit
from sideways.report.site import site_files
from sideways.scoring.rater_audit import audit_record, check_record

HEADER = {"commit": None, "dirty": None, "params": "p", "data": "d"}


@pytest.fixture(scope="module")
def project():
    params = params_with_models(project_params(), None)
    tables = {}
    for s in params.splits:
        t = split_tables(params, s, 12)
        names = [("ann", "bob", "cy")[i % 3] for i in range(len(t.annotations))]
        tables[s] = dataclasses.replace(t, annotations=t.annotations.assign(annotator=names))
    # as the calibrate stage writes it and the report reads it back: through JSON
    written = {s: json.loads(json.dumps(audit_record(t.jury, t.judgments, t.annotations, t.predictions,
                                                     seed=params.seed, split=s), sort_keys=True))
               for s, t in tables.items()}
    fresh = site_files(build_report(tables, params, HEADER))
    return params, tables, written, fresh


def with_audit(tables: dict[str, Any], records: dict[str, Any]) -> dict[str, Any]:
    return {s: dataclasses.replace(t, audit=records.get(s)) for s, t in tables.items()}


def test_a_record_read_back_gives_the_same_site_as_computing_it(project):
    params, tables, written, fresh = project
    assert all(r["audit"]["annotators"] and r["audit"]["judges"] for r in written.values())
    assert site_files(build_report(with_audit(tables, written), params, HEADER)) == fresh


def test_a_record_of_these_tables_is_shown_as_read_not_computed_again(project):
    params, tables, written, _ = project
    marked = copy.deepcopy(written)
    split = next(iter(marked))
    marked[split]["audit"]["judges"][0]["estimate"] = 0.123456  # a value no computation gives here
    report = build_report(with_audit(tables, marked), params, HEADER)
    assert report.summary["splits"][split]["analytics"]["audit"]["judges"][0]["estimate"] == 0.123456


def _other_seed(params: Any, tables: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    return dataclasses.replace(params, seed=params.seed + 1), tables


def _a_label_flipped(params: Any, tables: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    out = {}
    for s, t in tables.items():
        a = t.annotations.copy()
        a.loc[a.index[0], "human_answer_correct"] = not bool(a.loc[a.index[0], "human_answer_correct"])
        out[s] = dataclasses.replace(t, annotations=a)
    return params, out


def _a_reply_longer(params: Any, tables: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    out = {}
    for s, t in tables.items():
        p = t.predictions.copy()
        p.loc[p.index[-1], "justification"] = str(p.loc[p.index[-1], "justification"]) + " and more" * 50
        out[s] = dataclasses.replace(t, predictions=p)
    return params, out


@pytest.mark.parametrize("change", [_other_seed, _a_label_flipped, _a_reply_longer], ids=lambda f: f.__name__[1:])
def test_a_record_of_other_tables_is_computed_again(project, change):
    params, tables, written, _ = project
    params, tables = change(params, tables)
    marked = copy.deepcopy(written)
    for r in marked.values():
        r["audit"]["judges"][0]["estimate"] = 0.123456
    fresh = site_files(build_report(tables, params, HEADER))
    assert site_files(build_report(with_audit(tables, marked), params, HEADER)) == fresh


def test_read_audit_without_a_file_is_none(tmp_path):
    assert read_audit(tmp_path / "metrics" / "audit" / "llm.json") is None


def _refused(path: Path) -> str:
    with pytest.raises(SidewaysError) as e:
        read_audit(path)
    line = str(e.value)
    assert "\n" not in line and str(path) in line and len(line) <= 300
    return line


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=20)


def _paths(record: Any) -> list[tuple[Any, ...]]:
    """Every (container, key) of a parsed JSON value, depth first."""
    out: list[tuple[Any, ...]] = []
    items = record.items() if isinstance(record, dict) else enumerate(record) if isinstance(record, list) else []
    for k, v in items:
        out.append((record, k))
        out += _paths(v)
    return out


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_record_with_any_field_replaced_is_read_or_refused_in_one_line(project, tmp_path_factory, data):
    _, _, written, _ = project
    record = copy.deepcopy(written[next(iter(written))])
    container, key = data.draw(st.sampled_from(_paths(record)))
    container[key] = data.draw(JSON)
    path = tmp_path_factory.mktemp("audit") / "llm.json"
    path.write_text(json.dumps(record))
    try:
        check_record(copy.deepcopy(record), "x")
    except SidewaysError:
        _refused(path)
    else:
        assert read_audit(path) == record


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=200) | JSON.map(lambda v: json.dumps(v).encode()))
def test_any_bytes_are_refused_in_one_line(tmp_path_factory, raw):
    path = tmp_path_factory.mktemp("audit") / "llm.json"
    path.write_bytes(raw)
    _refused(path)


def test_a_truncated_record_is_refused_naming_the_file(project, tmp_path):
    _, _, written, _ = project
    path = tmp_path / "llm.json"
    path.write_text(json.dumps(next(iter(written.values())))[:-40])
    assert "not JSON" in _refused(path)


def test_the_record_does_not_depend_on_the_order_of_models(project):
    params, tables, written, _ = project
    reordered = {}
    for s, t in tables.items():
        last_first = {m: -i for i, m in enumerate(sorted(t.predictions["model"].unique()))}
        reordered[s] = dataclasses.replace(
            t, predictions=t.predictions.sort_values("model", key=lambda c: c.map(last_first), kind="stable"),
            judgments=t.judgments.sort_values("model", key=lambda c: c.map(last_first), kind="stable"))
        assert not reordered[s].predictions["model"].equals(t.predictions["model"])
        again = audit_record(reordered[s].jury, reordered[s].judgments, reordered[s].annotations,
                             reordered[s].predictions, seed=params.seed, split=s)
        assert json.loads(json.dumps(again, sort_keys=True)) == written[s]
    marked = copy.deepcopy(written)
    for r in marked.values():
        r["audit"]["judges"][0]["estimate"] = 0.123456
    report = build_report(with_audit(reordered, marked), params, HEADER)  # the record is taken as read
    assert all(v["analytics"]["audit"]["judges"][0]["estimate"] == 0.123456 for v in report.summary["splits"].values())
