"""The calibrate stage writes the split's audit of the raters (metrics/audit/<split>.json); the report stage reads it
instead of fitting the latent-class model again, and ``sideways show --judges`` prints the same numbers whether it
reads the record or computes them: one estimator, whoever runs it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import ROOT
from helpers.audit_project import audit_project, sim_params
from helpers.harness import env
from lab.annotators import team
from sideways.artifacts import paths
from sideways.cli import main
from sideways.commands import audit as audit_command
from sideways.report import audit as report_audit
from sideways.report.build import build_report
from sideways.report.inputs import read_split
from sideways.scoring import rater_audit

HEADER = {"commit": None, "dirty": None, "params": "p", "data": "d"}


def _calibrate(project, split: str) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "stages" / "calibrate.py"), "--split", split], cwd=project,
                          env=env(project, src=ROOT / "src", home=project.parent / "home"), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = audit_project(tmp_path_factory.mktemp("audit") / "p", riddles=40, share=0.6, team=team())
    _calibrate(root, "llm")
    return root


def _no_fit(*args, **kwargs):
    raise AssertionError("the latent-class model fitted again")


def test_calibrate_writes_the_record_and_the_report_reads_it(project, monkeypatch):
    monkeypatch.chdir(project)
    record = json.loads(paths.audit("llm").read_text())
    assert {a["annotator"] for a in record["audit"]["annotators"]} == {a.name for a in team()}
    assert record["audit"]["judges"]
    _, params = sim_params(("llm",), None)
    tables = read_split(params, "llm")
    assert tables.audit == record
    monkeypatch.setattr(rater_audit, "audit_annotators", _no_fit)
    monkeypatch.setattr(rater_audit, "posterior_rows", _no_fit)
    monkeypatch.setattr(report_audit, "compute_summary", _no_fit)
    report = build_report({"llm": tables}, params, HEADER)
    assert report.summary["splits"]["llm"]["analytics"]["audit"] == record["audit"]


def _judges_block(out: str) -> list[str]:
    return out.split("llm split: judges audited")[1].splitlines()


def test_show_judges_prints_the_records_numbers_and_computes_the_same_without_it(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    with monkeypatch.context() as m:  # the record is current: read, not fitted again
        m.setattr(rater_audit, "posterior_rows", _no_fit)
        assert main(["show", "--judges"]) == 0
    from_record = _judges_block(capsys.readouterr().out)
    record = paths.audit("llm").read_bytes()
    paths.audit("llm").unlink()
    try:
        assert main(["show", "--judges"]) == 0
        computed = _judges_block(capsys.readouterr().out)
        frame = audit_command.judge_audit_frame(sim_params(("llm",), None)[1], "llm")  # fitted here
    finally:
        paths.audit("llm").write_bytes(record)
    assert from_record == computed
    # and the report's numbers (the record's) are the ones show computes, row for row, to the last digit
    judges = json.loads(record)["audit"]["judges"]
    shown = [{k: (float(v) if k in ("estimate", "lo", "hi", "n") else str(v)) for k, v in r.items()}
             for r in frame.to_dict("records")]
    assert sorted(json.dumps(r, sort_keys=True) for r in judges) == sorted(json.dumps(r, sort_keys=True)
                                                                        for r in shown)


def test_a_stale_record_is_not_read(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    record = json.loads(paths.audit("llm").read_text())
    stale = {**record, "inputs": "0" * 64}
    paths.audit("llm").write_text(json.dumps(stale))
    try:
        with monkeypatch.context() as m:
            m.setattr(rater_audit, "posterior_rows", _no_fit)
            with pytest.raises(AssertionError, match="fitted again"):
                main(["show", "--judges"])
    finally:
        paths.audit("llm").write_text(json.dumps(record))


def test_a_broken_record_is_one_line_naming_it(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    record = paths.audit("llm").read_bytes()
    paths.audit("llm").write_text('{"inputs": "x", "audit": {}}')
    try:
        assert main(["show", "--judges"]) != 0
    finally:
        paths.audit("llm").write_bytes(record)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(paths.audit("llm")) in err[0]
