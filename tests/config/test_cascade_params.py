"""``jury.cascade``: off by default (the panel and the judge jobs' fingerprints as without it), ordered panels when
on, and every bad value refused in one line naming its field, by ``sideways check`` too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from helpers import ROOT
from sideways.cli import main
from sideways.config.params import parse_params
from sideways.core.errors import ParamsError
from sideways.jobs.riddles import judge_inputs


def with_cascade(params: dict, cascade: object) -> dict:
    params["jury"]["cascade"] = cascade
    return params


def test_the_cascade_is_off_by_default_and_leaves_every_panel_and_fingerprint_as_it_was(default_params, tmp_path,
                                                                                          monkeypatch):
    on = parse_params(with_cascade(dict(default_params), {"first": 0, "order": []}))
    default_params["jury"].pop("cascade", None)
    off = parse_params(default_params)
    assert on.jury.cascade.first == 0 and on.jury.panel("openai") == off.jury.panel("openai")
    assert on.jury.escalation("openai") == (off.jury.panel("openai"), ())
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data/split").mkdir(parents=True)
    (tmp_path / "data/split/llm.parquet").write_bytes(b"x")
    (tmp_path / "data/predictions/llm").mkdir(parents=True)
    (tmp_path / "data/predictions/llm/atlas-large.parquet").write_bytes(b"y")
    model = off.model("atlas-large")
    assert judge_inputs(on, model, "llm", "code") == judge_inputs(off, model, "llm", "code")
    cascaded = parse_params(with_cascade(default_params, {"first": 2}))
    assert judge_inputs(cascaded, model, "llm", "code") != judge_inputs(off, model, "llm", "code")


def test_a_cascade_orders_the_panel_without_changing_who_is_on_it(default_params):
    p = parse_params(with_cascade(default_params, {"first": 2, "order": ["judge-mistral", "judge-openai"]}))
    assert [j.key for j in p.jury.panel("openai")] == ["judge-mistral", "judge-gemini", "judge-anthropic"]
    assert [j.key for j in p.jury.panel("gemini")] == ["judge-mistral", "judge-openai", "judge-anthropic"]
    first, then = p.jury.escalation("gemini")
    assert [j.key for j in first] == ["judge-mistral", "judge-openai"] and [j.key for j in then] == ["judge-anthropic"]


@pytest.mark.parametrize(("cascade", "message"), [
    ({"first": 3}, r"jury\.cascade\.first: 3 judges first leaves none to escalate to \(jury\.judges is 3"),
    ({"first": -1}, r"jury\.cascade\.first"),
    ({"first": 1}, r"jury\.cascade\.first: one judge cannot disagree with itself"),
    ({"first": 2, "order": ["judge-mistrall"]},
     r"jury\.cascade\.order: 'judge-mistrall' is not a judge of jury\.pool \(did you mean 'judge-mistral'\?\)"),
    ({"first": 2, "order": ["judge-openai", "judge-openai"]}, r"jury\.cascade\.order: 'judge-openai' is named twice"),
    ({"first": 2, "order": "judge-openai"}, r"jury\.cascade\.order: a list of jury\.pool keys"),
    ({"frist": 2}, r"jury\.cascade\.frist: unknown key \(did you mean 'first'\?\)"),
])
def test_a_bad_cascade_is_refused_naming_its_field(default_params, cascade, message):
    with pytest.raises(ParamsError, match=message):
        parse_params(with_cascade(default_params, cascade))


def test_check_names_a_cascade_judge_that_is_not_in_the_pool_in_one_line(tmp_path, monkeypatch, capsys):
    for name in ("params.yaml", "models.yaml"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "data").symlink_to(ROOT / "data")
    params = yaml.safe_load((tmp_path / "params.yaml").read_text())
    params["jury"]["cascade"] = {"first": 2, "order": ["judge-grok"]}
    Path(tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "jury.cascade.order: 'judge-grok' is not a judge of jury.pool" in err


def test_the_annotation_apps_audit_knows_the_cascade(default_params):
    """The app's progress view audits annotators against panels whose later judges were asked only where the first
    disagreed: it must read their missing verdicts as not asked (the audit's ``first``), as calibrate does."""
    from sideways.annotation_app.audit_field import _FIELDS, audit_field
    from sideways.commands.annotate import plan_for

    params = parse_params(with_cascade(default_params, {"first": 2, "order": []}))
    plan = plan_for(params, "llm", [])
    assert plan.cascade_first == 2
    class Service:  # the audit field's one need of the service: its plan (held by a weak reference)
        def __init__(self) -> None:
            self.plan = plan

    service = Service()
    audit_field(service, 0, list)
    assert _FIELDS[service].first == 2
