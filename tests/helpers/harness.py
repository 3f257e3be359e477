"""A harness for end-to-end tests: this repository's stages driven through the real DVC CLI, or run
one by one the way DVC runs them.

``copy_project`` copies the files git would ship; ``run`` runs a command there in an isolated
environment (DVC's config and site cache, Hugging Face caches, git identity, and the copy's
own ``src`` first on the path); ``repro`` returns the stages DVC *executed*, i.e. printed
``Running stage '<name>'`` for (a stage restored from the run-cache is not executed); ``make``
runs a target of the copy's Makefile on this environment (nothing installed).
``make_project`` and ``run_stage`` skip DVC: a temporary project made of this repository's
params.yaml with ``riddles`` changed, and ``python stages/<name>.py`` run in it on this
repository's code.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from helpers import ROOT, project_params

BIN = Path(sys.executable).parent


def env(repo: Path, src: Path | None = None, home: Path | None = None) -> dict[str, str]:
    """The environment of a command run in ``repo``: ``src`` first on the path (default: the copy's
    own ``repo/src``); DVC's config and site cache, the Hugging Face caches (offline) and git's
    identity kept under ``home`` (default: ``home`` next to ``repo``)."""
    home = home or repo.parent / "home"
    out = dict(os.environ)
    if src is None:
        # Let Python write bytecode into the copy's src/: a rerun on a fresh clone must still
        # execute nothing (bytecode is dvcignored).
        out.pop("PYTHONDONTWRITEBYTECODE", None)
    out.update(
        PATH=f"{BIN}{os.pathsep}{out.get('PATH', '')}",
        PYTHONPATH=str(src or repo / "src"),
        DVC_NO_ANALYTICS="1",
        DVC_GLOBAL_CONFIG_DIR=str(home / "dvc-global"),
        DVC_SYSTEM_CONFIG_DIR=str(home / "dvc-system"),
        DVC_SITE_CACHE_DIR=str(home / "dvc-site-cache"),
        SIDEWAYS_PROGRESS="0",
        # datasets and huggingface_hub: caches in the test's directory, never the network
        HF_HOME=str(home / "hf"),
        HF_DATASETS_CACHE=str(home / "hf" / "datasets"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        GIT_AUTHOR_NAME="test",
        GIT_AUTHOR_EMAIL="test@example.invalid",
        GIT_COMMITTER_NAME="test",
        GIT_COMMITTER_EMAIL="test@example.invalid",
    )
    return out


def run(repo: Path, *cmd: str, check: bool = True, environ: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``cmd`` in ``repo`` (``dvc``, ``python`` and ``sideways`` from this environment), in
    ``environ`` (default: :func:`env`), with no standard input (nothing may wait for a prompt)."""
    exe = str(BIN / cmd[0]) if cmd[0] in ("dvc", "python", "sideways") else cmd[0]
    proc = subprocess.run([exe, *cmd[1:]], cwd=repo, env=environ or env(repo), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def make(repo: Path, *targets: str, environ: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """``make <targets>`` in ``repo`` (a copy or clone holding the Makefile) on this environment: the
    Makefile's VENV is this interpreter's, and its install stamp a fresh file outside ``repo``, so make
    installs nothing and leaves the work tree as git has it."""
    stamp = repo.parent / f".{repo.name}.installed"
    stamp.touch()  # newer than the repo's pyproject.toml
    # a make of its own, not a sub-make of `make test`: the outer make's level and flags would make it
    # print "make[1]: Entering directory" around the output a test reads
    outer = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")
    environ = {k: v for k, v in (environ or env(repo)).items() if k not in outer}
    proc = subprocess.run(["make", "--no-print-directory", *targets, f"VENV={BIN.parent}", f"STAMP={stamp}"],
                          cwd=repo, env=environ, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"make {' '.join(targets)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def executed(proc: subprocess.CompletedProcess) -> set[str]:
    """The stages DVC executed (not those restored from the run-cache)."""
    return set(re.findall(r"Running stage '([^']+)'", proc.stdout + proc.stderr))


def jobs_ran(proc: subprocess.CompletedProcess) -> set[str]:
    """The jobs the coarse stages ran (not reused): ``predict@<model>+<split>`` and the like, from
    each stage's summary (``predict: 5 jobs reused, 1 ran: predict@m+llm``, the names going on over
    indented lines when they do not fit 120 columns)."""
    found: set[str] = set()
    pattern = r"^\w+: \d+ jobs reused, \d+ ran(?:, \d+ failed)?: (.+(?:\n  .+)*)$"
    for names in re.findall(pattern, proc.stdout + proc.stderr, re.M):
        found |= {n.strip() for n in names.split(",")}
    return found


def jobs_reused(proc: subprocess.CompletedProcess, stage: str) -> int:
    """How many jobs ``stage`` reused (its summary line; an error when it did not run)."""
    match = re.search(rf"^{stage}: (\d+) jobs reused", proc.stdout + proc.stderr, re.M)
    if match is None:
        raise AssertionError(f"{stage} printed no summary:\n{proc.stdout}\n{proc.stderr}")
    return int(match.group(1))


def repro(repo: Path, *args: str) -> set[str]:
    return executed(run(repo, "dvc", "repro", *args))


def edit_params(repo: Path, change: Callable[[dict], None]) -> None:
    """Apply ``change`` to the copy's params (models inline, :func:`helpers.project_params`) and
    write them back where they came from: models.yaml is rewritten only when the models changed."""
    path = repo / "params.yaml"
    data = project_params(repo)
    models = copy.deepcopy(data["models"])
    change(data)
    if yaml.safe_load(path.read_text()).get("models") == "models.yaml":
        if data["models"] != models:
            (repo / "models.yaml").write_text(yaml.safe_dump({"models": data["models"]}, sort_keys=False))
        data["models"] = "models.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def commit(repo: Path, message: str) -> None:
    run(repo, "git", "add", "-A")
    run(repo, "git", "commit", "-qm", message)


def copy_project(dest: Path) -> Path:
    """Copy the files git would ship (tracked, and untracked but not ignored) into ``dest``."""
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    (dest / ".dvc").mkdir(exist_ok=True)
    return dest


def new_repo(dest: Path, change: Callable[[dict], None] | None = None) -> Path:
    """A committed git repository holding a copy of the project, with ``change`` applied to its params."""
    copy_project(dest)
    if change is not None:
        edit_params(dest, change)
    run(dest, "git", "init", "-q", "-b", "main")
    commit(dest, "start")
    return dest


def make_project(root: Path, riddles: dict[str, Any], overrides: str = "{}\n") -> Path:
    """A project directory (no code, no git) holding this repository's params.yaml with ``riddles``
    merged into its ``riddles`` section, and ``overrides`` as data/curation/overrides.yaml."""
    params = project_params()
    params["riddles"] = {**params["riddles"], **riddles}
    root.mkdir(parents=True, exist_ok=True)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    (root / "data" / "curation").mkdir(parents=True, exist_ok=True)
    (root / "data" / "curation" / "overrides.yaml").write_text(overrides)
    return root


def run_stage(project: Path, name: str, home: Path) -> subprocess.CompletedProcess:
    """``python stages/<name>.py`` of this repository, run in ``project`` as DVC would run it."""
    return subprocess.run([sys.executable, str(ROOT / "stages" / f"{name}.py")], cwd=project,
                          env=env(project, src=ROOT / "src", home=home), capture_output=True, text=True, timeout=300)



def no_exam(root: Path, exam: str | None = "demo") -> None:
    """An empty items table of ``exam`` in ``root``: the predict and judge stages run the exams' jobs
    too (docs/design.md, "Every batch in flight"), and a project made for the riddles alone that
    keeps params.yaml's exam asks no exam question (its exam jobs run and send nothing). With
    ``exam`` None (a project with ``exams: {}``), the empty items folder exam_items would write."""
    from sideways.artifacts import paths
    from sideways.artifacts.io import write_table
    from sideways.artifacts.schema import EXAM_ITEMS

    (root / paths.EXAM_ITEMS_DIR).mkdir(parents=True, exist_ok=True)
    if exam is not None:
        write_table(EXAM_ITEMS.arrow().empty_table().to_pandas(), EXAM_ITEMS, root / paths.exam_items(exam))
