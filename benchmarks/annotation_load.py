"""The annotation app under load: labels per second against the label log's length, and kill -9.

Usage:
  python benchmarks/annotation_load.py [--lines 1000 50000] [--clients 20] [--seconds 10]
                                       [--kill SECONDS] [--riddles 10000]

A synthetic project (params.yaml's 6 models x ``--riddles`` riddles = 60,000 predictions, jury votes
drawn from a seeded generator) in a temporary folder. For each ``--lines`` N, the label log is
filled with N labels of other annotators, ``sideways annotate serve`` is started (its start replays
the whole log: the time is printed), and ``--clients`` threads each ask for an item and label it,
over HTTP on 127.0.0.1, for ``--seconds``. It prints labels per second per log length: flat when no
request replays the log.

``--kill S``: the load test. The same clients for S seconds on an empty log, the server killed
with SIGKILL at S/2 and started again (the clients retry until it answers). Then every
acknowledged label must be in the file, no (riddle, model, annotator) twice, and no answer a 5xx;
the script exits 1 otherwise. ``--src DIR`` runs another checkout's ``src`` (to measure a version
before this one).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

import httpx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402

from sideways.artifacts.io import write_table  # noqa: E402
from sideways.artifacts.schema import JURY, PREDICTIONS, RIDDLES, conform  # noqa: E402
from sideways.config.params import load_params, raw_params  # noqa: E402

TOKEN = "X-CSRF-Token"


def build(root: Path, n_riddles: int) -> list[tuple[str, str, str]]:
    """The project; returns every prediction as (riddle_id, model, provider)."""
    data, _ = raw_params(REPO / "params.yaml")
    params = dict(data)
    params["splits"] = ["llm"]
    params["annotations"] = {**params["annotations"], "source": "file", "budget": None, "share": 1.0}
    root.mkdir(parents=True)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    models = [(m.key, m.provider) for m in load_params(root / "params.yaml").models]
    ids = [f"b-{i:05d}" for i in range(n_riddles)]
    riddles = pd.DataFrame({
        "riddle_id": ids, "split": "llm", "category": "bench", "title": [f"Riddle {i}" for i in ids],
        "description": "How many?", "answer": "3", "solution": "Three.", "justification": "Count them.",
        "first_hint": None, "second_hint": None, "third_hint": None, "special_hint": None, "image": None,
        "picarats": 20, "game": None, "source": "bench", "url": None, "license": "CC0-1.0"})
    write_table(conform(riddles, RIDDLES, "bench riddles"), RIDDLES, root / "data/split/llm.parquet")
    rng = np.random.default_rng(0)
    jury = []
    for key, provider in models:
        preds = pd.DataFrame({
            "riddle_id": ids, "model": key, "provider": provider, "model_name": key, "n_hints": 0,
            "answer": "3", "justification": "because", "raw": None, "status": "ok", "error": None,
            "request_hash": None, "input_tokens": None, "output_tokens": None, "cost_usd": None})
        write_table(preds, PREDICTIONS, root / f"data/predictions/llm/{key}.parquet")
        votes = rng.integers(0, 4, n_riddles)
        frame = pd.DataFrame({"riddle_id": ids, "model": key, "provider": provider, "model_name": key,
                              "n_hints": 0, "panel": "a,b,c"})
        for f in ("answer_correct", "justification_correct", "both_correct"):
            frame[f"{f}_votes"], frame[f"{f}_judges"], frame[f"{f}_score"] = votes, 3, votes / 3
        jury.append(frame)
    write_table(pd.concat(jury, ignore_index=True), JURY, root / "data/jury/llm.parquet")
    return [(r, k, p) for k, p in models for r in ids]


def fill(root: Path, predictions: list[tuple[str, str, str]], n: int) -> None:
    """The label log with ``n`` labels of three other annotators (the last predictions first)."""
    path = root / "data/labels/llm.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        for i, (r, m, p) in enumerate(reversed(predictions[-n:] if n else [])):
            out.write(json.dumps({"riddle_id": r, "model": m, "provider": p, "human_answer_correct": i % 3 > 0,
                                  "human_justification_correct": i % 2 > 0, "annotator": f"pre-{i % 3}"}) + "\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, root: Path, port: int, src: Path) -> None:
        self.root, self.port, self.src = root, port, src
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Start it; the seconds until it answers (it replays the whole log first)."""
        t0 = time.perf_counter()
        env = {**os.environ, "PYTHONPATH": str(self.src)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sideways.commands.annotate", "serve", "--split", "llm", "--annotator", "bench",
             "--port", str(self.port)], cwd=self.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"the server stopped (status {self.proc.returncode})")
            try:
                httpx.get(f"{self.url}/api/progress", timeout=60)
                return time.perf_counter() - t0
            except httpx.TransportError:
                time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


