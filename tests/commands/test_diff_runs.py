"""``sideways diff-runs``: two runs made by lm-evaluation-harness or inspect_ai (tests/data/imported,
written by the real tools) compared per question, as ``sideways diff`` compares an exam's versions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.inspect_cli import hide_inspect, use_real_inspect
from sideways.cli import main
from sideways.exams.changes import paired_metric
from sideways.exams.results import detail_table
from sideways.imports.load import read_runs
from sideways.imports.run import exam_tables

DATA = Path(__file__).resolve().parents[1] / "data" / "imported"
LM = [str(DATA / "lm_eval" / f"seed{s}") for s in (1, 2)]
LOGS = [str(p) for p in sorted((DATA / "inspect" / "json").glob("*.json"))]
EVAL = sorted((DATA / "inspect" / "eval").glob("*.eval"))


def _diff(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["diff-runs", *args])
    out, err = capsys.readouterr()
    assert all(len(line) <= 120 for line in out.splitlines()[2:])  # the two path lines aside
    return code, out, err


@pytest.mark.parametrize("pair", [LM, LOGS], ids=["lm_eval", "inspect"])
def test_two_runs_of_one_model_get_the_exams_paired_change(capsys: pytest.CaptureFixture[str],
                                                           pair: list[str]) -> None:
    code, out, _ = _diff(capsys, *pair)
    assert code == 0
    (a,), (b,) = (read_runs(p) for p in pair)
    detail = detail_table(*exam_tables("x", {"a": a, "b": b}))
    want = paired_metric(detail[detail["model"] == "a"], detail[detail["model"] == "b"], "exam_score")
    assert want is not None
    line = next(line for line in out.splitlines() if f" {a.model} " in line)
    row = line.split()
    assert row[2:6] == ["exam_score", f"{100 * sum(i.score for i in a.items) / len(a.items):.1f}",
                        f"{100 * sum(i.score for i in b.items) / len(b.items):.1f}", f"{want['change']:+.1f}"]
    assert f"[{want['lo']:+.1f}, {want['hi']:+.1f}]*" in line
    assert "4 topics as clusters" in out  # the samples' subjects


def test_a_bad_run_is_one_line_naming_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    bad = str(Path(LM[1]) / "missing")
    code, out, err = _diff(capsys, LOGS[0], bad)
    assert code == 2 and out == ""
    assert err.startswith(f"sideways diff-runs: error: {bad}: ") and err.count("\n") == 1


def test_without_inspect_an_eval_log_is_refused_in_one_line_under_120_columns(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    hide_inspect(monkeypatch, tmp_path)
    bad = EVAL[0]
    code, out, err = _diff(capsys, LOGS[0], str(bad))
    assert code == 2 and out == ""
    assert err.startswith("sideways diff-runs: error: ...") and err.count("\n") == 1
    assert bad.name.endswith(err.split(": ")[2].removeprefix("..."))  # the path's end: the log's id
    assert "needs inspect: pipx install inspect-ai" in err and len(err.rstrip("\n")) <= 120


def test_an_eval_log_is_compared_through_inspects_converter(capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    use_real_inspect(monkeypatch)
    code, out, _ = _diff(capsys, LOGS[0], str(EVAL[0]))  # one run logged in both formats: nothing changed
    assert code == 0 and "+0.0" in out and "no detectable change" in out
    code, out, _ = _diff(capsys, str(EVAL[0]), str(EVAL[1]))
    (b,) = read_runs(LOGS[1])
    assert code == 0 and f"{100 * sum(i.score for i in b.items) / len(b.items):.1f}" in out


def test_a_folder_of_two_runs_of_one_model_cannot_be_paired(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _diff(capsys, str(DATA / "inspect" / "json"), LOGS[0])
    assert code == 2 and err.count("\n") == 1 and len(err.rstrip("\n")) <= 120
    head, other = err.removeprefix("sideways diff-runs: error: ").rstrip("\n").split(" also claimed by ")
    assert LOGS[1].endswith(head.split(": ")[0].removeprefix("...")) and "model key 'mockllm/model'" in head
    assert LOGS[0].endswith(other.removeprefix("..."))


def test_runs_without_a_shared_question_say_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = _diff(capsys, LM[0], LOGS[0])
    assert code == 0 and "share no question" in out
    shutil.copytree(LM[0], tmp_path / "again")
    code, out, _ = _diff(capsys, LM[0], str(tmp_path / "again"))  # a rerun that changed nothing
    assert code == 0 and "+0.0" in out and "no detectable change" in out
