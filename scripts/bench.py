"""Run the benchmarks in benchmarks/ and rewrite the figures table they measure (`make bench`).

The table sits between the markers ``<!-- bench:begin`` and ``<!-- bench:end -->`` in
docs/performance.md; README.md carries a few of its rows, figures only (``README_ROWS``, between
``<!-- figures:begin`` and ``<!-- figures:end -->``), rebuilt from it. Each benchmark below prints its figures; this
script runs it (bounded arguments), reads the figures out of its output, and rewrites the
figure and "measured" cells of the rows it owns, keyed by the row's first cell. Rows measured
by hand (a fresh clone's ``make test``, for instance) are kept as they are; a row of ours that is
missing is appended. A benchmark that fails to print its figures leaves its rows untouched and
makes the script exit 1, naming it.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE, README = ROOT / "docs" / "performance.md", ROOT / "README.md"
BEGIN, END = "<!-- bench:begin", "<!-- bench:end -->"
README_BEGIN, README_END = "<!-- figures:begin", "<!-- figures:end -->"

Rows = dict[str, str]


@dataclass(frozen=True)
class Benchmark:
    """A script of benchmarks/, its arguments, and how its output becomes table rows."""

    name: str
    argv: tuple[str, ...]
    rows: Callable[[str], Rows]


def _find(pattern: str, text: str, flags: int = 0) -> str:
    m = re.search(pattern, text, flags)
    if m is None:
        raise ValueError(f"no match for {pattern!r}")
    return m.group(1)


def _num(pattern: str, text: str, flags: int = 0) -> float:
    return float(_find(pattern, text, flags).replace(",", ""))


LAYTON = "calibration, `layton` mode, B = 10,000 (`ppi_speed.py`)"
EXACT = "calibration, `exact` mode (`ppi_speed.py`)"
TWO_SPLITS = "2 splits x 20 models at B = 10,000, Parquet I/O included (`ppi_speed.py`)"
LEADERBOARD = "`sideways leaderboard` on the published LLM file (`ppi_speed.py`)"


def ppi_speed_rows(out: str) -> Rows:
    ratio = _num(r"ratio: ([\d,]+)x faster", out)
    layton, exact = _num(r"sideways layton: ([\d.]+) ms", out), _num(r"sideways exact: ([\d.]+) ms", out)
    two = _num(r"2 splits x 20 models.*\n\s+([\d.]+) s", out)
    wall = _num(r"fresh process\n\s+([\d.]+) s wall", out)
    return {
        LAYTON: f"{layton:.1f} ms per model, about {ratio:,.0f}x the straightforward per-replicate procedure",
        EXACT: f"{exact:.1f} ms per model",
        TWO_SPLITS: f"{two:.2f} s",
        LEADERBOARD: f"{wall:.1f} s wall",
    }


THROUGHPUT = ("openai-compatible backend, 1,000 requests at concurrency 32 against a local server with 50 ms "
              "latency (`throughput.py`)")
FROM_CACHE = "the same 1,000 requests rerun from the request cache (`throughput.py`)"


def throughput_rows(out: str) -> Rows:
    ours = _num(r"median cold: \d+ req/s = ([\d.]+)%", out)
    bare = _num(r"minimal aiohttp client on the same server: \d+ req/s = ([\d.]+)%", out)
    warm, resent = _num(r"rerun from the cache: ([\d.]+) s", out), _num(r"(\d+) requests sent", out)
    verdict = "met" if ours >= 90 else "not reached"
    return {
        THROUGHPUT: f"median {ours:.1f}% of the 640 req/s bound over 5 cold runs (target 90%: {verdict}; "
                    f"a bare aiohttp loop: {bare:.1f}%)",
        FROM_CACHE: f"{warm:.2f} s, {resent:.0f} requests sent",
    }


CAP_WITHIN = "spending cap, 100 requests whose estimate fits the cap (+5%), worst case ~8x expected (`spending_cap.py`)"
CAP_MIDWAY = "spending cap reached midway: answers twice as long as estimated, cap = estimate + 20% (`spending_cap.py`)"


def spending_cap_rows(out: str) -> Rows:
    sent, items = _num(r"within: .*?: (\d+) of \d+ sent", out), _num(r"within: .*? of (\d+) sent", out)
    over = _num(r"over: .*?, (\d+) of \d+ sent", out)
    left, worst = _num(r"midway: .*?cap - spent \$([\d.]+)", out), _num(r"midway: .*?worst case \$([\d.]+)", out)
    return {
        CAP_WITHIN: f"{sent:.0f} of {items:.0f} sent (completed); estimate over the cap: {over:.0f} sent",
        CAP_MIDWAY: f"stopped ${left:.4f} under the cap, one request's worst case ${worst:.4f}",
    }


DEAD_PORT = "a job of 33 items against a closed port, default retries (`dead_endpoint.py`)"
DEAD_503 = "a job of 33 items against a server answering 503 to everything, default retries (`dead_endpoint.py`)"


def dead_endpoint_rows(out: str) -> Rows:
    port = _num(r"closed port: \d+ items failed in ([\d.]+) s", out)
    down, attempts = _num(r"always 503: \d+ items failed in ([\d.]+) s", out), _num(r"after (\d+) attempts", out)
    return {DEAD_PORT: f"failed in {port:.1f} s", DEAD_503: f"failed in {down:.1f} s after {attempts:.0f} attempts"}


REPORT_BUILD = "report, 50 models x 500 riddles per split and an exam of 198 questions (`report.py`)"
REPORT_RENDER = "report, first render in headless Chromium at that size (`report.py`)"


def report_rows(out: str) -> Rows:
    wall, cpu = _num(r"build .*?: ([\d.]+) s wall", out), _num(r"s wall, ([\d.]+) s CPU", out)
    files, mb = _num(r"questions: ([\d,]+) files", out), _num(r" files, ([\d.]+) MB", out)
    first = _num(r"first render .*?median (\d+) ms", out)
    paint = _num(r"first contentful paint: median (\d+)", out)
    explorer = _num(r"explorer first cards .*?median (\d+)", out)
    audit = _num(r"raters' audit in the calibrate stage .*?: ([\d.]+) s CPU", out)
    return {
        REPORT_BUILD: f"{files:,.0f} files, {mb:.1f} MB; build {wall:.2f} s wall, {cpu:.2f} s CPU (target 10 s); "
                      f"the raters' audit it reads, computed in calibrate: {audit:.1f} s CPU over both splits",
        REPORT_RENDER: f"{first:.0f} ms median (target 1 s); first contentful paint {paint:.0f} ms; "
                       f"explorer's first cards {explorer:.0f} ms after the tab click",
    }


FULL = "full `dvc repro`, 6 / 48 simulated models (`scaling.py`)"
NOOP = "no-op `dvc repro`, and `dvc status`, 6 / 48 models (`scaling.py`)"
ADD_ONE = "`dvc repro` after adding one model, 6 / 48 models (`scaling.py`)"


def scaling_rows(out: str) -> Rows:
    """scaling.py prints ``models | stages | full | commands | no-op | status | add one | per model``."""
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == 8 and cells[0].isdigit():
            rows[int(cells[0])] = [float(c) for c in cells[2:7]]
    six, many = rows[6], rows[48]
    add_one = f"{six[4]:.1f} / {many[4]:.1f} s wall"
    cpu = dict(re.findall(r"^(\d+) models: .*? and ([\d.]+) s in add one", out, re.M))
    if "6" in cpu and "48" in cpu:  # CPU seconds: steadier than the clock on a shared machine
        low, high = float(cpu["6"]), float(cpu["48"])
        add_one += f", {low:.1f} / {high:.1f} s CPU ({high / low:.2f}x; target 1.5x)"
    return {
        FULL: f"{six[0]:.1f} / {many[0]:.1f} s (the stage commands alone: {six[1]:.1f} / {many[1]:.1f} s)",
        NOOP: f"{six[2]:.1f} / {many[2]:.1f} s, and {six[3]:.1f} / {many[3]:.1f} s",
        ADD_ONE: add_one,
    }


WALL_TIME = ("paid stages against fake batch providers, 16 batch models, batches done L = 240 s after creation "
             "(`wall_time.py`)")


def wall_time_rows(out: str) -> Rows:
    m = re.search(r"^\s*16\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)", out, re.M)
    if m is None:
        raise ValueError("no row for M = 16")
    return {WALL_TIME: f"{float(m.group(2)):.2f} L (target 2.5 L), {m.group(3)} batches in {m.group(5)} rounds"}


COVERAGE = ("coverage of the default posterior interval / the published one, simulated, 200 seeds x 2 "
            "splits at params.yaml's settings (`interval_coverage.py`)")


def coverage_rows(out: str) -> Rows:
    def span(name: str) -> str:
        values = [float(v) for v in re.findall(rf"^\S+\s+{name}\s+coverage\s+([\d.]+)%", out, re.M)]
        if not values:
            raise ValueError(f"no coverage line for {name}")
        return f"{min(values):g}-{max(values):g}%"
    seconds = _num(r"([\d.]+) s wall", out)
    return {COVERAGE: f"{span(default_posterior())} / {span('layton')}, in {seconds:.0f} s"}


RANK_COVERAGE = ("95% rank sets / layton-eval's rank spread: runs holding every true rank at once, simulated, "
                 "40 seeds x 2 splits at params.yaml's settings (`rank_coverage.py`)")


def rank_coverage_rows(out: str) -> Rows:
    def span(name: str) -> tuple[str, str]:
        found = re.findall(rf"^\S+\s+{name}\s+every true rank inside:\s+([\d.]+)%.*mean size ([\d.]+) ranks", out, re.M)
        if not found:
            raise ValueError(f"no line for the {name}")
        inside, size = [float(v) for v, _ in found], [float(s) for _, s in found]
        return f"{min(inside):g}-{max(inside):g}%", f"{min(size):.2f}-{max(size):.2f}"
    (sets, set_size), (spread, spread_size) = span("rank set"), span("rank spread")
    seconds = _num(r"([\d.]+) s wall", out)
    return {RANK_COVERAGE: f"{sets} / {spread} (stated: 95%), mean size {set_size} / {spread_size} ranks, "
                           f"in {seconds:.0f} s"}
ANNOTATION_LOAD = "annotation app, 20 clients over HTTP, 60,000 predictions (`annotation_load.py`)"
ANNOTATION_KILL = "annotation app, 20 clients x 60 s, kill -9 at 30 s (`annotation_load.py --kill 60`)"


def annotation_rows(out: str) -> Rows:
    runs = re.findall(r"log of\s+([\d,]+) lines:\s+([\d.]+) labels/s.*?replaying the log: ([\d.]+) s", out)
    if len(runs) < 2:
        raise ValueError("fewer than two log lengths")
    (small, small_rate, _), (large, large_rate, start) = runs[0], runs[-1]
    acked = _num(r"clients: (\d+) labels acknowledged", out)
    lost, dup, bad = (_num(rf"{w} (\d+)", out) for w in ("lost", "duplicated", "5xx"))
    return {
        ANNOTATION_LOAD: f"{float(small_rate):.0f} labels/s with {small} lines in the label log, "
                         f"{float(large_rate):.0f} with {large} "
                         f"(the start, which replays the log: {float(start):.1f} s)",
        ANNOTATION_KILL: f"{acked:,.0f} labels acknowledged: {lost:.0f} lost, {dup:.0f} duplicated, "
                         f"{bad:.0f} answers 5xx",
    }


REMOTE_GROWTH = ("DVC remote's growth per pushed version, the simulated default, then one model's skill changed "
                 "(`remote_growth.py`)")
PUSH_TIME = "`make push` (`sideways push`: push, then every object dvc.lock names looked up on the remote)"


def remote_growth_rows(out: str) -> Rows:
    first = re.search(r"^version 1: (\d+) objects, ([\d,]+) KB; run-cache (\d+) entries, ([\d,]+) KB", out, re.M)
    step = re.search(r"^version 2 .*: \+(\d+) objects, \+([\d,]+) KB; run-cache \+(\d+) entries, \+([\d,]+) KB", out,
                     re.M)
    if first is None or step is None:
        raise ValueError("no version lines")
    share = _find(r"^per version: [\d,]+ KB \((\d+)% of the first\)", out, re.M)
    pushes = re.search(r"^sideways push: ([\d.]+) s, ([\d.]+) s; verify only: ([\d.]+) s; "
                       r"dvc push --all-commits \(2 commits, nothing to send\): ([\d.]+) s", out, re.M)
    if pushes is None:
        raise ValueError("no timing line")
    return {
        REMOTE_GROWTH: f"first version {first[2]} KB ({first[1]} objects) + run-cache {first[4]} KB; each next "
                       f"+{step[2]} KB ({step[1]} objects) + run-cache {step[4]} KB, {share}% of the first",
        PUSH_TIME: f"{pushes[1]} s first, {pushes[2]} s next; verification alone {pushes[3]} s; "
                   f"`dvc push --all-commits` on 2 commits {pushes[4]} s",
    }


def subset_rows(out: str) -> Rows:
    """One row per drawn world of subset_coverage.py: the default's coverage and width against random's."""
    world = _find(r"^world (\S+) \(seed", out, re.M)
    models, items, repeats = (int(_num(p, out)) for p in (r"(\d+) models x", r"x (\d+) items", r"; (\d+) samples"))
    rows = re.findall(r"^(\S+)\s+(\d+)\s+([\d.]+)%\s+[\d.]+\s+([\d.]+)\s+[\d.]+\s+([\d.]+)x$", out, re.M)
    ours = [(int(k), float(c), float(r)) for name, k, c, _, r in rows if name != "random"]
    plain = [float(c) for name, _, c, _, _ in rows if name == "random"]
    if not ours or not plain:
        raise ValueError("no estimator rows")
    ks, cover, ratio = [k for k, _, _ in ours], [c for _, c, _ in ours], [r for _, _, r in ours]
    what = (f"exam on a sample, {world} world, {models} models x {items} items, each held out, {repeats} samples "
            f"(`subset_coverage.py --world {world}`)")
    return {what: f"coverage {min(cover):g}-{max(cover):g}% at k = {min(ks)}-{max(ks)} (random "
                  f"{min(plain):g}-{max(plain):g}%), half-width {min(ratio):.2f}-{max(ratio):.2f}x random's, "
                  f"in {_num(r'\(([\d.]+) s;', out):.0f} s"}


RATER_AUDIT = ("`sideways annotate stats` with the annotator audit (5 annotators, 360 predictions), `sideways show "
               "--judges` (`rater_audit_cost.py`)")


def rater_audit_rows(out: str) -> Rows:
    fits = int(_num(r"annotate stats \(\d+ annotators: (\d+) latent fits\)", out))
    stats = _num(r"annotate stats \(.*?\): ([\d.]+) s CPU", out)
    record = _num(r"show --judges reading the record: ([\d.]+) s CPU", out)
    computed = _num(r"show --judges computing it: ([\d.]+) s CPU", out)
    start = _num(r"command start \(sideways --help\): ([\d.]+) s CPU", out)
    figure = (f"{stats:.1f} s / {record:.1f} s CPU reading calibrate's record of the audit ({computed:.1f} s "
              f"computing it; {start:.1f} s of each the command's start); `annotate stats` fits the latent model "
              f"{fits} times (each annotator's, and the pair rule's)")
    return {RATER_AUDIT: figure}


def default_posterior() -> str:
    """The posterior params.yaml ranks by (``calibration.posterior``): interval_coverage.py prints each by name."""
    text = (ROOT / "params.yaml").read_text(encoding="utf-8")
    return _find(r"^\s+posterior:\s*(\w+)", text, re.M)


#: the rows of the table a user of the README cares about, in its order (the first cell of each)
README_ROWS = (
    "`make repro` on a fresh clone, from nothing (environment included)",
    "`make test` on a fresh clone, environment from nothing",
    ADD_ONE,
    FROM_CACHE,
    "`sideways diff` on the demo after the experiment above (both versions read through DVC)",
    COVERAGE,
)

BENCHMARKS = (
    Benchmark("ppi_speed", (), ppi_speed_rows),
    Benchmark("throughput", (), throughput_rows),
    Benchmark("report", (), report_rows),
    Benchmark("scaling", ("--models", "6,48"), scaling_rows),
    Benchmark("wall_time", ("--models", "16", "--latency", "240"), wall_time_rows),
    Benchmark("interval_coverage", (), coverage_rows),
    Benchmark("rank_coverage", ("--seeds", "40"), rank_coverage_rows),
    Benchmark("annotation_load", ("--kill", "60"), annotation_rows),
    Benchmark("rater_audit_cost", (), rater_audit_rows),
    Benchmark("spending_cap", (), spending_cap_rows),
    Benchmark("dead_endpoint", (), dead_endpoint_rows),
    Benchmark("remote_growth", (), remote_growth_rows),
    Benchmark("subset_coverage", ("--world", "2pl"), subset_rows),
    Benchmark("subset_coverage", ("--world", "misspecified"), subset_rows),
)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def rewrite(text: str, rows: dict[str, tuple[str, str]]) -> str:
    """``text`` with the marked table's rows ``rows`` (what -> (figure, measured)) replaced or appended."""
    start = text.index(BEGIN)
    end = text.index(END, start)
    head, body = text[:start], text[start:end].rstrip("\n").split("\n")
    left = dict(rows)
    for i, line in enumerate(body):
        if line.startswith("| ") and (what := _cells(line)[0]) in left:
            figure, measured = left.pop(what)
            body[i] = f"| {what} | {figure} | {measured} |"
    body += [f"| {what} | {figure} | {measured} |" for what, (figure, measured) in left.items()]
    return head + "\n".join(body) + "\n" + text[end:]


