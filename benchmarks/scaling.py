"""What the pipeline costs as the leaderboard grows: DVC's own time and ours, per number of models.

Usage:
  python benchmarks/scaling.py [--models 6,24,48,96] [--keep DIR]

For each N, in a temporary copy of this project (the files git would ship, a new git repository,
DVC's config and site cache and the Hugging Face caches under the copy, offline), with N
simulated models (copies of the sim entries of params.yaml under new keys), it times:
- full: `dvc repro` from nothing;
- commands: the same stage commands run directly, without DVC, in dvc.yaml order (dvc.lock's
  order), on a second fresh copy: what our code costs by itself;
- no-op: `dvc repro` again; status: `dvc status`;
- add one: `dvc repro` after adding one more simulated model to params.yaml;
- per model: full / N.
and prints one table (seconds), then the load average. Run it on an idle machine for figures
to compare (issue 18's targets: no-op and status <= 3 s at 48 models and <= 5 s at 96; add one
at 48 <= 1.5x at 6; full at 48 <= 1.5x its commands; per model at 96 <= 1.2x at 6).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def copy_project(dest: Path) -> Path:
    """The files git would ship (tracked, and untracked but not ignored), without dvc.lock."""
    names = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, check=True,
                           capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, names):
        src = REPO / name
        if src.is_file() and name != "dvc.lock":
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    (dest / ".dvc").mkdir(exist_ok=True)
    return dest


def environment(repo: Path) -> dict[str, str]:
    """As tests/helpers/harness.py env: DVC's config dirs and site cache, HF offline, no bars."""
    home = repo.parent / "home"
    out = dict(os.environ)
    out.update(PATH=f"{BIN}{os.pathsep}{out.get('PATH', '')}", PYTHONPATH=str(repo / "src"), DVC_NO_ANALYTICS="1",
               DVC_GLOBAL_CONFIG_DIR=str(home / "dvc-global"), DVC_SYSTEM_CONFIG_DIR=str(home / "dvc-system"),
               DVC_SITE_CACHE_DIR=str(home / "dvc-site-cache"), SIDEWAYS_PROGRESS="0", HF_HOME=str(home / "hf"),
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", GIT_AUTHOR_NAME="bench",
               GIT_AUTHOR_EMAIL="bench@example.invalid", GIT_COMMITTER_NAME="bench",
               GIT_COMMITTER_EMAIL="bench@example.invalid")
    return out


def timed(repo: Path, *cmd: str) -> float:
    """Seconds ``cmd`` took in ``repo``; its failure stops the benchmark with its output."""
    exe = str(BIN / cmd[0]) if cmd[0] in ("dvc", "python") else cmd[0]
    start = time.perf_counter()
    proc = subprocess.run([exe, *cmd[1:]], cwd=repo, env=environment(repo), capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {repo}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return took


def sim_models(params: dict[str, Any], n: int) -> dict[str, Any]:
    """``n`` simulated models: the sim entries of params.yaml in turn, under new keys."""
    sims = [(k, v) for k, v in params["models"].items() if v.get("backend", "sim") == "sim"]
    return {f"{sims[i % len(sims)][0]}-{i}": dict(sims[i % len(sims)][1]) for i in range(n)}


def project(dest: Path, n: int) -> Path:
    """A fresh, committed copy of the project with ``n`` simulated models."""
    repo = copy_project(dest)
    params = yaml.safe_load((repo / "params.yaml").read_text())
    params["models"] = sim_models(params, n)
    (repo / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "start"]):
        timed(repo, *cmd)
    return repo


def add_one(repo: Path) -> None:
    params = yaml.safe_load((repo / "params.yaml").read_text())
    first_key, first = next(iter(params["models"].items()))
    params["models"][f"{first_key}-added"] = dict(first)
    (repo / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


def commands_alone(root: Path, n: int, lock: dict[str, Any]) -> float:
    """The stage commands of ``lock`` (dvc.lock order: dvc.yaml's), run directly on a fresh copy."""
    repo = project(root / "direct" / "repo", n)
    return sum(timed(repo, *shlex.split(stage["cmd"])) for stage in lock["stages"].values())


def measure(root: Path, n: int) -> dict[str, float]:
    repo = project(root / "dvc" / "repo", n)
    row = {"models": float(n), "full": timed(repo, "dvc", "repro")}
    lock = yaml.safe_load((repo / "dvc.lock").read_text())
    row["stages"] = float(len(lock["stages"]))
    row["noop"] = timed(repo, "dvc", "repro")
    row["status"] = timed(repo, "dvc", "status")
    add_one(repo)
    row["add_one"] = timed(repo, "dvc", "repro")
    row["commands"] = commands_alone(root, n, lock)
    row["per_model"] = row["full"] / n
    return row


COLUMNS = [("models", "models", "{:.0f}"), ("stages", "stages", "{:.0f}"), ("full", "full repro", "{:.1f}"),
           ("commands", "commands alone", "{:.1f}"), ("noop", "no-op repro", "{:.1f}"),
           ("status", "dvc status", "{:.1f}"), ("add_one", "add one model", "{:.1f}"),
           ("per_model", "full / model", "{:.2f}")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="6,24,48,96", help="comma-separated numbers of simulated models")
    parser.add_argument("--keep", type=Path, help="build the copies here and keep them (default: a temporary dir)")
    args = parser.parse_args()
    sizes = [int(x) for x in args.models.split(",")]
    base = args.keep or Path(tempfile.mkdtemp(prefix="sideways-scaling-"))
    print(" | ".join(title for _, title, _ in COLUMNS))
    try:
        for n in sizes:
            row = measure(base / f"n{n}", n)
            print(" | ".join(fmt.format(row[key]) for key, _, fmt in COLUMNS), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    print(f"seconds, 1 run each; load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{os.cpu_count()} cores")


if __name__ == "__main__":
    main()
