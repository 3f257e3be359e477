"""The report's data: outcomes, agreement and kappa, calibration bins, intervals read defensively,
the site's bytes (deterministic, script-safe) and its atomic folder write, the provenance header."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest
from report_tables import params_with_models, split_tables

from helpers import project_params
from sideways.report import site as site_module
from sideways.report.analytics import calibration_bins, cohen_kappa, judge_agreement, picarats_band
from sideways.report.build import build_report
from sideways.report.explorer import image_name
from sideways.report.js import to_js
from sideways.report.outcomes import prediction_outcomes
from sideways.report.provenance import git_state, params_digest
from sideways.report.site import site_files, write_site

KEYS = ["riddle_id", "model"]


def test_cohen_kappa_matches_the_textbook_example():
    # po = 0.7, pe = (25*30 + 25*20) / 50^2 = 0.5: kappa = 0.4
    assert cohen_kappa(20, 5, 10, 15) == 0.4
    assert cohen_kappa(10, 0, 0, 10) == 1.0
    assert cohen_kappa(10, 0, 0, 0) is None  # both raters always say yes: undefined
    assert cohen_kappa(0, 0, 0, 0) is None


def _tables():
    preds = pd.DataFrame({"riddle_id": ["a", "b", "c", "d"], "model": "m", "provider": "p",
                          "status": ["ok", "ok", "api_error", "ok"]})
    jury = pd.DataFrame({"riddle_id": ["a", "b", "c", "d"], "model": "m"})
    for f, votes, judges in (("answer_correct", [2, 1, 0, 0], [3, 2, 0, 0]),
                             ("justification_correct", [3, 1, 0, 0], [3, 2, 0, 0]),
                             ("both_correct", [2, 1, 0, 0], [3, 2, 0, 0])):
        jury[f"{f}_votes"], jury[f"{f}_judges"] = votes, judges
    labels = pd.DataFrame({"riddle_id": ["a", "b"], "model": "m", "human_both_correct": [True, True],
                           "human_answer_correct": [True, True], "human_justification_correct": [True, False]})
    judgments = pd.DataFrame({"riddle_id": ["a", "a", "a", "b", "b"], "model": "m", "judge": ["x", "y", "z", "x", "y"],
                              "status": "ok", "both_correct": [True, True, False, True, False],
                              "is_answer_correct": True, "is_justification_correct": True})
    return preds, jury, labels, judgments


def test_outcomes_take_a_strict_majority_and_flag_judges_against_the_human():
    out = prediction_outcomes(*_tables(), "both_correct").set_index("riddle_id")
    assert out["outcome"].to_dict() == {"a": "pass", "b": "fail", "c": "error", "d": "unjudged"}  # 1/2 is a tie
    assert out["disagree"].to_dict() == {"a": True, "b": True, "c": False, "d": False}  # judge z on a, y on b
    assert out["human"].isna().tolist() == [False, False, True, True]


def test_judge_agreement_counts_each_judge_against_the_label():
    _, _, labels, judgments = _tables()
    rows = {r["judge"]: r for r in judge_agreement(judgments, labels, "both_correct")}
    assert (rows["z"]["tp"], rows["z"]["fn"], rows["z"]["n"]) == (0, 1, 1)
    assert (rows["x"]["tp"], rows["x"]["agreement"]) == (2, 100.0)


def test_calibration_bins_are_exact_fractions_with_counts():
    _, jury, labels, _ = _tables()
    bins = calibration_bins(jury, labels, "justification_correct")
    assert [(b["bin"], b["n"], b["positives"], b["human_rate"]) for b in bins] == [("1/2", 1, 0, 0.0), ("1", 1, 1, 100.0)]


def test_picarats_bands():
    assert [picarats_band(x) for x in (10, 20, 21, 60, 99, None)] == ["10-20", "10-20", "21-40", "41-60", "61+", "unknown"]


def test_to_js_never_closes_a_script_and_image_names_follow_bytes():
    assert "</script>" not in to_js({"a": "</script><script>alert(1)</script>"})
    assert image_name(b"\x89PNG\r\n\x1a\nxyz").endswith(".png") and image_name(b"\xff\xd8\xffabc").endswith(".jpg")


@pytest.fixture(scope="module")
def report():
    params = params_with_models(project_params(), None)
    tables = {s: split_tables(params, s, 8) for s in params.splits}
    return params, tables


def test_the_same_tables_give_the_same_bytes(report):
    params, tables = report
    header = {"commit": None, "dirty": None, "params": "p", "data": "d"}
    first, again = (site_files(build_report(tables, params, header)) for _ in range(2))
    assert first == again
    assert {"index.html", "app.js", "style.css", "data/report.js", "data/llm/chunk-0000.js"} <= set(first)
    assert sum(name.startswith("img/") for name in first) == 8  # the vlm pictures, one file each


def test_the_folder_appears_whole_or_the_old_one_stays(tmp_path, monkeypatch):
    target = tmp_path / "report"
    write_site({"index.html": b"old"}, target)
    calls = []

    def failing(self, data):  # the second file fails to write
        calls.append(self)
        if len(calls) == 2:
            raise OSError("disk full")
        return original(self, data)

    original = site_module.Path.write_bytes
    monkeypatch.setattr(site_module.Path, "write_bytes", failing)
    with pytest.raises(OSError):
        write_site({"a.js": b"1", "index.html": b"new"}, target)
    monkeypatch.undo()
    assert (target / "index.html").read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["report"]  # no temporary folder left
    write_site({"index.html": b"new"}, target)
    assert sorted(p.name for p in target.iterdir()) == [".sideways-report", "index.html"]
    assert (target / "index.html").read_bytes() == b"new"


def test_an_unchanged_file_keeps_its_inode_so_dvc_does_not_hash_it_again(tmp_path):
    target = tmp_path / "report"
    write_site({"same.js": b"kept", "changed.js": b"one", "gone.js": b"x"}, target)
    before = {p.name: p.stat() for p in target.iterdir()}
    write_site({"same.js": b"kept", "changed.js": b"two", "new.js": b"y"}, target)
    after = {p.name: p.stat() for p in target.iterdir()}
    assert after["same.js"].st_ino == before["same.js"].st_ino
    assert after["same.js"].st_mtime_ns == before["same.js"].st_mtime_ns
    assert after["changed.js"].st_ino != before["changed.js"].st_ino
    assert (target / "changed.js").read_bytes() == b"two" and (target / "new.js").read_bytes() == b"y"
    assert "gone.js" not in after and after["same.js"].st_nlink == 1  # the old folder is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_a_folder_that_is_not_a_report_is_never_replaced(tmp_path, monkeypatch):
    """`sideways report --compare HEAD --out data` renamed data/ away and deleted it (labels, exams,
    overrides): only a folder a report wrote (it holds the marker) is replaced."""
    from sideways.core.errors import ReportError

    data = tmp_path / "data"
    (data / "labels").mkdir(parents=True)
    (data / "labels/llm.jsonl").write_text("a human label\n")
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(data)
    monkeypatch.chdir(data / "labels")
    for target in (data, tmp_path / "file", tmp_path / "link", data / "labels", Path("."), Path("..")):
        with pytest.raises(ReportError, match="choose another --out"):
            write_site({"index.html": b"report"}, target)
    assert (data / "labels/llm.jsonl").read_text() == "a human label\n" and (tmp_path / "file").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "file", "link"]  # no temporary folder either
    (data / "labels" / ".sideways-report").write_text("forged")  # holds the cwd: still refused
    with pytest.raises(ReportError, match="current folder"):
        write_site({"index.html": b"report"}, Path("."))
    write_site({"index.html": b"report"}, tmp_path / "site")  # a new folder, then a report folder again
    write_site({"index.html": b"again"}, tmp_path / "site")
    assert (tmp_path / "site/index.html").read_bytes() == b"again"


def test_the_compare_command_refuses_before_reading_anything(tmp_path, monkeypatch):
    import subprocess
    import sys

    (tmp_path / "data/exams").mkdir(parents=True)
    (tmp_path / "data/exams/demo.json").write_text("{}")
    for out, why in (("data", "is not a report folder"), ("report", "is the report stage's output")):
        proc = subprocess.run([sys.executable, "-m", "sideways.cli", "report", "--compare", "HEAD", "--out", out],
                              cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 2 and why in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert (tmp_path / "data/exams/demo.json").read_text() == "{}"


def test_git_state_names_the_last_commit_of_result_paths_and_dirtiness(tmp_path):
    assert git_state(tmp_path) == {"commit": None, "dirty": None}
    git = lambda *a: subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *a], cwd=tmp_path,
                                    check=True, capture_output=True, text=True).stdout.strip()
    git("init", "-q")
    (tmp_path / "params.yaml").write_text("seed: 0\n")
    git("add", "."), git("commit", "-qm", "params")
    head = git("rev-parse", "HEAD")
    (tmp_path / "README.md").write_text("docs\n")
    git("add", "."), git("commit", "-qm", "docs only")
    assert git_state(tmp_path) == {"commit": head, "dirty": False}  # a docs commit changes nothing
    (tmp_path / "params.yaml").write_text("seed: 1\n")
    assert git_state(tmp_path) == {"commit": head, "dirty": True}


def test_params_digest_ignores_key_order():
    assert params_digest({"a": 1, "b": [1, 2]}) == params_digest({"b": [1, 2], "a": 1})
    assert params_digest({"a": 1}) != params_digest({"a": 2})


def test_the_leaderboard_reads_in_rank_order_with_the_interval_the_ranks_follow(default_params):
    """Score, ± and covered are the ranking interval's: with the posterior ranking, a model ranked
    first must not show a lower score than the one ranked second (as the published columns would)."""
    from sideways.report.leaderboard import leaderboard_rows

    scores = split_tables(params_with_models(default_params, 8), "llm", 60).scores
    for chosen in ("posterior", "published"):
        scores = scores.assign(interval=chosen)
        rows = leaderboard_rows(scores, str(scores["field"].iloc[0]))
        prefix = "posterior_" if chosen == "posterior" else ""
        by_model = scores.set_index("model")
        for r in rows:
            assert r["ranked_by"] == chosen and r["intervals"][0]["name"] == chosen
            assert r["score"] == by_model.loc[r["model"], f"{prefix}score_pct"]
        ordered = sorted(rows, key=lambda r: (r["n_hints"], r["rank"]))
        assert all(a["score"] >= b["score"] for a, b in zip(ordered, ordered[1:]) if a["n_hints"] == b["n_hints"])
