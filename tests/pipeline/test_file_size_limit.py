"""A file size limit (``ulimit -f``) across a whole ``dvc repro`` of the paid stages loses nothing.

Under the limit the run fails wherever a file first grows past it (DVC's own state database, a
journal, an answers file); whatever it was, the request cache holds only whole records, no
temporary file is left, and the rerun with room again completes, sending at most the requests
that were in flight again. Two places: the limit on ``dvc repro`` itself (every process), and on
the stages only (a ``python`` first on PATH that runs ``ulimit -f``), where the stage must say
what happened in one line.
"""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from test_two_runs import TARGET, paid_twice, workspace

from helpers.harness import BIN, env, run
from helpers.model_project import KEY
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

IN_FLIGHT = 4  # the models' concurrency: what a run that stops may have sent and not journalled


def limited_python(folder: Path, blocks: int) -> Path:
    """A ``python`` that runs the real one under ``ulimit -f blocks`` (512-byte blocks)."""
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "python"
    shim.write_text(f'#!/bin/sh\nulimit -f {blocks}\nexec "{sys.executable}" "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    return folder


def check_cache(cache: Path) -> None:
    leftovers = [p for p in cache.rglob("*") if p.is_file() and p.name.endswith(".tmp")]
    assert leftovers == [], leftovers
    for path in cache.glob("??/*.json"):
        record = json.loads(path.read_bytes())  # whole, or it would not parse
        assert record["key"] == path.stem


@pytest.mark.parametrize("where", ["dvc repro", "stages"])
def test_a_file_size_limit_loses_nothing(tmp_path, where):
    with FakeServer(Behaviour(expected_key=KEY)) as server:
        repo = workspace(tmp_path, server.base_url)
        environ = env(repo)
        limit = None
        if where == "stages":  # 64 KiB: records fit, a run's journal of answers does not
            environ["PATH"] = f"{limited_python(tmp_path / 'shim', 128)}{os.pathsep}{environ['PATH']}"
        else:  # 150 KB: DVC's own state database fits until the stages' outputs are committed
            limit = 150_000

        def lower() -> None:
            if limit is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        proc = subprocess.run([str(BIN / "dvc"), "repro", TARGET], cwd=repo, env=environ, capture_output=True,
                              text=True, preexec_fn=lower)
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0, out
        if where == "stages":
            assert "File too large" in out and "Traceback" not in out, out
            assert server.fake.requests > 0
        check_cache(repo / ".sideways/cache")
        assert not [p for p in (repo / "data").rglob("*") if p.name.endswith(".tmp")]
        sent = server.fake.requests
        again = run(repo, "dvc", "repro", TARGET)
        assert "Running stage 'judge'" in again.stdout + again.stderr
        assert paid_twice(server) <= IN_FLIGHT, f"{paid_twice(server)} of {sent} requests paid twice"
        check_cache(repo / ".sideways/cache")
        assert "changed" not in run(repo, "dvc", "status", TARGET).stdout
