"""``sideways l3score``: the L3Score of lists of (question, prediction, reference), as the seed's app.

It prints ``{"L3Score": mean, "Cost": usd, "n": n}``: the mean score, what this run paid, and how
many items were scored. Requests go through the request cache of params.yaml (``requests.cache_dir``),
so a rerun sends nothing and costs 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sideways.backends.base import RunContext
from sideways.backends.openai_compatible import OpenAICompatibleBackend
from sideways.commands import Subparsers, add_params_option, run_alone
from sideways.config.options import OpenAICompatibleOptions
from sideways.config.params import L3SCORE_MAX_TOKENS, L3SCORE_TEMPERATURE, JudgeSpec, load_params
from sideways.config.prices import PriceTable, parse_prices
from sideways.config.requests import RequestSettings
from sideways.core import progress
from sideways.core.errors import ParamsError, SchemaError
from sideways.core.jsonl import decode, read_jsonl_numbered
from sideways.llm.l3score_requests import L3Item, L3Outcome
from sideways.llm.secrets import environment

FIELDS = ("question", "prediction", "reference")

HELP = """\
Grade candidate answers against reference answers with L3Score (SPIQA): a judge model is asked
whether the two answers mean the same, Yes or No, and the score is its probability of Yes from
the top-5 log-probabilities of its first token. Needs an OpenAI-compatible endpoint that returns
logprobs (OpenAI, DeepSeek, xAI, a vLLM server, ...).

