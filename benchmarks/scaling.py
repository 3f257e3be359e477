"""What the pipeline costs as the leaderboard grows: DVC's own time and ours, per number of models.

Usage:
  python benchmarks/scaling.py [--models 6,24,48,96] [--exam N] [--no-commands] [--timeout S] [--keep DIR]

For each N, in a temporary copy of this project (the files git would ship, a new git repository,
DVC's config and site cache and the Hugging Face caches under the copy, offline), with N
simulated models (copies of the project's sim models under new keys), it times:
- full: `dvc repro` from nothing;
- commands: the same stage commands run directly, without DVC, in dvc.yaml order (dvc.lock's
  order), on a second fresh copy: what our code costs by itself;
- no-op: `dvc repro` again; status: `dvc status`;
- add one: `dvc repro` after adding one more simulated model (to models.yaml);
- per model: full / N;
- peak: the largest resident memory of the full repro's process tree (DVC and its stage, MB),
  sampled every 0.2 s;
- CPU s: the user and system seconds the full repro and add one used (all processes): on a
  shared machine, steadier than the wall clock.
and prints one row per size (seconds; eight columns), then a line of its peak memory and CPU
seconds and the load average before it, then its stage times; at the end every size's stage
times together: a stage's time runs from DVC's "Running stage" line to the next stage's,
so DVC's own work after the command (hashing outputs, writing dvc.lock) counts with the stage; a
matrix stage's splits are summed; then the load average. With ``--exam N`` the copy carries one
more exam beside the demo, ``mmlu``: N multiple-choice questions (four choices, E "I don't know") over 57
topics, as big as MMLU's test set at N = 14042. ``--no-commands`` skips the commands-alone copy
(half the time at 200 models); ``--timeout S`` bounds every command. Run it on an idle machine
for figures to compare (targets: no-op and status <= 3 s at 48 models and <= 5 s at 96; add one
at 48 <= 1.5x at 6; full at 48 <= 1.5x its commands; per model at 96 <= 1.2x at 6; with
``--exam 14042`` at 200 models, full completes with a peak under 4 GB and add one <= 2x at 48).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import yaml

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: a DVC line that starts a stage's time or says it was skipped
STAGE_LINE = re.compile(r"^(?:Running stage|Stage) '([^']+)'")
#: seconds every command may take (--timeout)
LIMIT: dict[str, float | None] = {"timeout": None}


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
    # as a user's Python does (and the tests' harness): write bytecode, so that a stage does not compile
    # every module it imports again (a shell that sets PYTHONDONTWRITEBYTECODE would time that too)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    out.update(PATH=f"{BIN}{os.pathsep}{out.get('PATH', '')}", PYTHONPATH=str(repo / "src"), DVC_NO_ANALYTICS="1",
               DVC_GLOBAL_CONFIG_DIR=str(home / "dvc-global"), DVC_SYSTEM_CONFIG_DIR=str(home / "dvc-system"),
               DVC_SITE_CACHE_DIR=str(home / "dvc-site-cache"), SIDEWAYS_PROGRESS="0", HF_HOME=str(home / "hf"),
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", GIT_AUTHOR_NAME="bench",
               GIT_AUTHOR_EMAIL="bench@example.invalid", GIT_COMMITTER_NAME="bench",
               GIT_COMMITTER_EMAIL="bench@example.invalid")
    return out


def _command(repo: Path, cmd: tuple[str, ...]) -> list[str]:
    return [str(BIN / cmd[0]) if cmd[0] in ("dvc", "python") else cmd[0], *cmd[1:]]


def timed(repo: Path, *cmd: str) -> float:
    """Seconds ``cmd`` took in ``repo``; its failure stops the benchmark with its output."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(_command(repo, cmd), cwd=repo, env=environment(repo), capture_output=True, text=True,
                              timeout=LIMIT["timeout"])
    except subprocess.TimeoutExpired as exc:
        raise SystemExit(f"{' '.join(cmd)} took more than {exc.timeout:.0f} s in {repo}") from None
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {repo}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return took


