"""The README is for users: no issue numbers (in it or in docs/), no dated measurements or load
averages, and its one short table of figures is rebuilt from the table `make bench` rewrites in
docs/performance.md (scripts/bench.py)."""

from __future__ import annotations

import importlib.util
import re
import sys

from helpers import ROOT


def _bench():
    spec = importlib.util.spec_from_file_location("bench_script", ROOT / "scripts" / "bench.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_script"] = module
    spec.loader.exec_module(module)
    return module


bench = _bench()


def test_no_issue_numbers_in_the_readme_or_docs():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in pages
             for m in re.finditer(r"(?i)\bissues?[ -]?#?\d+", p.read_text())]
    assert not found, found


def test_the_readme_has_no_dated_measurement_log():
    readme = (ROOT / "README.md").read_text()
    assert not re.findall(r"20\d\d-\d\d-\d\d", readme), "dates belong to docs/performance.md"
    assert not re.findall(r"(?i)\bload average|\bload \d+\.\d", readme), "load averages belong to docs/performance.md"
    assert "the same day" not in readme and "second session" not in readme
    assert readme.count("\n| what | figure |") == 1  # one table of figures


def test_the_readme_figures_are_the_performance_page_rows():
    readme = (ROOT / "README.md").read_text()
    page = (ROOT / "docs" / "performance.md").read_text()
    start = readme.index(bench.README_BEGIN)
    shown = readme[readme.index("\n", start) + 1:readme.index(bench.README_END)].strip()
    assert shown == bench.readme_table(page)
    assert len(bench.README_ROWS) <= 8  # a handful: the rest is docs/performance.md's


def test_the_readme_figures_are_rebuilt_from_the_page():
    page = (ROOT / "docs" / "performance.md").read_text()
    key = bench.README_ROWS[0]
    edited = re.sub(rf"(\| {re.escape(key)}[^|]*\| )[^|]*", r"\g<1>1 s, 19 stages ", page, count=1)
    readme = f"intro\n{bench.README_BEGIN}: keep\n| old |\n{bench.README_END}\nrest\n"
    rebuilt = bench.rewrite_readme(readme, edited)
    assert "| 1 s, 19 stages |" in rebuilt and "| old |" not in rebuilt and rebuilt.endswith(f"{bench.README_END}\nrest\n")


def test_every_row_bench_writes_is_in_the_table():
    table = bench.table((ROOT / "docs" / "performance.md").read_text())
    whats = {bench._cells(line)[0] for line in table.splitlines() if line.startswith("| ")}
    written = {bench.LAYTON, bench.EXACT, bench.TWO_SPLITS, bench.LEADERBOARD, bench.THROUGHPUT, bench.FROM_CACHE,
               bench.REPORT_BUILD, bench.REPORT_RENDER, bench.FULL, bench.NOOP, bench.ADD_ONE, bench.WALL_TIME,
               bench.COVERAGE}
    assert written <= whats, written - whats


