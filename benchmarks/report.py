"""Speed of the report at real sizes: 50 models x 500 riddles per split, with pictures, and an
exam of 198 questions (GPQA-Diamond's size) for the 50 models.

Prints
  0. the raters' audit the calibrate stage writes per split (metrics/audit/<split>.json; the same
     function, on the tables as the report reads them), CPU time: the scratch project holds it as
     the pipeline would;
  1. build: `python stages/report.py` in a scratch project holding the synthetic tables as
     Parquet (benchmarks/report_tables.py), wall clock and CPU time, Python start-up and Parquet
     reads included (the load average says how busy the machine was);
  2. first render in the OS Chromium (headless, through Playwright): from navigation start to the
     mark app.js sets once the leaderboard is drawn, and the browser's first contentful paint,
     medians of 5 fresh pages;
  3. the explorer's first cards (tab click to the first card filled), median of 5;
  4. the exam page's first question cards (tab click, then scrolling down past the tables, to the
     first card filled), median of 5.
Targets (issue 11): build < 10 s, first render < 1 s.

Usage: python benchmarks/report.py [--models 50] [--riddles 500] [--questions 198]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from report_tables import exam_tables, params_with_models, split_tables

from sideways.artifacts import paths
from sideways.artifacts.io import write_json, write_table
from sideways.artifacts.schema import (
    ANNOTATIONS,
    EXAM_DETAIL,
    EXAM_GRADES,
    EXAM_ITEMS,
    EXAM_PREDICTIONS,
    JUDGMENTS,
    JURY,
    PREDICTIONS,
    RIDDLES,
    SCORES,
)
from sideways.config.params import Params, raw_params
from sideways.report.inputs import read_split
from sideways.scoring.rater_audit import audit_record

REPO = Path(__file__).resolve().parents[1]


def scratch_exam(params: Params, n_questions: int, key: str = "exam") -> None:
    """Exam ``key``'s tables where the report stage reads them (sideways.report.inputs.exam_files)."""
    e = exam_tables(params, n_questions, key=key)
    write_table(e.items, EXAM_ITEMS, paths.exam_items(key))
    for m in params.models:
        mine = e.predictions[e.predictions["model"] == m.key]
        write_table(mine, EXAM_PREDICTIONS, paths.exam_predictions(key, m.key))
        write_table(e.grades[e.grades["model"] == m.key], EXAM_GRADES, paths.exam_grades(key, m.key))
        write_table(e.detail[e.detail["model"] == m.key], EXAM_DETAIL, paths.exam_detail(key, m.key))
    write_json(paths.EXAM_METRICS, {key: e.metrics})
    write_json(paths.EXAM_TOPICS, {key: e.topics})


def scratch_project(root: Path, n_models: int, n_riddles: int, n_questions: int) -> float:
    """A project folder with params.yaml and every table the report stage reads, the calibrate stage's audit
    records included; the CPU seconds those records took."""
    base = raw_params(REPO / "params.yaml")[0]
    params = params_with_models(base, n_models)
    base["exams"] = {"exam": next(iter(base["exams"].values()))}  # one exam, under the key the page test clicks
    base["models"] = {m.key: {"backend": "sim", "provider": m.provider, "name": m.name, "n_hints": 0, "skill": 0.5}
                      for m in params.models}
    (root / "params.yaml").write_text(yaml.safe_dump(base))
    os.chdir(root)
    for split in params.splits:
        t = split_tables(params, split, n_riddles)
        write_table(t.riddles, RIDDLES, paths.split_table(split))
        for key, g in t.predictions.groupby("model"):
            write_table(g, PREDICTIONS, paths.predictions(split, str(key)))
        for key, g in t.judgments.groupby("model"):
            write_table(g, JUDGMENTS, paths.judgments(split, str(key)))
        write_table(t.annotations, ANNOTATIONS, paths.annotations(split))
        write_table(t.jury, JURY, paths.jury(split))
        write_table(t.scores, SCORES, paths.scores(split))
    audit_cpu = 0.0
    for split in params.splits:  # what calibrate writes: the same function on the tables as read back
        read = read_split(params, split)
        start = time.process_time()
        record = audit_record(read.jury, read.judgments, read.annotations, read.predictions, seed=params.seed,
                              split=split)
        audit_cpu += time.process_time() - start
        write_json(paths.audit(split), record)
    scratch_exam(params, n_questions)
    return audit_cpu