class PeakMemory:
    """The largest summed resident memory of a process and its descendants, sampled in a thread."""

    def __init__(self, pid: int) -> None:
        self.peak, self._root, self._done = 0, psutil.Process(pid), threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(0.2):
            total = 0
            try:
                for proc in [self._root, *self._root.children(recursive=True)]:
                    total += proc.memory_info().rss
            except psutil.Error:
                pass
            self.peak = max(self.peak, total)

    def stop(self) -> float:
        self._done.set()
        self._thread.join()
        return self.peak / 2**20


def cpu_seconds() -> float:
    """User and system seconds of every child this process has waited for so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def repro(repo: Path) -> tuple[float, dict[str, float], float, float]:
    """``dvc repro`` in ``repo``: seconds, seconds per stage (matrix splits summed), peak MB, CPU seconds."""
    start, cpu = time.perf_counter(), cpu_seconds()
    proc = subprocess.Popen(_command(repo, ("dvc", "repro")), cwd=repo, env=environment(repo), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    memory, marks, tail = PeakMemory(proc.pid), [], []
    timer = threading.Timer(LIMIT["timeout"], proc.kill) if LIMIT["timeout"] else None
    if timer:
        timer.start()
    assert proc.stdout is not None
    for line in proc.stdout:
        tail = [*tail[-40:], line]
        if (found := STAGE_LINE.match(line)) is not None:
            marks.append((found.group(1).split("@")[0], time.perf_counter()))
    code, took, peak = proc.wait(), time.perf_counter() - start, memory.stop()
    if timer:
        timer.cancel()
    if code != 0:
        raise SystemExit(f"dvc repro failed ({code}) in {repo} after {took:.0f} s:\n{''.join(tail)}")
    stages: dict[str, float] = {}
    for (name, at), (_, until) in zip(marks, [*marks[1:], ("", start + took)], strict=True):
        stages[name] = stages.get(name, 0.0) + until - at
    return took, stages, peak, cpu_seconds() - cpu


def sim_models(params: dict[str, Any], n: int) -> dict[str, Any]:
    """``n`` simulated models: the sim entries of params.yaml in turn, under new keys."""
    sims = [(k, v) for k, v in params["models"].items() if v.get("backend", "sim") == "sim"]
    return {f"{sims[i % len(sims)][0]}-{i}": dict(sims[i % len(sims)][1]) for i in range(n)}


def mcq_exam(n: int) -> dict[str, Any]:
    """An exam of ``n`` multiple-choice questions over 57 topics, in the notebook's format."""
    return {"exam_name": "scaling", "semester": "bench", "questions": [
        {"id": f"q{i:05d}", "type": "mcq", "topic": f"subject {i % 57:02d}", "points": 1,
         "question": f"Which choice is right for question {i}?",
         "choices": {c: f"choice {c} of question {i}" for c in "ABCD"}, "answer": "ABCD"[i * 7 % 4]}
        for i in range(n)]}


def models_path(repo: Path) -> Path:
    """The file whose ``models:`` holds the project's models: models.yaml when params.yaml names it
    (the default: docs/performance.md), else params.yaml itself."""
    named = yaml.safe_load((repo / "params.yaml").read_text())["models"] == "models.yaml"
    return repo / ("models.yaml" if named else "params.yaml")


