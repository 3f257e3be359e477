"""`make bench` reads the figures out of each benchmark's output (scripts/bench.py): run the benchmarks
whose output format drifted unseen (the report benchmark wrote the exam's tables where the report no
longer reads them; the coverage parser looked for a posterior named "posterior") at tiny sizes, and
hand their real output to the parsers."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from helpers import ROOT
from helpers.browser import INSTALL_HINT, find_chromium
from test_readme import bench


def _run(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_coverage_row_reads_the_default_posterior_of_params():
    out = _run("interval_coverage.py", "--seeds", "2", "--share", "0.5")
    row = bench.coverage_rows(out)[bench.COVERAGE]
    default = bench.default_posterior()
    assert f"{default} " in out
    assert row.endswith(" s") and "% / " in row, row


def test_the_rank_coverage_row_reads_the_rank_set_and_the_rank_spread():
    out = _run("rank_coverage.py", "--seeds", "1", "--models", "3", "--replicates", "200")
    row = bench.rank_coverage_rows(out)[bench.RANK_COVERAGE]
    assert re.fullmatch(r"[\d.]+-[\d.]+% / [\d.]+-[\d.]+% \(stated: 95%\), mean size [\d.]+-[\d.]+ / "
                        r"[\d.]+-[\d.]+ ranks, in \d+ s", row), row


@pytest.mark.skipif(find_chromium() is None, reason=INSTALL_HINT)
def test_the_report_rows_read_the_report_benchmark():
    out = _run("report.py", "--models", "3", "--riddles", "12", "--questions", "10")
    rows = bench.report_rows(out)
    assert " files, " in rows[bench.REPORT_BUILD] and "s CPU (target 10 s)" in rows[bench.REPORT_BUILD]
    assert "ms median" in rows[bench.REPORT_RENDER]


def test_the_annotation_rows_read_the_annotation_load_benchmark():
    out = _run("annotation_load.py", "--riddles", "2000", "--lines", "10", "1000", "--seconds", "2", "--kill", "4")
    rows = bench.annotation_rows(out)
    assert " labels/s with 10 lines in the label log, " in rows[
        bench.ANNOTATION_LOAD] and " with 1,000 (the start" in rows[bench.ANNOTATION_LOAD]
    assert rows[bench.ANNOTATION_KILL].endswith(": 0 lost, 0 duplicated, 0 answers 5xx")


def test_the_sample_rows_read_the_subset_coverage_benchmark():
    out = _run("subset_coverage.py", "--world", "2pl", "--models", "5", "--items", "60", "--k", "10,20",
               "--repeats", "2")
    (what, figure), = bench.subset_rows(out).items()
    assert what.startswith("exam on a sample, 2pl world, 5 models x 60 items") and "2 samples" in what
    assert re.fullmatch(r"coverage [\d.]+-[\d.]+% at k = 10-20 \(random [\d.]+-[\d.]+%\), "
                        r"half-width [\d.]+-[\d.]+x random's, in \d+ s", figure), figure


def test_the_rater_audit_row_reads_the_rater_audit_cost_benchmark():
    out = _run("rater_audit_cost.py", "--riddles", "20", "--repeats", "1")
    (what, figure), = bench.rater_audit_rows(out).items()
    assert what == bench.RATER_AUDIT and "20 riddles x 6 models" in out
    assert re.fullmatch(r"[\d.]+ s / [\d.]+ s CPU reading calibrate's record of the audit \([\d.]+ s computing it; "
                        r"[\d.]+ s of each the command's start\); `annotate stats` fits the latent model 6 times "
                        r"\(each annotator's, and the pair rule's\)", figure), figure
