"""One answer in every view: an annotator flagged by the pair rule alone (its second labels differ from the first
ones where the judges and the other labels say it erred; its latent interval does not clear the bar) is named, with
the same evidence to the last digit, by the calibrate stage's record and the report built from it,
``sideways annotate stats`` and the annotation app's progress payload: all four run one function
(sideways.scoring.rater_audit.annotator_audits) on the same label log, second labels included."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pandas as pd
import pytest

from helpers import ROOT
from helpers.audit_project import audit_project, sim_params
from helpers.harness import env
from helpers.label_project import Served, finished_audit
from lab.annotators import relabel, team
from sideways.annotation.rater_labels import audit_labels
from sideways.artifacts import paths
from sideways.cli import main
from sideways.report import audit as report_audit
from sideways.report.build import build_report
from sideways.report.inputs import read_split
from sideways.scoring.annotator_audit import FLAG_RATIO
from sideways.scoring.rater_audit import annotator_audits

HEADER = {"commit": None, "dirty": None, "params": "p", "data": "d"}


def _sloppy(truth: pd.DataFrame) -> pd.DataFrame:
    """Three careful annotators label every prediction (a third of them twice), then ``sloppy`` labels 35 of them
    a second time, its answer label flipped on 3: every label of sloppy's is a second label."""
    labels = relabel(truth, team(careful=3, careless=0, random=0), 0, 0.3)
    theirs = truth.head(35).copy()
    theirs["annotator"] = "sloppy"
    flip = theirs.index[:3]
    theirs.loc[flip, "human_answer_correct"] = ~theirs.loc[flip, "human_answer_correct"].astype(bool)
    return pd.concat([labels, theirs], ignore_index=True)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = audit_project(tmp_path_factory.mktemp("views") / "p", riddles=60, justification=0.6, share=1.0,
                         log=_sloppy)
    done = subprocess.run([sys.executable, str(ROOT / "stages" / "calibrate.py"), "--split", "llm"], cwd=root,
                          env=env(root, src=ROOT / "src", home=root.parent / "home"), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return root


def _flagged(lines: list[str]) -> dict[str, str]:
    """Per flagged annotator, its evidence as the audit's lines tell it (a long one continues, indented by four, on
    the next)."""
    out: dict[str, str] = {}
    name = None
    for line in lines:
        if line.startswith("flagged: "):
            name, _, out_line = line.removeprefix("flagged: ").partition(": ")
            out[name] = out_line
        elif name is not None and line.startswith("    "):
            out[name] += " " + line.strip()
        else:
            name = None
    return out


def test_the_pair_rules_flag_is_the_same_in_the_record_the_report_stats_and_the_app(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    record = json.loads(paths.audit("llm").read_text())
    annotators = {a["annotator"]: a for a in record["audit"]["annotators"]}
    # the record reads the second labels: sloppy, who has none of the first ones, is there, flagged by its pairs
    assert set(annotators) == {"careful-1", "careful-2", "careful-3", "sloppy"}
    sloppy = annotators["sloppy"]
    assert sloppy["flagged"] == ["answer"] and sloppy["labels"] == 35 and sloppy["double"] == 35
    assert "3/35 double differ, 3.0 its errors, others 0.0/" in sloppy["evidence"]
    assert all(not annotators[f"careful-{i}"]["flagged"] for i in (1, 2, 3))
    # ... by the pair rule alone: its latent interval does not clear twice the others' median
    _, params = sim_params(("llm",), 0.6)
    tables = read_split(params, "llm")
    assert tables.raters is not None and len(tables.raters) > len(tables.annotations)
    fitted = {a.annotator: a for a in annotator_audits(tables.jury, tables.judgments, tables.raters, seed=params.seed,
                                                        split="llm")}
    assert not fitted["sloppy"].error["answer"].lo > FLAG_RATIO * fitted["sloppy"].reference["answer"]
    assert fitted["sloppy"].evidence() == sloppy["evidence"]

    # the report: the record as read (no fit), and the same numbers when it computes them itself
    with monkeypatch.context() as m:
        m.setattr(report_audit, "compute_summary", lambda *a, **k: pytest.fail("the report fitted again"))
        shown = build_report({"llm": tables}, params, HEADER).summary["splits"]["llm"]["analytics"]["audit"]
    assert shown == record["audit"]
    computed = build_report({"llm": dataclasses.replace(tables, audit=None)}, params, HEADER)
    assert json.loads(json.dumps(computed.summary["splits"]["llm"]["analytics"]["audit"])) == record["audit"]

    # sideways annotate stats: the audit's lines, indented by two
    assert main(["annotate", "stats", "--split", "llm"]) == 0
    out = capsys.readouterr().out.split("annotators audited")[1].splitlines()
    assert all(len(line) <= 120 for line in out)
    lines = [line[2:] for line in out if line.startswith("  ")]
    assert _flagged(lines) == {"sloppy": sloppy["evidence"]}
    row = next(line for line in lines if line.startswith("sloppy "))
    assert row.endswith("FLAGGED") and row.split()[1:3] == ["35", "35"]

    # the app's progress view: the same lines, every annotator's rates to the last digit
    with Served(project, "alice") as served:
        audit = finished_audit(served.url)
    assert audit["flagged"] == ["sloppy"]
    assert _flagged(audit["lines"]) == {"sloppy": sloppy["evidence"]}
    assert audit["lines"] == lines


def test_a_split_of_simulated_labels_audits_the_annotations_table(project):
    """No label log read where the split's labels are simulated: the annotators' audit reads the table."""
    _, params = sim_params(("llm",), 0.6)
    annotations = pd.read_parquet(project / paths.annotations("llm"))
    assert audit_labels("sim", project / paths.LABELS, "llm", annotations) is annotations
    assert len(audit_labels("file", project / paths.LABELS, "llm", annotations)) > len(annotations)
