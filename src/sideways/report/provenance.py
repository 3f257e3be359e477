"""Which params, data and code produced a report: digests of the inputs, and the git state.

The header must not make ``dvc repro`` non-reproducible, so nothing in it depends on the clock
or on commits that cannot change the report. The params and data versions are digests of what
the stage read. The code version is the last commit that touched :data:`TRACKED` (what can
change a result: params, pipeline, stage scripts, library, data in git) and whether those
paths differ from it: a commit of docs, tests or ``dvc.lock`` alone changes neither, so
committing the ``dvc.lock`` of a report built from a clean tree leaves the report true
(docs/design.md, "The report").
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sideways.config.params import raw_params

TRACKED = ("params.yaml", "models.yaml", "dvc.yaml", "stages", "src", "data")
#: The params.yaml sections that decide results (not how requests travel or what they cost).
RESULT_PARAMS = ("seed", "riddles", "splits", "models", "jury", "annotations", "calibration", "exams")


def digest(parts: Iterable[bytes]) -> str:
    """A short SHA-256 of ``parts``, each length-prefixed (so no two sequences collide by concatenation)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()[:12]


def params_digest(params: Any) -> str:
    """The digest of parsed params (comments and key order do not count)."""
    return digest([json.dumps(params, sort_keys=True, default=str).encode()])


def files_digest(files: Iterable[str | Path]) -> str:
    """The digest of the files' names and bytes, in the order given."""
    return digest(part for f in files for part in (str(f).encode(), Path(f).read_bytes()))


def git_state(root: str | Path = ".") -> dict[str, Any]:
    """``{"commit": ..., "dirty": ...}`` for :data:`TRACKED` in the git work tree at ``root``.

    Runs git (the only I/O here); both are null outside a git work tree or without git.
    """
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()

    try:
        commit = git("log", "-1", "--format=%H", "--", *TRACKED) or None
        dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", *TRACKED))
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": dirty}


def report_header(params_path: str | Path, files: Iterable[str | Path]) -> dict[str, Any]:
    """The report's provenance: :func:`git_state`, the digest of the params sections that decide
    results (:data:`RESULT_PARAMS`; the models read wherever params.yaml keeps them) and of ``files``."""
    raw, _ = raw_params(params_path)
    return {**git_state(), "params": params_digest({k: raw.get(k) for k in RESULT_PARAMS}), "data": files_digest(files)}
