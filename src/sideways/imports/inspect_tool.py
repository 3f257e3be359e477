"""inspect's own converter for ``.eval`` logs, run from its own environment.

A ``.eval`` log is a zip whose members are compressed with zstandard; it is read by converting it with
inspect's documented tool, ``inspect log convert --to json``, in a subprocess, and reading the ``.json``
log it writes (:mod:`~sideways.imports.inspect_log`). The ``inspect`` executable is the one
``$SIDEWAYS_INSPECT`` names, else the first on ``PATH``: inspect-ai installed in an environment of its
own (``pipx install inspect-ai`` or ``uv tool install inspect-ai``), never beside the project, whose
S3 remote it would downgrade (inspect-ai 0.3.285 pins ``fsspec<=2026.6.0``). Without one, a ``.eval``
log is refused in one line saying how to install it. Every line here fits 120 columns as a command
prints it after ``sideways import-run: error: ``, the log's path shortened to its end (inspect names a
log by its time, task and id, the id last).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from sideways.imports.run import ImportedRunError, log_line

ENV = "SIDEWAYS_INSPECT"  # the inspect executable to convert .eval logs with (else `inspect` on PATH)
TIMEOUT_S = 300.0  # a conversion that takes longer is stopped: a log of tens of thousands of samples takes seconds
INSTALL = ": .eval needs inspect: pipx install inspect-ai"


def inspect_executable() -> str | None:
    """The ``inspect`` to convert with: ``$SIDEWAYS_INSPECT`` (a path or a name on PATH), else ``inspect`` on
    PATH, else None."""
    named = os.environ.get(ENV, "").strip()
    return shutil.which(named) if named else shutil.which("inspect")


def convert_eval(path: Path, out_dir: Path, timeout: float = TIMEOUT_S) -> Path:
    """The ``.json`` log inspect's converter writes in ``out_dir`` for ``.eval`` log ``path``; one line when
    there is no ``inspect`` (how to install it), when it fails (its last line of error) or times out."""
    exe = inspect_executable()
    if exe is None:
        named = os.environ.get(ENV, "").strip()
        raise ImportedRunError(log_line(path, f": {ENV}={named}: no such executable" if named else INSTALL))
    cmd = [exe, "log", "convert", "--to", "json", "--output-dir", str(out_dir), str(path)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False,
                              env={**os.environ, "INSPECT_DISPLAY": "none", "NO_COLOR": "1"})
    except subprocess.TimeoutExpired as exc:
        raise ImportedRunError(log_line(path, f": inspect log convert took over {timeout:g} s; stopped")) from exc
    except OSError as exc:
        raise ImportedRunError(log_line(path, f": {exe}: {exc.strerror or exc}")) from exc
    written = sorted(out_dir.rglob("*.json"))
    if done.returncode != 0 or len(written) != 1:
        lines = [x.strip() for x in (done.stderr or done.stdout or "").splitlines() if x.strip()]
        said = lines[-1] if lines else f"exit status {done.returncode}, {len(written)} .json logs written"
        raise ImportedRunError(log_line(path, f": inspect log convert failed: {said}"))
    return written[0]