def table(text: str) -> str:
    """The marked table of ``text``, markers included."""
    start = text.index(BEGIN)
    return text[start:text.index(END, start) + len(END)]


def readme_table(page: str) -> str:
    """README's table: the ``README_ROWS`` of the page's table (by the start of their first cell), figures only."""
    lines = table(page).splitlines()
    rows = [_cells(line) for line in lines if line.startswith("| ") and not line.startswith("| what")]
    picked = []
    for key in README_ROWS:
        found = [cells for cells in rows if cells[0].startswith(key)]
        if len(found) != 1:
            raise ValueError(f"docs/performance.md: {len(found)} rows start with {key!r}")
        picked.append(f"| {found[0][0]} | {found[0][1]} |")
    return "\n".join(["| what | figure |", "|---|---|", *picked])


def rewrite_readme(readme: str, page: str) -> str:
    """``readme`` with its figures table rebuilt from the page's (markers kept)."""
    start = readme.index(README_BEGIN)
    head_end = readme.index("\n", start) + 1
    end = readme.index(README_END, head_end)
    return readme[:head_end] + readme_table(page) + "\n" + readme[end:]


def run(bench: Benchmark) -> dict[str, tuple[str, str]]:
    """Run one benchmark; its rows with the date and the load average around the run."""
    load0 = os.getloadavg()[0]
    print(f"== benchmarks/{bench.name}.py {' '.join(bench.argv)}", flush=True)
    done = subprocess.run([sys.executable, f"benchmarks/{bench.name}.py", *bench.argv], cwd=ROOT,
                          stdout=subprocess.PIPE, text=True)
    print(done.stdout, end="", flush=True)
    load1 = os.getloadavg()[0]
    measured = f"{datetime.date.today().isoformat()}, load {min(load0, load1):.1f}-{max(load0, load1):.1f}"
    return {what: (figure, measured) for what, figure in bench.rows(done.stdout).items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="+", choices=[b.name for b in BENCHMARKS], help="run only these")
    p.add_argument("--dry-run", action="store_true", help="print the rows, change no file")
    args = p.parse_args(argv)
    rows: dict[str, tuple[str, str]] = {}
    failed = []
    t0 = time.perf_counter()
    for bench in BENCHMARKS:
        if args.only and bench.name not in args.only:
            continue
        try:
            rows |= run(bench)
        except ValueError as e:
            failed.append(f"{bench.name}: its output has no figures ({e})")
    for what, (figure, measured) in rows.items():
        print(f"| {what} | {figure} | {measured} |")
    if rows and not args.dry_run:
        PAGE.write_text(rewrite(PAGE.read_text(), rows))
        README.write_text(rewrite_readme(README.read_text(), PAGE.read_text()))
        print(f"rewrote {len(rows)} rows in docs/performance.md, and README.md's figures from it")
    print(f"{time.perf_counter() - t0:.0f} s")
    for line in failed:
        print(line, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