# What the benchmarks print (their own print statements, figures changed).
OUTPUTS = {
    "ppi_speed": """inputs: synthetic (9 models x 186 riddles; x not found)

1. layton mode, B = 10000, field both_correct, 9 models
  reference (pandas + ppi_py): 61.000 ms per replicate, measured at B=200 over 3 models
  sideways layton: 1.712 ms per model
  ratio: 7,123x faster (target >= 1000x)

2. 2 splits x 20 models, B = 10,000, with Parquet I/O
  0.151 s (target < 0.5 s)

3. exact mode
  sideways exact: 1.234 ms per model (target < 5 ms)

4. `sideways leaderboard` (layton, B = 10,000), fresh process
  0.43 s wall (target < 3 s)
""",
    "throughput": """cold run 1: 1.800 s, 556 req/s = 86.8% of 640; 1000 sent, 1000 cache records; client CPU 0.90 ms/request
caches under /tmp
median cold: 560 req/s = 87.5% of the concurrency bound (target >= 90%)
calibration, minimal aiohttp client on the same server: 590 req/s = 92.2%
rerun from the cache: 0.210 s (target < 1 s), 0 requests sent (target 0); rows identical: True
""",
    "report": """50 models x 500 riddles per split (vlm with pictures), 198 exam questions: 552 files, 12.9 MB
raters' audit in the calibrate stage (metrics/audit/<split>.json): 21.40 s CPU, every split
build (python stages/report.py, Parquet reads included): 3.10 s wall, 2.70 s CPU (target < 10 s; load average 2.0 on 2 cores)
first render in Chromium (navigation start to leaderboard drawn): median 110 ms, range 90-130 ms (target < 1000 ms)
first contentful paint: median 90 ms
explorer first cards (tab click to first card filled): median 320 ms
exam page first question cards (tab click to first card filled): median 270 ms
""",
    "scaling": """models | stages | full repro | commands alone | no-op repro | dvc status | add one model | full / model
6 | 17 | 15.3 | 11.7 | 0.9 | 0.7 | 11.7 | 2.55
6 models: peak 268 MB in the full repro, CPU 29 s in the full repro and 20.0 s in add one; load before 5.14 2.61 1.66
48 | 17 | 43.0 | 35.8 | 1.0 | 0.8 | 23.9 | 0.90
48 models: peak 387 MB in the full repro, CPU 55 s in the full repro and 30.0 s in add one; load before 3.66 2.74 1.79
seconds, 1 run each; load average after: 2.20 1.00 0.50, 2 cores
""",
    "wall_time": """L = 240 s, k = 3 batch judges per panel, splits llm and vlm, 0 online model(s) besides
  M    wall s   wall/L  batches  most in flight  rounds  wall - rounds x L  per provider
 16     564.7     2.35      176             128       2               84.7  openai 64
""",
    "remote_growth": """version 1: 154 objects, 1,997 KB; run-cache 17 entries, 33 KB
version 2 (atlas-mini skill 0.9): +41 objects, +355 KB; run-cache +12 entries, +27 KB
per version: 382 KB (19% of the first)
sideways push: 9.3 s, 10.0 s; verify only: 5.2 s; dvc push --all-commits (2 commits, nothing to send): 7.7 s
""",
    "interval_coverage": """6 models, judges default, self-bias default, riddles llm 36, vlm 20, seeds 0..199

share 0.1667, kappa 4:
llm  latent     coverage  90.0% ± 1.2  (1200 intervals, 200/200 runs complete)  mean half-width 7.10 points
llm  v1         coverage  97.0% ± 1.2  (1200 intervals, 200/200 runs complete)  mean half-width 9.10 points
llm  layton     coverage  62.5% ± 3.4  (1200 intervals, 200/200 runs complete)  mean half-width 5.00 points
vlm  latent     coverage  99.0% ± 1.2  (1200 intervals, 200/200 runs complete)  mean half-width 7.10 points
vlm  v1         coverage 100.0% ± 0.0  (1200 intervals, 200/200 runs complete)  mean half-width 9.10 points
vlm  layton     coverage  98.0% ± 1.0  (1200 intervals, 200/200 runs complete)  mean half-width 5.00 points

365.2 s wall for 200 seeds x 2 splits x 3 cell(s); load average 5.00 at the start, 6.00 at the end (2 cores)
""",
    "rank_coverage": """6 models, share 0.5, posterior latent, 1000 joint draws, seeds 0..39; Setting(models=None)
llm  rank set    every true rank inside: 100.0% ± 0.0   each model's: 100.0%   mean size 2.25 ranks
llm  joint set   every true rank inside: 100.0% ± 0.0   each model's: 100.0%   mean size 2.25 ranks
llm  rank spread every true rank inside: 100.0% ± 0.0   each model's: 100.0%   mean size 2.60 ranks
vlm  rank set    every true rank inside:  95.0% ± 3.4   each model's:  99.2%   mean size 2.88 ranks
vlm  joint set   every true rank inside:  95.0% ± 3.4   each model's:  99.2%   mean size 2.88 ranks
vlm  rank spread every true rank inside: 100.0% ± 0.0   each model's: 100.0%   mean size 3.25 ranks
533.0 s wall; load average 10.82 at the start, 6.50 at the end (2 cores)
""",
    "annotation_load": (
        "log of  1,000 lines:   365.4 labels/s (10 s, 20 clients; start, replaying the log: 16.71 s; answers 5xx: 0)\n"
        "log of 50,000 lines:   350.3 labels/s (10 s, 20 clients; start, replaying the log: 20.29 s; answers 5xx: 0)\n"
        "kill -9 at 30 s of 60 s, 20 clients: 12573 labels acknowledged (209.5/s), 12575 lines on disk;\n"
        "  lost 0, duplicated 0, 5xx 0; answers {200: 25154}\n"),
    "spending_cap": """within: replies of 300 tokens, estimate $0.8073, cap $0.8477: 100 of 100 sent, spent $0.5058 \
(completed; one request's worst case $0.0639)
over: replies of 300 tokens, estimate $0.8073, cap $0.4037: refused by the estimate check, 0 of 100 sent
midway: replies of 1000 tokens, estimate $0.8073, cap $0.9688: 59 of 100 sent, spent $0.9188 (stopped, cap - spent \
$0.0500; one request's worst case $0.0639)
""",
    "dead_endpoint": """closed port: 33 items failed in 8.7 s; first error: endpoint unreachable for 8s: Unreachable
always 503: 33 items failed in 5.0 s after 15 attempts; first error: provider down: 15 server errors in a row
""",
    "subset_coverage": """world misspecified (seed 0): 30 models x 600 items; 200 samples per model and k
estimator           k  coverage     se  half-width    rmse  vs random
stratified_ppi     25     95.5%    0.3       19.38    8.77      1.00x
random             25     94.4%    0.3       19.38    9.50      1.00x
stratified_ppi    200     95.4%    0.3        5.22    2.59      0.95x
random            200     94.9%    0.3        5.48    2.79      1.00x
(112.5 s; half-width and rmse in points of the exam score)
""",
    "rater_audit_cost": """\
project: 60 riddles x 6 models, 401 labels by 5 annotators (data/labels/llm.jsonl); medians of 5 fresh processes
calibrate stage (scores and the record): 4.4 s CPU, 6.0 s wall
command start (sideways --help): 1.4 s CPU, 1.7 s wall
annotate stats (5 annotators: 6 latent fits): 3.9 s CPU, 6.0 s wall
show --judges reading the record: 1.8 s CPU, 3.6 s wall
show --judges computing it: 2.1 s CPU, 4.2 s wall
load average 4.5-5.0
""",
}


