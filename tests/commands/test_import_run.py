"""``sideways import-run``: a run lm-evaluation-harness or inspect_ai wrote (tests/data/imported) copied into a
project as the model of an imported exam, read first, replaced only when asked, never half copied."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from helpers.inspect_cli import hide_inspect, use_real_inspect
from sideways.cli import main
from sideways.config.params import load_params
from sideways.imports.exam import imported_exam
from sideways.imports.lm_eval import read_lm_eval
from sideways.imports.load import read_runs

DATA = Path(__file__).resolve().parents[1] / "data" / "imported"
LM = [DATA / "lm_eval" / f"seed{s}" for s in (1, 2)]
LOGS = sorted((DATA / "inspect" / "json").glob("*.json"))
EVAL_SET = DATA / "inspect" / "eval-set"  # as inspect eval-set writes it: one .eval log per model


@pytest.fixture
def project(tmp_path, default_params, monkeypatch) -> Path:
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(default_params, sort_keys=False))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["import-run", *args])
    out, err = capsys.readouterr()
    assert all(len(line) <= 120 for line in out.splitlines()) and err.count("\n") <= 1  # an error: one line
    return code, out, err


def test_an_lm_eval_run_is_copied_and_the_params_entry_said_then_found(project, capsys, default_params):
    code, out, _ = _run(capsys, str(LM[0]), "arith", "base")
    assert code == 0
    results = next(LM[0].rglob("results_*.json"))
    copied = sorted(p.name for p in (project / "data/exams/arith/base").iterdir())
    assert copied == sorted(p.name for p in results.parent.iterdir())  # the results file and its samples
    lines = out.splitlines()
    run = read_lm_eval(LM[0])
    assert lines[0] == f"data/exams/arith/base: lm_eval run of {run.model}, {len(run.items)} questions"
    entry = "exams: {arith: {source: imported, runs: {base: data/exams/arith/base}}}"
    assert lines[1] == f"add to params.yaml: {entry}; then make repro"

    default_params["exams"] = yaml.safe_load(entry)["exams"]  # the line written as it says
    (project / "params.yaml").write_text(yaml.safe_dump(default_params, sort_keys=False))
    got = imported_exam(load_params("params.yaml").exams["arith"])
    assert got.grades["base"].set_index("item_id")["earned"].to_dict() == {
        i.item_id: i.score for i in run.items}
    code, out, _ = _run(capsys, str(LM[1]), "arith", "base", "--replace")  # the second run, in its place
    assert code == 0 and "params.yaml names it (exams.arith.runs.base)" in out
    assert {p.name for p in (project / "data/exams/arith/base").iterdir()} == {
        p.name for p in next(LM[1].rglob("results_*.json")).parent.iterdir()}


def test_a_run_already_there_is_kept_without_replace(project, capsys):
    assert _run(capsys, str(LM[0]), "arith", "base")[0] == 0
    before = sorted((project / "data/exams/arith/base").iterdir())
    code, out, err = _run(capsys, str(LM[1]), "arith", "base")
    assert code == 2 and out == "" and err == ("sideways import-run: error: data/exams/arith/base: a run is there "
                                               "already; --replace puts this one in its place\n")
    assert sorted((project / "data/exams/arith/base").iterdir()) == before


def test_an_inspect_log_is_copied_as_its_key(project, capsys):
    code, out, _ = _run(capsys, str(LOGS[0]), "arith", "mock")
    assert code == 0 and (project / "data/exams/arith/mock.json").read_bytes() == LOGS[0].read_bytes()
    assert "runs: {mock: data/exams/arith/mock.json}" in out


def test_a_folder_of_two_runs_or_a_bad_run_copies_nothing(project, capsys, tmp_path):
    code, _, err = _run(capsys, str(LOGS[0].parent), "arith", "mock")
    assert code == 2 and "2 runs; without KEY each is imported as its model" in err
    bad = tmp_path / "bad"
    shutil.copytree(LM[0], bad)
    samples = next(bad.rglob("samples_sideways_arith_2*.jsonl"))
    samples.write_bytes(samples.read_bytes()[:-40])  # the last line cut
    code, _, err = _run(capsys, str(bad), "arith", "base")
    assert code == 2 and err.startswith(f"sideways import-run: error: {samples}: line ") and err.count("\n") == 1
    assert not (project / "data/exams").exists()


@pytest.mark.parametrize(("exam", "key", "message"), [("Arith", "base", "EXAM 'Arith'"),
                                                      ("arith", "a.b", "KEY 'a.b'")])
def test_keys_that_cannot_name_files_are_refused(project, capsys, exam, key, message):
    code, _, err = _run(capsys, str(LOGS[0]), exam, key)
    assert code == 2 and message in err and not (project / "data").exists()


def test_an_eval_set_directory_becomes_one_model_per_log_stored_as_inspects_json(project, capsys, default_params,
                                                                                  monkeypatch, tmp_path):
    use_real_inspect(monkeypatch)
    code, out, _ = _run(capsys, str(EVAL_SET), "arith")  # no KEY: each log's model, made a key
    assert code == 0
    runs = {r.model: r for r in read_runs(EVAL_SET)}
    stored = {"mockllm-alpha": project / "data/exams/arith/mockllm-alpha.json",
              "mockllm-beta": project / "data/exams/arith/mockllm-beta.json"}
    assert sorted((project / "data/exams/arith").iterdir()) == sorted(stored.values())  # nothing else
    for key, path in stored.items():
        assert path.read_bytes() == runs[key.replace("-", "/")].converted  # inspect's own .json of the .eval
    lines = out.splitlines()
    assert lines[0] == "data/exams/arith/mockllm-alpha.json: inspect .eval log stored as inspect's .json of " \
                       "mockllm/alpha, 40 questions"
    assert lines[2] == "add to params.yaml (then make repro):"

    hide_inspect(monkeypatch, tmp_path)  # the stored runs are read without inspect: a clone needs no tool
    default_params["exams"] = yaml.safe_load("\n".join(lines[3:]))["exams"]  # the entries written as printed
    (project / "params.yaml").write_text(yaml.safe_dump(default_params, sort_keys=False))
    got = imported_exam(load_params("params.yaml").exams["arith"])
    for key in stored:
        assert got.grades[key].set_index("item_id")["earned"].to_dict() == {
            i.item_id: i.score for i in runs[key.replace("-", "/")].items}
    use_real_inspect(monkeypatch)
    before = {p: p.read_bytes() for p in stored.values()}
    code, out, err = _run(capsys, str(EVAL_SET), "arith")  # again: both there already, neither touched
    assert code == 2 and "mockllm-alpha.json: a run is there already" in err
    assert {p: p.read_bytes() for p in stored.values()} == before
    code, out, _ = _run(capsys, str(EVAL_SET), "arith", "--replace")
    assert code == 0 and out.splitlines()[-1] == ("params.yaml names them (exams.arith.runs: mockllm-alpha, "
                                                  "mockllm-beta); next: make repro, then sideways diff")


def test_two_logs_of_one_model_in_a_directory_are_named_and_nothing_copied(project, capsys):
    code, out, err = _run(capsys, str(LOGS[0].parent), "arith")  # both logs are mockllm/model's
    assert code == 2 and out == "" and len(err.rstrip("\n")) <= 120
    head, other = err.removeprefix("sideways import-run: error: ").rstrip("\n").split(" also claimed by ")
    assert str(LOGS[1]).endswith(head.split(": ")[0].removeprefix("...")) and "'mockllm-model'" in head
    assert str(LOGS[0]).endswith(other.removeprefix("..."))
    assert not (project / "data").exists()


def test_without_inspect_an_eval_set_directory_is_refused_saying_how_to_get_it(project, capsys, monkeypatch,
                                                                                tmp_path):
    hide_inspect(monkeypatch, tmp_path)
    code, _, err = _run(capsys, str(EVAL_SET), "arith")
    assert code == 2 and "needs inspect: pipx install inspect-ai" in err and len(err.rstrip("\n")) <= 120
    assert not (project / "data").exists()


def test_one_eval_log_is_stored_under_its_key_as_inspects_json(project, capsys, monkeypatch):
    use_real_inspect(monkeypatch)
    log = sorted((DATA / "inspect" / "eval").glob("*.eval"))[0]
    code, out, _ = _run(capsys, str(log), "arith", "mock")
    (run,) = read_runs(log)
    assert code == 0 and (project / "data/exams/arith/mock.json").read_bytes() == run.converted
    assert out.splitlines()[0] == ("data/exams/arith/mock.json: inspect .eval log stored as inspect's .json of "
                                   "mockllm/model, 40 questions")
    assert "runs: {mock: data/exams/arith/mock.json}" in out
