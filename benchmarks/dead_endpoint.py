"""How long a dead endpoint takes to fail a job: a closed port, and a server answering 503 to everything.

One ``predict`` job of ``--items`` riddles through the openai-compatible backend at the default
retry settings of params.yaml's ``requests:`` (6 attempts, backoff 1 s doubling up to 60 s),
concurrency 4: against a port nothing listens on (connection refused), then against the fake
server (``sideways.testing.openai_server``) answering 503 to every request. Prints the wall time
until the job's rows come back and the attempts the server saw.

    PYTHONPATH=src python benchmarks/dead_endpoint.py [--items 33]
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from sideways.artifacts.schema import RIDDLES, conform
from sideways.backends.base import RunContext
from sideways.backends.openai_compatible import OpenAICompatibleBackend
from sideways.config.options import OpenAICompatibleOptions
from sideways.config.params import ModelSpec
from sideways.config.prices import parse_prices
from sideways.config.requests import parse_requests
from sideways.testing.openai_server import Behaviour, FakeServer


def riddles(n: int) -> pd.DataFrame:
    rows = [{"riddle_id": f"R{i:03d}", "split": "llm", "category": "Arithmetic", "title": f"Puzzle {i}",
             "description": f"[R{i:03d}] How many apples? The answer is {i % 7}.", "answer": str(i % 7),
             "solution": "Count.", "justification": "Count.", "first_hint": "Count.", "second_hint": "Again.",
             "third_hint": None, "special_hint": "Trick!", "image": None, "picarats": 20, "game": None,
             "source": "bench", "url": None, "license": "CC0"} for i in range(n)]
    return conform(pd.DataFrame(rows), RIDDLES, "bench riddles")


def spec(url: str) -> ModelSpec:
    return ModelSpec("dead-m", "openai-compatible", "deadco", "dead-model-1", 1,
                     OpenAICompatibleOptions(base_url=url, concurrency=4, max_tokens=64))


def timed(url: str, items: int, folder: Path) -> tuple[float, pd.DataFrame]:
    ctx = RunContext(seed=0, env={}, requests=parse_requests({"cache_dir": str(folder)}), prices=parse_prices({}))
    start = time.monotonic()
    df = OpenAICompatibleBackend().predict(riddles(items), spec(url), ctx)
    return time.monotonic() - start, df


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=33)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        took, df = timed(f"http://127.0.0.1:{free_port()}/v1", args.items, Path(tmp) / "a")
        print(f"closed port: {args.items} items failed in {took:.1f} s; first error: {str(df['error'].iloc[0])[:80]}")
        with FakeServer(Behaviour(plan={"": ["503"]}, keep_bodies=False)) as server:
            took, df = timed(server.base_url, args.items, Path(tmp) / "b")
            print(f"always 503: {args.items} items failed in {took:.1f} s after {server.fake.requests} attempts; "
                  f"first error: {str(df['error'].iloc[0])[:60]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
