"""The spending cap's stop rule against realistic answers: does a run whose estimate fits finish, does one
over it send nothing, and where does one that reaches the cap midway stop?

One ``predict`` job of ``--items`` riddles through the openai-compatible backend against the fake
server (``sideways.testing.openai_server``) answering every riddle with ``--reply-tokens`` tokens of
text (a realistic answer with its justification), at concurrency ``--concurrency``, with a model
entry's ``max_tokens`` of 4,096 (so one request's worst case is ~10x its expected cost) and
``$3 / $15`` per million input / output tokens. The estimate is the dry run's
(``expected_output_tokens`` 500 a request). Three caps: the estimate plus 5% (within), half the
estimate (over), and, with replies twice as long as expected, the estimate plus 20% (reached midway:
the answers cost more than estimated). Prints, for each, requests sent, what they cost and where the
run stopped against the cap and one request's worst case.

    PYTHONPATH=src python benchmarks/spending_cap.py [--items 100] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import inspect
import sys
import tempfile
from pathlib import Path

import pandas as pd

from sideways.artifacts.schema import RIDDLES, conform
from sideways.backends.base import RunContext
from sideways.backends.openai_compatible import OpenAICompatibleBackend
from sideways.config.options import OpenAICompatibleOptions
from sideways.config.params import ModelSpec
from sideways.config.prices import parse_prices
from sideways.config.requests import parse_requests
from sideways.llm import budget
from sideways.planning.estimate import input_tokens
from sideways.testing.openai_server import Behaviour, FakeServer

PRICES = {"paid-model-1": {"input_per_mtok": 3.0, "output_per_mtok": 15.0}}
MAX_TOKENS = 4096


def riddles(n: int) -> pd.DataFrame:
    rows = [{"riddle_id": f"R{i:03d}", "split": "llm", "category": "Arithmetic", "title": f"Puzzle {i}",
             "description": f"[R{i:03d}] How many apples are left in the basket? The answer is {i % 7}. " * 4,
             "answer": str(i % 7), "solution": "Count.", "justification": "Count.", "first_hint": "Count.",
             "second_hint": "Again.", "third_hint": None, "special_hint": "Trick!", "image": None, "picarats": 20,
             "game": None, "source": "bench", "url": None, "license": "CC0"} for i in range(n)]
    return conform(pd.DataFrame(rows), RIDDLES, "bench riddles")


def reply(tokens: int) -> str:
    """A JSON answer whose justification makes it ``tokens`` tokens long (the fake counts 4 characters a token)."""
    return '{"answer": "3", "justification": "' + "count the apples " * (tokens * 4 // 17) + '"}'


def run(items: int, concurrency: int, reply_tokens: int, cap_of: float, folder: Path) -> str:
    table = riddles(items)
    with FakeServer(Behaviour(replies={"": reply(reply_tokens)}, keep_bodies=False)) as server:
        spec = ModelSpec("paid-m", "openai-compatible", "paidco", "paid-model-1", 1,
                         OpenAICompatibleOptions(base_url=server.base_url, concurrency=concurrency,
                                                 max_tokens=MAX_TOKENS))
        ctx = RunContext(seed=0, env={}, requests=parse_requests({"cache_dir": str(folder)}),
                         prices=parse_prices(PRICES))
        backend = OpenAICompatibleBackend()
        target, calls = backend.plan_predictions(table, spec, ctx)
        names, s = target.price_names, ctx.requests
        out = min(s.expected_output_tokens, MAX_TOKENS)  # the dry run's estimate, request by request
        expected = [ctx.prices.cost(names, input_tokens(c, s.image_tokens), out, batch=False, discount=0.5) or 0.0
                    for c in calls]
        worst = max(budget.worst_case(c.body, names, MAX_TOKENS, ctx.prices, batch=False, discount=0.5,
                                      image_tokens=1000) or 0.0 for c in calls)
        estimate = sum(expected)
        cap = estimate * cap_of
        fields = inspect.signature(budget.Budget).parameters
        extra = {"remaining": {"paid-m": estimate}} if "remaining" in fields else {}
        budget.install(budget.Budget(cap=cap, **extra))
        try:
            if estimate > cap:  # the paid stage's estimate check (planning/cap.py) refuses it before sending
                return (f"estimate ${estimate:.4f}, cap ${cap:.4f}: refused by the estimate check, "
                        f"{server.fake.requests} of {items} sent")
            df = backend.predict(table, spec, ctx)
            spent = budget.current().total_spent()  # type: ignore[union-attr]
        finally:
            budget.install(None)
        sent = server.fake.requests
        ok = int((df["status"] == "ok").sum())
        stop = "completed" if ok == items else f"stopped, cap - spent ${cap - spent:.4f}"
        return (f"estimate ${estimate:.4f}, cap ${cap:.4f}: {sent} of {items} sent, spent ${spent:.4f} ({stop}; "
                f"one request's worst case ${worst:.4f})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        for name, tokens, cap_of in (("within", 300, 1.05), ("over", 300, 0.5), ("midway", 1000, 1.2)):
            line = run(args.items, args.concurrency, tokens, cap_of, Path(tmp) / name)
            print(f"{name}: replies of {tokens} tokens, {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
