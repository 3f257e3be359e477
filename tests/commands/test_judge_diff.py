"""``sideways diff`` names a judge whose rates changed between two versions (sideways.commands.judge_diff), on a
git + DVC project of simulated tables: one commit, then one judge's answer verdicts all turned to "right"."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.audit_project import audit_project
from sideways.artifacts.io import write_table
from sideways.artifacts.schema import JUDGMENTS
from sideways.cli import main
from sideways.commands.judge_diff import _frame, changed_judges


def _git(project, *args):
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


def test_diff_names_the_judge_whose_rates_changed(tmp_path, monkeypatch, capsys):
    project = audit_project(tmp_path / "p", share=0.5)
    _git(project, "init", "-q")
    subprocess.run([sys.executable, "-m", "dvc", "init", "-q"], cwd=project, check=True, capture_output=True)
    _git(project, "add", "-A")
    _git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
    for path in sorted((project / "data/judgments/llm").glob("*.parquet")):
        rows = pd.read_parquet(path)
        lenient = rows["judge"] == "judge-mistral"
        rows.loc[lenient & rows["is_answer_correct"].notna(), "is_answer_correct"] = True
        write_table(rows, JUDGMENTS, path)
    monkeypatch.chdir(project)
    assert main(["diff", "HEAD", "workspace"]) == 0
    out = capsys.readouterr().out
    named = [line for line in out.splitlines() if line.startswith("judge changed on llm: ")]
    assert len(named) == 1, out
    assert named[0].startswith("judge changed on llm: judge-mistral: ")
    assert "answer specificity" in out.split(named[0])[1].split("judges")[0] or "answer specificity" in named[0]
    assert all(len(line) <= 120 for line in out.splitlines())
    # the same judge, with the same figures, in the JSON and the Markdown views
    assert main(["diff", "HEAD", "workspace", "--json"]) == 0
    moves = json.loads(capsys.readouterr().out)["judges"]["llm"]
    assert {m["judge"] for m in moves} == {"judge-mistral"}
    first = next(m for m in moves if (m["field"], m["measure"]) == ("answer", "specificity"))
    assert f"answer specificity {first['a'][0]:.2f} [{first['a'][1]:.2f}, {first['a'][2]:.2f}] -> " in " ".join(out.split())
    assert all(m["b"][1] > m["a"][2] or m["b"][2] < m["a"][1] for m in moves)  # intervals apart, every one
    assert main(["diff", "HEAD", "workspace", "--md"]) == 0
    md = capsys.readouterr().out
    assert [x for x in md.splitlines() if x.startswith("- judge changed on llm: judge-mistral: ")], md


def test_no_judge_named_when_nothing_changed(tmp_path, monkeypatch, capsys):
    project = audit_project(tmp_path / "p", share=0.5)
    monkeypatch.chdir(project)
    assert main(["diff", "workspace", "workspace"]) == 0
    out = capsys.readouterr().out
    assert "judges on llm: no judge's rates moved beyond their 95% intervals" in out
    assert "judge changed" not in out
    assert main(["diff", "workspace", "workspace", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["judges"] == {"llm": []}


def test_changed_judges_reads_only_intervals_apart():
    cols = ["judge", "field", "measure", "estimate", "lo", "hi"]
    a = pd.DataFrame([("j1", "answer", "specificity", 0.9, 0.85, 0.94), ("j2", "answer", "specificity", 0.9, 0.8, 0.95)],
                     columns=cols)
    b = pd.DataFrame([("j1", "answer", "specificity", 0.5, 0.4, 0.6), ("j2", "answer", "specificity", 0.8, 0.7, 0.85)],
                     columns=cols)
    assert changed_judges(a, b) == ["j1: answer specificity 0.90 [0.85, 0.94] -> 0.50 [0.40, 0.60]"]



@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=200))
def test_a_version_table_of_any_bytes_is_a_frame_or_nothing(data):
    """A version's file is data: bytes that are no Parquet table read as None (the diff then skips the judges)."""
    assert _frame(data) is None or isinstance(_frame(data), pd.DataFrame)
    assert _frame("missing at HEAD") is None
