"""What the raters' audit costs in the commands: `sideways annotate stats` (every annotator's fit, and the fit the
pair rule reads the disputed predictions from) and `sideways show --judges` (reading the calibrate stage's record,
and computing it without one), against the command's own start.

Usage:
  python benchmarks/rater_audit_cost.py [--riddles R] [--repeats N]

The project (lab.audit_project): the llm split of params.yaml's default world, R riddles (default 60)
x its 6 models, every prediction labelled by five annotators (three careful, one careless, one random; a careful
second label on 10% of them) in data/labels/llm.jsonl, the calibrate stage run once to write its record. Each command
runs N times (default 5) as a fresh process; the CPU time (user + system, the process and its children) and the wall
time are the medians. Seeded: the same project every run.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from lab.annotators import team  # noqa: E402
from lab.audit_project import audit_project  # noqa: E402
from sideways.artifacts import paths  # noqa: E402


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--riddles", type=int, default=60, help="riddles of the split (default: 60)")
    p.add_argument("--repeats", type=int, default=5, help="runs of each command (default: 5)")
    return p.parse_args(argv)


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``argv``, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def _median(argv: list[str], cwd: Path, env: dict[str, str], repeats: int) -> tuple[float, float]:
    runs = [_timed(argv, cwd, env) for _ in range(repeats)]
    return statistics.median(c for c, _ in runs), statistics.median(w for _, w in runs)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    people = team()
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="rater-audit-cost-") as tmp:
        project = audit_project(Path(tmp) / "p", REPO, riddles=args.riddles, share=1.0, team=people)
        env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
        cli = [sys.executable, "-m", "sideways.cli"]
        calibrate = _timed([sys.executable, str(REPO / "stages" / "calibrate.py"), "--split", "llm"], project, env)
        predictions = sum(1 for _ in (project / paths.predictions("llm", "x")).parent.glob("*.parquet"))
        labels = sum(1 for line in (project / paths.LABELS / "llm.jsonl").read_text().splitlines() if line.strip())
        start = _median([*cli, "--help"], project, env, args.repeats)
        stats = _median([*cli, "annotate", "stats", "--split", "llm"], project, env, args.repeats)
        judges = _median([*cli, "show", "--judges"], project, env, args.repeats)
        record = project / paths.audit("llm")
        shutil.move(record, Path(tmp) / "record.json")
        computed = _median([*cli, "show", "--judges"], project, env, args.repeats)
    load1 = os.getloadavg()[0]
    print(f"project: {args.riddles} riddles x {predictions} models, {labels} labels by {len(people)} annotators "
          f"(data/labels/llm.jsonl); medians of {args.repeats} fresh processes")
    print(f"calibrate stage (scores and the record): {calibrate[0]:.1f} s CPU, {calibrate[1]:.1f} s wall")
    print(f"command start (sideways --help): {start[0]:.1f} s CPU, {start[1]:.1f} s wall")
    print(f"annotate stats ({len(people)} annotators: {len(people) + 1} latent fits): {stats[0]:.1f} s CPU, "
          f"{stats[1]:.1f} s wall")
    print(f"show --judges reading the record: {judges[0]:.1f} s CPU, {judges[1]:.1f} s wall")
    print(f"show --judges computing it: {computed[0]:.1f} s CPU, {computed[1]:.1f} s wall")
    print(f"load average {min(load0, load1):.1f}-{max(load0, load1):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
