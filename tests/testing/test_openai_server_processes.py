"""The fake server as processes: ``--reuse-port`` lets several share one port, each counting its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

from helpers import ROOT


def _start(port: int) -> tuple[subprocess.Popen[str], dict[str, int]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "sideways.testing.openai_server", "--port", str(port),
                             "--reuse-port"], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    fields = {k: int(v) for k, v in (item.split("=") for item in proc.stdout.readline().split())}
    return proc, fields


def _post(port: int, i: int) -> dict:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": f"[R{i}] the answer is {i}"}]})
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", data=body.encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.load(r)


def _requests(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=10) as r:
        return int(json.load(r)["requests"])


def test_two_processes_share_one_port_and_their_counts_add_up():
    first, a = _start(0)
    second, b = None, {}
    try:
        second, b = _start(a["port"])
        assert b["port"] == a["port"] and len({a["own"], b["own"], a["port"]}) == 3
        answers = [_post(a["port"], i) for i in range(40)]  # a new connection each: the kernel spreads them
        assert all(r["choices"][0]["message"]["content"] for r in answers)
        counts = [_requests(a["own"]), _requests(b["own"])]
        assert sum(counts) == 40
        assert all(c > 0 for c in counts), counts  # 40 connections never all land on one (2**-39)
    finally:
        for proc in (first, second):
            if proc is not None:
                proc.terminate()
                proc.wait()
