"""The real ``inspect`` executable (inspect-ai in its own environment) for the tests of ``.eval`` logs.

Found as sideways finds it (``$SIDEWAYS_INSPECT``, else ``inspect`` on PATH), else in this repository's
``.venv-harness`` (``make harness``). ``make test`` (CI) installs it and sets ``SIDEWAYS_NEED_INSPECT=1``, so
there a missing tool fails the tests instead of skipping them; elsewhere they skip, saying how to get it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import ROOT


def inspect_path() -> str:
    """The path of the real ``inspect``; skip (fail under ``SIDEWAYS_NEED_INSPECT=1``) without one."""
    named = os.environ.get("SIDEWAYS_INSPECT", "").strip()
    found = shutil.which(named) if named else shutil.which("inspect")
    local = ROOT / ".venv-harness" / "bin" / "inspect"
    if found is None and local.is_file():
        found = str(local)
    if found is None:
        why = "no inspect executable (make harness installs inspect-ai in .venv-harness)"
        if os.environ.get("SIDEWAYS_NEED_INSPECT") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return str(Path(found).absolute())


def use_real_inspect(monkeypatch: pytest.MonkeyPatch) -> str:
    """``$SIDEWAYS_INSPECT`` set to the real ``inspect`` for the test."""
    path = inspect_path()
    monkeypatch.setenv("SIDEWAYS_INSPECT", path)
    return path


def hide_inspect(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No ``inspect`` anywhere: ``$SIDEWAYS_INSPECT`` unset, PATH an empty folder's."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.delenv("SIDEWAYS_INSPECT", raising=False)
    monkeypatch.setenv("PATH", str(empty))
