"""End-to-end: ``sideways diff`` on the README's experiment, under the real DVC CLI.

The session fixture ``reproduced`` (tests/conftest.py) reproduces the default pipeline (6 models,
both splits) once and commits it; ``project`` is a copy of it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.harness import commit, edit_params, run

pytestmark = pytest.mark.slow

UP, SAME = "up", "no detectable change"


@pytest.fixture
def project(reproduced_copy) -> Path:
    return reproduced_copy


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


def assert_changes_add_up(out: dict) -> None:
    """Every riddle row's change is B - A of the two scores it prints (to the 0.1 they are printed at),
    and the paired interval is around it (or a single count, when no draw moved by a riddle)."""
    rows = [r for r in out["rows"] if r["benchmark"] in ("llm", "vlm")]
    assert rows
    for r in rows:
        assert abs(r["change"] - (r["b"] - r["a"])) <= 0.1 + 1e-9, r
        assert r["lo"] - 1e-9 <= r["change"] <= r["hi"] + 1e-9 or r["lo"] == r["hi"], r


def test_the_readme_experiment_marks_atlas_mini_up_and_nothing_else(project):
    run(project, "dvc", "exp", "run", "-S", "models.yaml:models.atlas-mini.skill=0.9")
    out = diff_json(project)
    assert_only_atlas_mini_up(out)
    assert_changes_add_up(out)
    text = run(project, "sideways", "diff", "--items").stdout
    assert max(map(len, text.splitlines())) <= 120, text
    flips = [line for line in text.splitlines() if "right->wrong" in line and "wrong->right" in line]
    assert "llm atlas-mini both_correct: right->wrong -; wrong->right demo-llm-" in text
    assert len(flips) == len(set(flips)), flips  # each flip line names its metric: no two alike
    assert {line.split(":")[0] for line in flips} >= {"demo atlas-mini trad_score", "demo atlas-mini exam_score"}
    assert "* demo: an exam row's interval is paired per question and clustered: 5 topics as clusters, " \
           "Student's t with 4 degrees of" in text  # why an exam row's change of 20 points is not detectable
    assert "]*  " in text  # an exam row's interval carries the note's mark
    md = run(project, "sideways", "diff", "--md").stdout
    assert md.count("\n| ") == 1 + len(diff_json(project)["rows"]) and "| vlm | atlas-mini | both_correct |" in md


def test_between_two_experiment_names(project):
    run(project, "dvc", "exp", "run", "-n", "weak", "-S", "models.yaml:models.atlas-mini.skill=0.6")
    run(project, "dvc", "exp", "run", "-n", "strong", "-S", "models.yaml:models.atlas-mini.skill=0.9")
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


def test_after_adding_a_model_every_change_is_b_minus_a(project):
    edit_params(project, lambda p: p["models"].update(
        {"nova-mid": {"backend": "sim", "provider": "mistral", "name": "nova-mid", "n_hints": 0, "skill": 0.7}}))
    run(project, "dvc", "repro")
    out = diff_json(project)
    assert_changes_add_up(out)
    assert any(p.startswith("llm, nova-mid: scored in workspace only") for p in out["not_compared"])


def test_the_exact_method_moves_no_score_the_leaderboard_ranks_by(project):
    """What README.md says of `-S calibration.method=exact`: the diff is empty (every row 0, no detectable
    change); only the published interval, shown beside, is computed otherwise."""
    run(project, "dvc", "exp", "run", "-S", "calibration.method=exact")
    out = diff_json(project)
    assert_changes_add_up(out)
    rows = [r for r in out["rows"] if r["benchmark"] in ("llm", "vlm")]
    assert len(rows) == 12 and {(r["a"] == r["b"], r["change"], r["verdict"]) for r in rows} == {(True, 0.0, SAME)}


def test_ranks_and_tie_groups_agree_under_the_published_interval(project):
    """Ranked by the published interval, tie groups and rank sets follow it too: two models of one rank
    share a tie group, and two models apart are ranked apart, the better one above."""
    run(project, "dvc", "exp", "run", "-S", "calibration.interval=published")
    for split in ("llm", "vlm"):
        board = json.loads((project / f"metrics/leaderboard_{split}.json").read_text())
        pairs = json.loads((project / f"metrics/pairwise/{split}.json").read_text())
        groups = {m: set(v["tie_groups"].split(",")) for m, v in board.items()}
        for p in pairs["pairs"]:
            a, b = board[p["a"]], board[p["b"]]
            assert abs(p["change"] - (a["score"] - b["score"])) <= 0.1 + 1e-9, p
            if a["rank"] == b["rank"]:
                assert groups[p["a"]] & groups[p["b"]], (p, a, b)
            if p["apart"]:
                assert a["rank"] < b["rank"], (p, a, b)
        assert all("-" in v["rank_set"] for v in board.values())


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
        pairs = json.loads((reproduced / f"metrics/pairwise/{split}.json").read_text())
        groups = {m: set(v["tie_groups"].split(",")) for m, v in board.items()}
        assert len(pairs["pairs"]) == len(board) * (len(board) - 1) // 2
        for p in pairs["pairs"]:
            assert p["apart"] == (p["lo"] > 0 or p["hi"] < 0)
            assert p["apart"] == (not groups[p["a"]] & groups[p["b"]]), p  # on the demo: exactly
    shown = run(reproduced, "sideways", "show").stdout
    assert "| ties |" in shown


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
    proc = run(project, "sideways", "diff", "HEAD", "--json", "--replicates", "50", check=False)
    out = json.loads(proc.stdout)
    assert out["rows"] == [] and "llm: not compared: data/jury/llm.parquet at HEAD: its data is not in DVC's cache " \
        "and the workspace has no default remote (`dvc remote default NAME`; HEAD's own .dvc/config is not used)" \
        in out["not_compared"]
    assert proc.returncode == 1 and "`dvc push --all-commits`" in proc.stderr, proc.stderr  # a command DVC 3.67.1 has
    both = run(project, "sideways", "diff", "HEAD", "HEAD", "--replicates", "50", check=False)
    assert both.returncode == 1 and "llm: not compared: data/jury/llm.parquet at HEAD: its data is" in both.stdout
    run(project, "dvc", "remote", "default", "store")
    assert diff_json(project, "HEAD", "--replicates", "50")["not_compared"] == []  # the workspace's choice: read
