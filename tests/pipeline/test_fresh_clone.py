"""A fresh clone is clean: the committed dvc.lock files describe the committed code and params.

A commit that changes code (or params.yaml) without re-locking leaves a dvc.lock whose digests are
those of older files: on a fresh clone `make repro` rewrites it, `git status` shows it modified,
and `dvc status` lists stages as changed. Both tests clone
this repository's HEAD (what is committed, not the work tree), so they fail on such a commit.
Re-locking: `make repro`, then `dvc repro reproductions/layton-eval/dvc.yaml` (with .venv/bin on
PATH), and commit both dvc.lock files with what they changed (docs/design.md, "A fresh clone is
clean")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from helpers import ROOT
from helpers.harness import env, make, run

RELOCK = ("re-lock on a clean tree: `make repro && PATH=$PWD/.venv/bin:$PATH dvc repro reproductions/layton-eval/dvc.yaml`, "
          "then commit dvc.lock, reproductions/layton-eval/dvc.lock and the outputs git tracks")


def clone_head(tmp_path: Path) -> Path:
    repo = tmp_path / "clone"
    run(tmp_path, "git", "clone", "-q", "--no-hardlinks", str(ROOT), str(repo))
    return repo


def outputs(repo: Path) -> set[str]:
    """Every stage output the lock files name, relative to the repository's root."""
    found: set[str] = set()
    for lock in [repo / "dvc.lock", *sorted((repo / "reproductions").glob("*/dvc.lock"))]:
        base = lock.parent.relative_to(repo)
        for stage in (yaml.safe_load(lock.read_text()) or {}).get("stages", {}).values():
            found |= {(base / o["path"]).as_posix() for o in stage.get("outs", [])}
    return {p.removeprefix("./") for p in found}


def stale_sources(status: dict, outs: set[str]) -> list[str]:
    """The `dvc status --json` entries about committed files: a changed dep that is no stage's output
    (nor holds or lies in one), and changed params. Missing outputs are expected on a clone."""
    within = lambda p: any(p == o or p.startswith(o + "/") or o.startswith(p + "/") for o in outs)
    stale = []
    for stage, entries in status.items():
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            for dep, what in entry.get("changed deps", {}).items():
                if not within(dep):
                    stale.append(f"{stage}: {dep} {what}")
            for path, params in entry.get("changed params", {}).items():
                stale.append(f"{stage}: {path} {params}")
    return stale


def test_the_committed_locks_match_the_committed_code_and_params(tmp_path):
    """Seconds, no stage run: every code and params dep the locks record is what git holds."""
    repo = clone_head(tmp_path)
    status = json.loads(run(repo, "dvc", "status", "--json").stdout or "{}")
    stale = stale_sources(status, outputs(repo))
    assert stale == [], "dvc.lock is stale for committed files:\n  " + "\n  ".join(stale) + f"\n{RELOCK}"


@pytest.mark.slow
def test_make_repro_on_a_fresh_clone_leaves_git_status_clean(tmp_path):
    """The whole README path on a clone nobody touched: `make repro` (this test environment, not a
    new one) changes no tracked file, and `dvc status` finds every pipeline up to date."""
    repo = clone_head(tmp_path)
    environ = env(repo)
    make(repo, "repro", environ=environ)
    status = run(repo, "git", "status", "--porcelain").stdout
    diff = run(repo, "git", "diff", "--stat").stdout
    assert status == "", f"make repro changed a fresh clone:\n{status}\n{diff}\n{RELOCK}"
    header = (repo / "report" / "data" / "report.js").read_text()
    assert '"dirty":false' in header and '"dirty":true' not in header  # no "(dirty tree)" in its header
    assert json.loads(run(repo, "dvc", "status", "--json").stdout or "{}") == {}