def build_seconds(root: Path) -> tuple[float, float]:
    """Wall clock and CPU time (user + system) of the report stage, a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, str(REPO / "stages" / "report.py")], cwd=root, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def render_ms(index: Path, runs: int = 5) -> tuple[list[float], list[float], list[float], list[float]]:
    """First render, first contentful paint, explorer and exam page first-card times (ms), fresh
    pages of one Chromium."""
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("SIDEWAYS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        sys.exit("no Chromium found: `apt-get install chromium` (or set SIDEWAYS_CHROMIUM)")
    first: list[float] = []
    paint: list[float] = []
    explorer: list[float] = []
    exam: list[float] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        for _ in range(runs + 1):  # the first run warms the browser's own start-up; dropped
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(index.as_uri())
            page.wait_for_selector("#lb-table tbody tr")
            first.append(page.evaluate("performance.getEntriesByName('sideways:first-render')[0].startTime"))
            # the paint entry lands when the frame is presented, which on a loaded machine can be after
            # the table's rows exist: wait for it rather than read an entry that is not there yet
            # polled from here: wait_for_function's polling evaluates a string in the page, which the report's
            # Content Security Policy refuses (no 'unsafe-eval')
            deadline = time.monotonic() + 30
            while not page.evaluate("performance.getEntriesByName('first-contentful-paint').length > 0"):
                if time.monotonic() > deadline:
                    sys.exit("no first-contentful-paint entry within 30 s")
                time.sleep(0.01)
            paint.append(page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime"))
            t0 = time.perf_counter()
            page.click("#tabs button[data-tab=explorer]")
            page.wait_for_selector(".card .gold")
            explorer.append(1000 * (time.perf_counter() - t0))
            t0 = time.perf_counter()
            page.click("#tabs button[data-tab='exam/exam']")
            page.locator("section.exam .question").first.scroll_into_view_if_needed()  # below 50 models' tables
            page.wait_for_selector("section.exam .question .choices")
            exam.append(1000 * (time.perf_counter() - t0))
            page.close()
        browser.close()
    return first[1:], paint[1:], explorer[1:], exam[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--riddles", type=int, default=500)
    parser.add_argument("--questions", type=int, default=198)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        audit_cpu = scratch_project(root, args.models, args.riddles, args.questions)
        build, cpu = build_seconds(root)
        files = [p for p in (root / "report").rglob("*") if p.is_file()]
        mb = sum(p.stat().st_size for p in files) / 1e6
        first, paint, explorer, exam = render_ms(root / "report" / "index.html")
    load = os.getloadavg()[0]
    print(f"{args.models} models x {args.riddles} riddles per split (vlm with pictures), "
          f"{args.questions} exam questions: {len(files)} files, {mb:.1f} MB")
    print(f"raters' audit in the calibrate stage (metrics/audit/<split>.json): {audit_cpu:.2f} s CPU, "
          f"every split")
    print(f"build (python stages/report.py, Parquet reads included): {build:.2f} s wall, {cpu:.2f} s CPU "
          f"(target < 10 s; load average {load:.1f} on {os.cpu_count()} cores)")
    print(f"first render in Chromium (navigation start to leaderboard drawn): "
          f"median {statistics.median(first):.0f} ms, "
          f"range {min(first):.0f}-{max(first):.0f} ms (target < 1000 ms)")
    print(f"first contentful paint: median {statistics.median(paint):.0f} ms")
    print(f"explorer first cards (tab click to first card filled): median {statistics.median(explorer):.0f} ms")
    print(f"exam page first question cards (tab click to first card filled): median {statistics.median(exam):.0f} ms")


if __name__ == "__main__":
    main()
