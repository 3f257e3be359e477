"""How much a DVC remote grows per version that ``make push`` (``sideways push``) shares.

A fresh temporary copy of the project (the files git would ship, its own git repository, DVC's
config and site cache under the copy) with a folder as its default remote: ``dvc repro`` of the
simulated default, ``sideways push``, commit; then one model's skill changed in models.yaml,
``dvc repro``, ``sideways push``, commit. The script prints the remote's objects and bytes after
each version (the outputs' objects under ``files/md5``, the run-cache under ``runs``), the second
version's growth, how long ``sideways push`` took (push and verification on the remote) and how
long ``dvc push --all-commits`` takes on these two commits (collecting every commit's outputs is
what grows with a long history). A folder remote holds the same objects, byte for byte, as S3.

    PYTHONPATH=src python benchmarks/remote_growth.py [--skill 0.9]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from wall_time import copy_project

BIN = Path(sys.executable).parent


def environ(root: Path) -> dict[str, str]:
    home = root / "home"
    out = dict(os.environ)
    out.update(PATH=f"{BIN}{os.pathsep}{out.get('PATH', '')}", PYTHONPATH=str(root / "repo" / "src"),
               DVC_NO_ANALYTICS="1", DVC_GLOBAL_CONFIG_DIR=str(home / "dvc-global"),
               DVC_SYSTEM_CONFIG_DIR=str(home / "dvc-system"), DVC_SITE_CACHE_DIR=str(home / "dvc-site-cache"),
               SIDEWAYS_PROGRESS="0", HF_HOME=str(home / "hf"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")
    return out


def sh(repo: Path, env: dict[str, str], *cmd: str) -> float:
    """Run ``cmd`` in ``repo`` (failing loudly); its wall time in seconds."""
    exe = str(BIN / cmd[0]) if cmd[0] in ("dvc", "sideways", "python") else cmd[0]
    start = time.perf_counter()
    proc = subprocess.run([exe, *cmd[1:]], cwd=repo, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return time.perf_counter() - start


def measure(remote: Path) -> tuple[int, int, int, int]:
    """(objects, bytes) under files/md5 and (entries, bytes) under runs."""
    def tally(top: Path) -> tuple[int, int]:
        files = [p for p in top.rglob("*") if p.is_file()] if top.exists() else []
        return len(files), sum(p.stat().st_size for p in files)
    return (*tally(remote / "files" / "md5"), *tally(remote / "runs"))


def kb(n: int) -> str:
    return f"{n / 1024:,.0f} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skill", type=float, default=0.9, help="atlas-mini's skill in the second version")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sideways-remote-growth-") as tmp:
        root = Path(tmp)
        repo, remote = copy_project(root / "repo"), root / "remote"
        env = environ(root)
        sh(repo, env, "git", "init", "-q", "-b", "main")
        sh(repo, env, "dvc", "remote", "add", "-d", "store", str(remote))
        sh(repo, env, "git", "add", "-A")
        sh(repo, env, "git", "commit", "-qm", "start")
        sizes, pushes = [], []
        for version in (1, 2):
            if version == 2:
                models = yaml.safe_load((repo / "models.yaml").read_text())
                models["models"]["atlas-mini"]["skill"] = args.skill
                (repo / "models.yaml").write_text(yaml.safe_dump(models, sort_keys=False))
            sh(repo, env, "dvc", "repro")
            pushes.append(sh(repo, env, "sideways", "push"))
            sh(repo, env, "git", "add", "-A")
            sh(repo, env, "git", "commit", "-qm", f"version {version}")
            sizes.append(measure(remote))
        verify = sh(repo, env, "sideways", "push", "--verify-only")
        all_commits = sh(repo, env, "dvc", "push", "--all-commits")
    (o1, b1, r1, rb1), (o2, b2, r2, rb2) = sizes
    print(f"version 1: {o1} objects, {kb(b1)}; run-cache {r1} entries, {kb(rb1)}")
    print(f"version 2 (atlas-mini skill {args.skill}): +{o2 - o1} objects, +{kb(b2 - b1)}; "
          f"run-cache +{r2 - r1} entries, +{kb(rb2 - rb1)}")
    print(f"per version: {(b2 - b1 + rb2 - rb1) / 1024:,.0f} KB ({100 * (b2 - b1 + rb2 - rb1) / (b1 + rb1):.0f}% "
          "of the first)")
    print(f"sideways push: {pushes[0]:.1f} s, {pushes[1]:.1f} s; verify only: {verify:.1f} s; "
          f"dvc push --all-commits (2 commits, nothing to send): {all_commits:.1f} s")


if __name__ == "__main__":
    main()
