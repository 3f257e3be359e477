"""Ctrl-C in ``dvc repro`` while a paid stage sends: one line and the resume hint, then a resume that
pays nothing twice and leaves nothing half-written (docs/design.md, "Ctrl-C").

A terminal's Ctrl-C sends SIGINT to the whole foreground process group: DVC ignores it while its
stage runs, the stage's Python gets a KeyboardInterrupt. The test sends it the same way, to the
group of a ``dvc repro`` started in a session of its own, while ``predict`` waits on a slow fake
OpenAI-compatible server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections import Counter

import pandas as pd
import pytest

from helpers.harness import BIN, env, executed, new_repo, run
from sideways.testing.openai_server import Behaviour, FakeServer

pytestmark = pytest.mark.slow

CONCURRENCY = 2


def one_local_model(url: str):
    """The llm split, no exam, one simulated model and one on the fake server at ``url``."""
    def change(p: dict) -> None:
        p["splits"] = ["llm"]
        p["exams"] = {}
        local = {"backend": "openai-compatible", "base_url": url, "api_key_env": "LOCAL_LLM_KEY",
                 "concurrency": CONCURRENCY, "provider": "localco", "name": "local-model-1", "n_hints": 0}
        p["models"] = {"atlas-large": p["models"]["atlas-large"], "local-m": local}
        p["calibration"]["posterior"] = "v1"
    return change


def test_ctrl_c_in_a_paid_stage_prints_one_line_and_the_hint_and_the_resume_pays_nothing_twice(tmp_path):
    with FakeServer(Behaviour(latency_s=0.3)) as server:
        repo = new_repo(tmp_path / "repo", one_local_model(server.base_url))
        environ = {**env(repo), "LOCAL_LLM_KEY": "sk-fake-interrupt"}
        proc = subprocess.Popen([str(BIN / "dvc"), "repro"], cwd=repo, env=environ, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.monotonic() + 240
        while server.fake.requests < 4:  # predict is sending
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "predict never sent a request"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal does on Ctrl-C
        out, err = proc.communicate(timeout=120)
        first = Counter(server.fake.answered)

        assert proc.returncode != 0
        assert "Traceback" not in out + err and "KeyboardInterrupt" not in out + err, err
        ours = [line for line in err.splitlines() if line.startswith(("predict:", "resume:"))]
        assert ours == ["predict: interrupted; the answers received so far are kept in the request cache, no output "
                        "was recorded",
                        "resume: `dvc repro` (or `make repro`) runs it again and sends only what was not answered"], err
        assert all(len(line) <= 120 for line in (out + err).splitlines()), err
        assert not [p for p in (repo / "data").rglob("*.tmp")]  # nothing half-written
        assert not (repo / "data/predictions/llm/local-m.parquet").exists()

        second = run(repo, "dvc", "repro", environ=environ)
        assert {"predict", "judge", "rank@llm"} <= executed(second)
        total = Counter(server.fake.answered)

    rows = pd.read_parquet(repo / "data/predictions/llm/local-m.parquet")
    assert len(rows) == len(total) and (rows["status"] == "ok").all()
    twice = [body for body, n in total.items() if n > 1]
    # only a request whose answer was on its way when the stage stopped may be answered again
    assert len(twice) <= CONCURRENCY, f"{len(twice)} requests were answered twice (first run answered {sum(first.values())})"
    assert executed(run(repo, "dvc", "repro", environ=environ)) == set()  # resumed whole