def test_each_benchmark_output_becomes_its_rows():
    rows = {}
    for b in bench.BENCHMARKS:
        rows |= b.rows(OUTPUTS[b.name])
    assert rows[bench.LAYTON] == "1.7 ms per model, about 7,123x the straightforward per-replicate procedure"
    assert rows[bench.TWO_SPLITS] == "0.15 s" and rows[bench.LEADERBOARD] == "0.4 s wall"
    assert "87.5%" in rows[bench.THROUGHPUT] and "not reached" in rows[bench.THROUGHPUT]
    assert rows[bench.ANNOTATION_LOAD] == ("365 labels/s with 1,000 lines in the label log, 350 with 50,000 "
                                           "(the start, which replays the log: 20.3 s)")
    assert rows[bench.ANNOTATION_KILL] == "12,573 labels acknowledged: 0 lost, 0 duplicated, 0 answers 5xx"
    assert rows[bench.FROM_CACHE] == "0.21 s, 0 requests sent"
    assert rows[bench.REPORT_RENDER].startswith("110 ms median")
    assert rows[bench.REPORT_BUILD] == ("552 files, 12.9 MB; build 3.10 s wall, 2.70 s CPU (target 10 s); the raters' "
                                        "audit it reads, computed in calibrate: 21.4 s CPU over both splits")
    assert rows[bench.FULL] == "15.3 / 43.0 s (the stage commands alone: 11.7 / 35.8 s)"
    assert rows[bench.ADD_ONE] == "11.7 / 23.9 s wall, 20.0 / 30.0 s CPU (1.50x; target 1.5x)"
    assert rows[bench.WALL_TIME] == "2.35 L (target 2.5 L), 176 batches in 2 rounds"
    assert bench.default_posterior() == "latent"  # the sample prints v1 beside latent: the row reads params' one
    assert rows[bench.COVERAGE] == "90-99% / 62.5-98%, in 365 s"
    assert rows[bench.RANK_COVERAGE] == "95-100% / 100-100% (stated: 95%), mean size 2.25-2.88 / 2.60-3.25 ranks, in 533 s"
    assert rows[bench.CAP_WITHIN] == "100 of 100 sent (completed); estimate over the cap: 0 sent"
    assert rows[bench.CAP_MIDWAY] == "stopped $0.0500 under the cap, one request's worst case $0.0639"
    assert rows[bench.DEAD_PORT] == "failed in 8.7 s" and rows[bench.DEAD_503] == "failed in 5.0 s after 15 attempts"
    assert rows[bench.REMOTE_GROWTH].startswith("first version 1,997 KB (154 objects) + run-cache 33 KB; each next +355 KB")
    assert rows[bench.RATER_AUDIT] == ("3.9 s / 1.8 s CPU reading calibrate's record of the audit (2.1 s computing it; "
                                       "1.4 s of each the command's start); `annotate stats` fits the latent model 6 "
                                       "times (each annotator's, and the pair rule's)")
    assert rows[bench.PUSH_TIME] == "9.3 s first, 10.0 s next; verification alone 5.2 s; `dvc push --all-commits` on 2 commits 7.7 s"
    assert rows["exam on a sample, misspecified world, 30 models x 600 items, each held out, 200 samples "
                "(`subset_coverage.py --world misspecified`)"] == ("coverage 95.4-95.5% at k = 25-200 (random "
                                                                   "94.4-94.9%), half-width 0.95-1.00x random's, "
                                                                   "in 112 s")


def test_rewrite_replaces_its_rows_keeps_hand_rows_and_appends_new_ones():
    text = ("intro\n<!-- bench:begin -->\n| what | figure | measured |\n|---|---|---|\n"
            "| by hand | 9 min | 2026-11-25 |\n| ours | old | then |\n<!-- bench:end -->\nafter\n")
    out = bench.rewrite(text, {"ours": ("new", "now"), "more": ("1 s", "now")})
    assert out == ("intro\n<!-- bench:begin -->\n| what | figure | measured |\n|---|---|---|\n"
                   "| by hand | 9 min | 2026-11-25 |\n| ours | new | now |\n| more | 1 s | now |\n"
                   "<!-- bench:end -->\nafter\n")
