"""End-to-end: ``sideways diff`` on the README's experiment, under the real DVC CLI.

A session fixture reproduces the default pipeline (6 models, both splits) once and commits it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import ROOT
from helpers.harness import BIN, commit, edit_params, env, new_repo, run

pytestmark = pytest.mark.slow

UP, SAME = "up", "no detectable change"


@pytest.fixture(scope="session")
def reproduced(tmp_path_factory) -> Path:
    repo = new_repo(tmp_path_factory.mktemp("diff") / "repo")
    run(repo, "dvc", "repro")
    commit(repo, "reproduced")
    return repo


@pytest.fixture
def project(reproduced, tmp_path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(reproduced, repo, symlinks=True)
    return repo


def diff_json(repo: Path, *args: str) -> dict:
    return json.loads(run(repo, "sideways", "diff", *args, "--json").stdout)


def verdicts(out: dict) -> dict[tuple[str, str, str], str]:
    return {(r["benchmark"], r["model"], r["metric"]): r["verdict"] for r in out["rows"]}


def assert_only_atlas_mini_up(out: dict) -> None:
    """Riddle splits: atlas-mini up with an interval above 0, every other model no detectable
    change; the exam (its rows follow the riddles'): no other model moves."""
    got = verdicts(out)
    riddles = {k: v for k, v in got.items() if k[0] in ("llm", "vlm")}
    assert {k[:2] for k, v in riddles.items() if v == UP} == {("llm", "atlas-mini"), ("vlm", "atlas-mini")}, got
    assert {v for k, v in got.items() if k[1] != "atlas-mini"} == {SAME}
    assert ("llm", "tide-open", "both_correct") in got and len(riddles) == 12
    assert {k[0] for k in got} - {"llm", "vlm"}, "no exam rows"
    for r in out["rows"]:
        if r["model"] == "atlas-mini" and r["benchmark"] in ("llm", "vlm"):
            assert r["lo"] > 0 and r["to_right"] and r["b"] > r["a"]
    assert out["not_compared"] == []


def test_the_readme_experiment_marks_atlas_mini_up_and_nothing_else(project):
    run(project, "dvc", "exp", "run", "-S", "models.atlas-mini.skill=0.9")
    assert_only_atlas_mini_up(diff_json(project))
    text = run(project, "sideways", "diff", "--items").stdout
    assert "atlas-mini: right->wrong" in text and max(map(len, text.splitlines())) <= 200
    md = run(project, "sideways", "diff", "--md").stdout
    assert md.count("\n| ") == 1 + len(diff_json(project)["rows"]) and "| vlm | atlas-mini | both_correct |" in md


def test_between_two_experiment_names(project):
    run(project, "dvc", "exp", "run", "-n", "weak", "-S", "models.atlas-mini.skill=0.6")
    run(project, "dvc", "exp", "run", "-n", "strong", "-S", "models.atlas-mini.skill=0.9")
    assert_only_atlas_mini_up(diff_json(project, "weak", "strong"))


def test_a_fresh_clone_diffs_against_the_last_commit_from_the_remote_only(project, tmp_path):
    remote = tmp_path / "remote"
    run(project, "dvc", "remote", "add", "-d", "store", str(remote))
    commit(project, "a remote")
    run(project, "dvc", "push")  # only what a commit's outputs are: the clone has none of HEAD~1 in its cache
    edit_params(project, lambda p: p["models"]["atlas-mini"].update(skill=0.9))
    run(project, "dvc", "repro")
    commit(project, "stronger atlas-mini")
    run(project, "dvc", "push")
    clone = tmp_path / "clone"
    run(tmp_path, "git", "clone", "-q", str(project), str(clone))
    run(clone, "dvc", "pull")
    before = sorted(p.name for p in (clone / "data").rglob("*"))
    keys = {k: os.environ.pop(k) for k in list(os.environ) if k.endswith("_API_KEY")}
    try:
        out = diff_json(clone, "HEAD~1", "HEAD")
    finally:
        os.environ.update(keys)
    assert_only_atlas_mini_up(out)
    assert sorted(p.name for p in (clone / "data").rglob("*")) == before  # nothing recomputed
    older = diff_json(clone, "HEAD~2", "HEAD")  # a commit without the remote in its .dvc/config
    assert older["not_compared"] == [] and len(older["rows"]) == len(out["rows"])


def test_revisions_whose_models_differ_say_what_they_cannot_compare(project):
    edit_params(project, lambda p: p["models"].pop("breeze-large"))
    run(project, "dvc", "repro")
    out = diff_json(project)
    assert "breeze-large" not in {r["model"] for r in out["rows"]}
    assert sorted(out["not_compared"]) == [
        "demo, breeze-large: took the exam in HEAD only; no change to compute",
        *(f"{s}, breeze-large: scored in HEAD only, not in workspace; no change to compute" for s in ("llm", "vlm"))]
    bad = run(project, "sideways", "diff", "no-such-rev", check=False)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.splitlines()) == 1