class Load:
    """``clients`` threads labelling until ``stop`` is set; what each answer was."""

    def __init__(self, url: str, clients: int) -> None:
        self.url, self.stop = url, threading.Event()
        self.acked: list[tuple[str, str]] = []
        self.statuses: Counter[int] = Counter()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._client) for _ in range(clients)]

    def _client(self) -> None:
        token = None
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while not self.stop.is_set():
                try:
                    r = client.get("/api/next", headers={TOKEN: token} if token else {})
                    self._count(r.status_code)
                    if r.status_code != 200:
                        time.sleep(0.05)
                        continue
                    item = r.json()
                    token = item["token"]
                    body = {"item_id": item["item_id"], "answer_correct": True, "justification_correct": False}
                    posted = client.post("/api/labels", json=body, headers={TOKEN: token})
                    self._count(posted.status_code)
                    if posted.status_code == 200:
                        with self.lock:
                            self.acked.append((posted.json()["riddle_id"], posted.json()["model"]))
                except httpx.TransportError:
                    token = None  # killed: the restarted server knows no token and no item id
                    time.sleep(0.05)

    def _count(self, status: int) -> None:
        with self.lock:
            self.statuses[status] += 1

    def run(self, seconds: float, midway: Any = None) -> float:
        """Run for ``seconds`` (``midway()`` at half time); labels per second."""
        for t in self.threads:
            t.start()
        t0 = time.perf_counter()
        if midway is not None:
            time.sleep(seconds / 2)
            midway()
        time.sleep(max(0.0, seconds - (time.perf_counter() - t0)))
        self.stop.set()
        for t in self.threads:
            t.join()
        return len(self.acked) / (time.perf_counter() - t0)


def throughput(root: Path, predictions: list[tuple[str, str, str]], lines: int, args: argparse.Namespace) -> None:
    fill(root, predictions, lines)
    server = Server(root, free_port(), args.src)
    try:
        started = server.start()
        load = Load(server.url, args.clients)
        rate = load.run(args.seconds)
    finally:
        server.kill()
    bad = sum(n for s, n in load.statuses.items() if s >= 500)
    print(f"log of {lines:>6,} lines: {rate:7.1f} labels/s ({args.seconds:.0f} s, {args.clients} clients; "
          f"start, replaying the log: {started:.2f} s; answers 5xx: {bad})",
          flush=True)


def kill_test(root: Path, args: argparse.Namespace) -> bool:
    path = root / "data/labels/llm.jsonl"
    path.unlink(missing_ok=True)
    server = Server(root, free_port(), args.src)
    server.start()
    load = Load(server.url, args.clients)

    def midway() -> None:
        server.kill()
        server.start()

    try:
        rate = load.run(args.kill, midway)
    finally:
        server.kill()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    keys = Counter((x["riddle_id"], x["model"], x["annotator"]) for x in lines)
    on_disk = {(r, m) for r, m, _ in keys}
    lost = sum(1 for a in load.acked if a not in on_disk)
    dup = sum(n - 1 for n in keys.values() if n > 1)
    bad = sum(n for s, n in load.statuses.items() if s >= 500)
    print(f"kill -9 at {args.kill / 2:.0f} s of {args.kill:.0f} s, {args.clients} clients: {len(load.acked)} labels "
          f"acknowledged ({rate:.1f}/s), {len(lines)} lines on disk;\n"
          f"  lost {lost}, duplicated {dup}, 5xx {bad}; answers {dict(sorted(load.statuses.items()))}")
    return lost == dup == bad == 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, nargs="*", default=[1000, 50000])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--riddles", type=int, default=10_000)
    ap.add_argument("--kill", type=float, default=0.0, metavar="SECONDS")
    ap.add_argument("--src", type=Path, default=REPO / "src")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="annotation-load-"))
    try:
        predictions = build(work / "project", args.riddles)
        if args.lines and max(args.lines) > len(predictions) - 10_000:
            raise SystemExit(f"--lines {max(args.lines)}: leaves under 10,000 of the {len(predictions)} predictions")
        for n in args.lines:
            throughput(work / "project", predictions, n, args)
        return 0 if not args.kill or kill_test(work / "project", args) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