def edit_models(repo: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Apply ``change`` (models mapping -> new mapping) where the project keeps its models."""
    path = models_path(repo)
    data = yaml.safe_load(path.read_text())
    data["models"] = change(data["models"])
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def project(dest: Path, n: int, exam: int = 0) -> Path:
    """A fresh, committed copy of the project with ``n`` simulated models (and ``exam`` more questions)."""
    repo = copy_project(dest)
    edit_models(repo, lambda models: sim_models({"models": models}, n))
    if exam:
        params = yaml.safe_load((repo / "params.yaml").read_text())
        (repo / "data/exams/scaling.json").write_text(json.dumps(mcq_exam(exam)))
        params["exams"]["mmlu"] = {**params["exams"]["demo"], "path": "data/exams/scaling.json"}
        (repo / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "start"]):
        timed(repo, *cmd)
    return repo


def add_one(repo: Path) -> None:
    def added(models: dict[str, Any]) -> dict[str, Any]:
        first_key, first = next(iter(models.items()))
        return {**models, f"{first_key}-added": dict(first)}

    edit_models(repo, added)


def commands_alone(root: Path, n: int, exam: int, lock: dict[str, Any]) -> float:
    """The stage commands of ``lock`` (dvc.lock order: dvc.yaml's), run directly on a fresh copy."""
    repo = project(root / "direct" / "repo", n, exam)
    return sum(timed(repo, *shlex.split(stage["cmd"])) for stage in lock["stages"].values())


def measure(root: Path, n: int, exam: int, commands: bool) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """One row of the table, and the stages' seconds in the full repro and in add one."""
    repo = project(root / "dvc" / "repo", n, exam)
    row: dict[str, float] = {"models": float(n)}
    row["full"], full_stages, row["peak"], row["full_cpu"] = repro(repo)
    lock = yaml.safe_load((repo / "dvc.lock").read_text())
    row["stages"] = float(len(lock["stages"]))
    row["noop"] = timed(repo, "dvc", "repro")
    row["status"] = timed(repo, "dvc", "status")
    add_one(repo)
    row["add_one"], add_stages, _, row["add_one_cpu"] = repro(repo)
    row["commands"] = commands_alone(root, n, exam, lock) if commands else float("nan")
    row["per_model"] = row["full"] / n
    return row, {"full": full_stages, "add one": add_stages}


def stage_table(runs: dict[int, dict[str, dict[str, float]]]) -> str:
    """Seconds per stage (rows) for each size and run (columns)."""
    heads = [(n, kind) for n in runs for kind in runs[n]]
    names = list(dict.fromkeys(name for n, kind in heads for name in runs[n][kind]))
    lines = [" | ".join(["stage", *(f"{kind} at {n}" for n, kind in heads)])]
    for name in names:
        lines.append(" | ".join([name, *(f"{runs[n][kind].get(name, 0.0):.1f}" for n, kind in heads)]))
    return "\n".join(lines)


COLUMNS = [("models", "models", "{:.0f}"), ("stages", "stages", "{:.0f}"), ("full", "full repro", "{:.1f}"),
           ("commands", "commands alone", "{:.1f}"), ("noop", "no-op repro", "{:.1f}"),
           ("status", "dvc status", "{:.1f}"), ("add_one", "add one model", "{:.1f}"),
           ("per_model", "full / model", "{:.2f}")]


def resources(row: dict[str, float], before: str) -> str:
    """One line, no table cells (scripts that read the table above keep its eight columns)."""
    return (f"{row['models']:.0f} models: peak {row['peak']:.0f} MB in the full repro, CPU {row['full_cpu']:.0f} s "
            f"in the full repro and {row['add_one_cpu']:.1f} s in add one; load before {before}")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="6,24,48,96", help="comma-separated numbers of simulated models")
    parser.add_argument("--exam", type=int, default=0, help="add an exam of N multiple-choice questions (57 topics)")
    parser.add_argument("--no-commands", action="store_true", help="skip the commands run without DVC")
    parser.add_argument("--timeout", type=float, help="seconds any one command may take (default: no limit)")
    parser.add_argument("--keep", type=Path, help="build the copies here and keep them (default: a temporary dir)")
    args = parser.parse_args()
    LIMIT["timeout"] = args.timeout
    sizes = [int(x) for x in args.models.split(",")]
    base = args.keep or Path(tempfile.mkdtemp(prefix="sideways-scaling-"))
    print(" | ".join(title for _, title, _ in COLUMNS))
    runs: dict[int, dict[str, dict[str, float]]] = {}
    try:
        for n in sizes:
            before = load()
            row, runs[n] = measure(base / f"n{n}", n, args.exam, not args.no_commands)
            print(" | ".join(fmt.format(row[key]) for key, _, fmt in COLUMNS), flush=True)
            print(resources(row, before), flush=True)
            print(stage_table({n: runs[n]}), "\n", flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    print(f"\nseconds per stage{f' (exam of {args.exam} questions beside the demo)' if args.exam else ''}:")
    print(stage_table(runs))
    print(f"\nseconds, 1 run each; load average after: {load()}, {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