def test_the_demo_leaderboards_show_tie_groups_that_agree_with_the_pairwise_intervals(reproduced):
    for split in ("llm", "vlm"):
        board = json.loads((reproduced / f"metrics/leaderboard_{split}.json").read_text())
        pairs = json.loads((reproduced / f"metrics/pairwise_{split}.json").read_text())
        groups = {m: set(v["tie_groups"].split(",")) for m, v in board.items()}
        assert len(pairs["pairs"]) == len(board) * (len(board) - 1) // 2
        for p in pairs["pairs"]:
            assert p["apart"] == (p["lo"] > 0 or p["hi"] < 0)
            assert p["apart"] == (not groups[p["a"]] & groups[p["b"]]), p  # on the demo: exactly
    shown = run(reproduced, "sideways", "show").stdout
    assert "| tie group |" in shown


def readme_views() -> list[list[str]]:
    """The two invocations README.md gives under "Reading the metrics in a terminal"."""
    text = (ROOT / "README.md").read_text().split("### Reading the metrics in a terminal", 1)[1]
    block = text.split("```", 2)[1]
    return [shlex.split(line.split("  #", 1)[0]) for line in block.splitlines() if line.startswith("dvc ")]


def test_the_readme_dvc_views_show_every_model_within_120_columns(project):
    run(project, "dvc", "exp", "run", "-S", "models.atlas-mini.skill=0.9")
    views = readme_views()
    assert [v[:3] for v in views] == [["dvc", "metrics", "show"], ["dvc", "exp", "show"]]
    for view in views:  # as wide a terminal as they like: their own width must be <= 120
        args = [*view, "--no-pager"] if view[1] == "exp" else view
        out = subprocess.run([str(BIN / "dvc"), *args[1:]], cwd=project, env={**env(project), "COLUMNS": "1000"},
                             capture_output=True, text=True, check=True).stdout
        lines = [line.rstrip() for line in out.splitlines() if line.strip()]
        assert max(map(len, lines)) <= 120, out
        assert "…" not in out, out
        if view[1] == "metrics":
            assert all(m in out for m in ("atlas-large", "atlas-mini", "breeze-large", "nimbus-pro",
                                          "quill-max", "tide-open")) and "headline_vlm" in out
        else:
            assert "76.4" in out and "65.3" in out  # atlas-mini on llm, after and before


def test_damaged_tables_and_odd_revisions_are_one_line_each(project):
    """The readers of `sideways diff` (and `report --compare`) trust nothing they read: a key of
    metrics/exams.json is an exam key before it names a file, a malformed or odd exams.json, a
    garbage Parquet file and a revision naming a blob are one line each, naming revision and file."""
    def diff(*args: str) -> subprocess.CompletedProcess:
        return run(project, "sideways", "diff", *args, "--json", "--replicates", "50", check=False)

    exams = project / "metrics/exams.json"
    good = exams.read_text()
    for text, line in (('{"../../../../x": {"m": {}}}', "metrics/exams.json at workspace: '../../../../x' is not an exam key"),
                       ("{not json", "metrics/exams.json at workspace: not valid JSON"),
                       ('{"demo": 3}', "metrics/exams.json at workspace: exam demo: expected an object of models' metrics"),
                       ("[1, 2]", "metrics/exams.json at workspace: expected an object of exams, got a JSON list")):
        exams.write_text(text)
        proc = diff()
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        assert any(p.startswith(f"exam: not compared: {line}") for p in json.loads(proc.stdout)["not_compared"]), \
            json.loads(proc.stdout)["not_compared"]
    exams.write_text(good)
    jury = project / "data/jury/llm.parquet"
    jury.unlink()  # it may be a link into DVC's cache: never write through it
    jury.write_bytes(b"PAR1 not really a parquet file PAR1")
    proc = diff()
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert [p for p in json.loads(proc.stdout)["not_compared"] if p.startswith("llm: ")] == [
        "llm: not compared: data/jury/llm.parquet at workspace: not a readable Parquet table (ArrowInvalid: "
        + p.split("(ArrowInvalid: ", 1)[1] for p in json.loads(proc.stdout)["not_compared"] if "ArrowInvalid" in p]
    for rev in ("HEAD:params.yaml", "HEAD^{tree}"):
        proc = diff(rev)
        assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
        assert f"revision {rev!r}: names a file or a folder" in proc.stderr


def test_without_a_default_remote_the_revision_s_own_remote_is_not_used_and_that_is_said(project, tmp_path):
    """The workspace chooses where a revision's data comes from: with no default remote, DVC's cache
    only (the remote HEAD's own .dvc/config names is not used), and each missing file says so."""
    run(project, "dvc", "remote", "add", "-d", "store", str(tmp_path / "remote"))
    commit(project, "a remote")
    run(project, "dvc", "push")
    run(project, "dvc", "remote", "default", "--unset")
    shutil.rmtree(project / ".dvc/cache")
    out = diff_json(project, "HEAD", "--replicates", "50")
    assert out["rows"] == [] and "llm: not compared: data/jury/llm.parquet at HEAD: its data is not in DVC's cache " \
        "and the workspace has no default remote (the one HEAD's own .dvc/config names is not used): " \
        "`dvc remote default NAME`, then `dvc fetch --rev HEAD`" in out["not_compared"]
    run(project, "dvc", "remote", "default", "store")
    assert diff_json(project, "HEAD", "--replicates", "50")["not_compared"] == []  # the workspace's choice: read