Inputs: --questions, --predictions and --references are text files, one item a line (blank lines
are skipped, as in the seed's app), or JSONL files whose lines hold the fields question,
prediction and reference; --jsonl FILE gives all three from one JSONL file.

Prints {"L3Score": mean, "Cost": usd, "n": n} (plus "failed" when some items got no score, and
"items" with --items). Cost is what this run paid, from the reported token usage and the price
of --model (prices: in params.yaml, or --input-per-mtok and --output-per-mtok); answers come
from the request cache of params.yaml when they were paid for before, so a rerun costs 0.
"""


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("l3score", help="L3Score of predictions against references (a log-probability judge)",
                              description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    for field in FIELDS:
        p.add_argument(f"--{field}s", metavar="PATH", help=f"the {field}s: a text file, one a line, or JSONL")
    p.add_argument("--jsonl", metavar="PATH", help="one JSONL file with question, prediction and reference fields")
    p.add_argument("--model", required=True, metavar="NAME", help="the judge model id the endpoint expects")
    p.add_argument("--base-url", required=True, metavar="URL", help="the endpoint, e.g. https://api.openai.com/v1")
    p.add_argument("--api-key-env", metavar="VAR", help="the environment variable (or .env entry) holding the key")
    p.add_argument("--provider", default="openai",
                   help="the judge's provider, part of the cache key as in the pipeline (default: openai)")
    p.add_argument("--items", action="store_true", help="also print each item's score")
    p.add_argument("--input-per-mtok", type=float, metavar="USD", help="input price per million tokens")
    p.add_argument("--output-per-mtok", type=float, metavar="USD", help="output price per million tokens")
    add_params_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    items = read_items(args)
    settings, prices = _settings(args)
    judge = JudgeSpec("l3score", "openai-compatible", args.provider, args.model, OpenAICompatibleOptions(
        base_url=args.base_url, api_key_env=args.api_key_env, max_tokens=L3SCORE_MAX_TOKENS,
        temperature=L3SCORE_TEMPERATURE), "l3score")
    ctx = RunContext(progress=progress.enabled(), env=environment(".env"), requests=settings, prices=prices)
    outcomes = OpenAICompatibleBackend().l3score(items, judge, ctx)
    summary = summarise(outcomes, with_items=args.items)
    fresh = sum(not o.cached for o in outcomes)
    print(f"l3score: {len(items)} items, {fresh} sent, {len(items) - fresh} from the request cache", file=sys.stderr)
    if summary["Cost"] is None:
        print(f"l3score: no price for {args.model!r}: Cost is null (add it under prices: in params.yaml, "
              "or give --input-per-mtok and --output-per-mtok)", file=sys.stderr)
    print(json.dumps(summary))
    return 1 if summary.get("failed") else 0


def summarise(outcomes: Sequence[L3Outcome], with_items: bool = False) -> dict[str, Any]:
    """The seed's result: mean score over the scored items, USD paid by this run (None when a
    paid answer has no price), items scored; then failures and per-item scores when asked."""
    scores = [o.score for o in outcomes if o.score is not None]
    paid = [o.usage["cost_usd"] for o in outcomes if not o.cached and o.status != "api_error"]
    cost = None if any(c is None for c in paid) else round(float(sum(c for c in paid if c is not None)), 10)
    out: dict[str, Any] = {"L3Score": sum(scores) / len(scores) if scores else None, "Cost": cost, "n": len(scores)}
    failed = [i for i, o in enumerate(outcomes, 1) if o.score is None]
    if failed:
        out["failed"] = len(failed)
        first = outcomes[failed[0] - 1]
        print(f"l3score: item {failed[0]}: {first.status}: {first.error}", file=sys.stderr)
    if with_items:
        out["items"] = [{"item": i, "score": o.score, "status": o.status, **({"error": o.error} if o.error else {})}
                        for i, o in enumerate(outcomes, 1)]
    return out


def read_items(args: argparse.Namespace) -> list[L3Item]:
    """The (question, prediction, reference) triples of the input files, checked to line up."""
    paths = {f: getattr(args, f"{f}s") or args.jsonl for f in FIELDS}
    missing = [f"--{f}s" for f, p in paths.items() if p is None]
    if missing:
        raise SchemaError(f"l3score: give {', '.join(missing)} (or --jsonl with all three fields)")
    columns = {f: read_column(Path(p), f) for f, p in paths.items()}
    counts = {len(c) for c in columns.values()}
    if len(counts) != 1:
        raise SchemaError("l3score: the inputs do not line up: " + ", ".join(
            f"{len(columns[f])} {f}s in {paths[f]}" for f in FIELDS))
    return [L3Item(str(i), q, p, r)
            for i, (q, p, r) in enumerate(zip(*(columns[f] for f in FIELDS), strict=True), 1)]


def read_column(path: Path, field: str) -> list[str]:
    """One field of every item: a JSONL file's ``field`` per line, or a text file's non-blank lines."""
    if path.suffix == ".jsonl":
        records, numbers = read_jsonl_numbered(path)
        values = []
        for row, n in zip(records, numbers, strict=True):
            value = row.get(field)
            if not isinstance(value, str):
                raise SchemaError(f"{path}:{n}: field {field!r} should be a string, got {value!r:.60}")
            values.append(value.strip())
        return values
    try:
        text = decode(path.read_bytes(), str(path))
    except OSError as exc:
        raise SchemaError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    return [line.strip() for line in text.split("\n") if line.strip()]


def _settings(args: argparse.Namespace) -> tuple[RequestSettings, PriceTable]:
    """``requests:`` and ``prices:`` of the params file (defaults when the default file is absent),
    with --input-per-mtok/--output-per-mtok as the price of --model."""
    settings, prices = RequestSettings(), PriceTable()
    if Path(args.params).is_file():
        params = load_params(args.params)
        settings, prices = params.requests, params.prices
    elif args.params != "params.yaml":
        raise ParamsError(f"{args.params}: file not found")
    given = (args.input_per_mtok, args.output_per_mtok)
    if given != (None, None):
        if None in given:
            raise ParamsError("l3score: give both --input-per-mtok and --output-per-mtok")
        entry = {"input_per_mtok": given[0], "output_per_mtok": given[1]}
        prices = PriceTable({**prices.prices, **parse_prices({args.model: entry}, "l3score prices").prices})
    return settings, prices


if __name__ == "__main__":
    raise SystemExit(run_alone(register))
