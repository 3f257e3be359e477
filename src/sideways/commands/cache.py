"""``sideways cache``: what the request cache holds, and why a request missed it.

``cache stats``           records, tokens and USD per provider and model
``cache why -m M -s S``   for each request of predict@M+S (and its judges with ``--judges``):
                          hit, or miss with the cached request it differs from and how
``cache show KEY``        one record (a key prefix is enough), without the response body
``cache forget-errors``   drop cached rejections (HTTP 4xx) so the next run asks again
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from typing import Any

from sideways.backends.base import RunContext
from sideways.commands import Subparsers, add_params_option
from sideways.config.params import Params, load_params
from sideways.core.errors import SidewaysError
from sideways.jobs.context import run_context
from sideways.llm.cache import RequestCache, explain
from sideways.planning.plan import plan_model


def register(sub: Subparsers) -> None:
    p = sub.add_parser("cache", help="inspect the request cache; explain cache misses",
                       description="Inspect the request cache (requests.cache_dir in params.yaml): every request "
                                   "a real model answered, once.")
    add_params_option(p)
    cmds = p.add_subparsers(dest="cache_command", required=True, title="cache commands", metavar="COMMAND",
                            help="one of:")
    stats = cmds.add_parser("stats", help="records, tokens and USD per provider and model",
                            description="Records, batch records, input and output tokens and USD paid, "
                                        "per provider and model.")
    stats.set_defaults(func=run_stats)
    why = cmds.add_parser("why", help="hit or miss for each request of a stage, and why it missed",
                          description="For each request predict@MODEL+SPLIT would send (and its judges' with "
                                      "--judges): cached, or the nearest cached request and what differs.")
    why.add_argument("-m", "--model", required=True, help="model key in params.yaml")
    why.add_argument("-s", "--split", required=True, help="split of params.yaml (llm or vlm)")
    why.add_argument("--judges", action="store_true", help="also the requests of the model's judges")
    why.add_argument("--all", action="store_true", help="explain every miss (default: the first 5 per stage)")
    why.set_defaults(func=run_why)
    show = cmds.add_parser("show", help="one record, without its response body",
                           description="Print one cache record as JSON, its response body omitted.")
    show.add_argument("key", help="a request_hash or a unique prefix of one")
    show.set_defaults(func=run_show)
    forget = cmds.add_parser("forget-errors", help="drop cached rejections (HTTP 4xx) so the next run asks again",
                             description="Drop cached rejections (HTTP 4xx), so the next run asks again.")
    forget.set_defaults(func=run_forget_errors)


def _cache(args: argparse.Namespace) -> tuple[RequestCache, tuple[Params, RunContext]]:
    params = load_params(args.params)
    ctx = run_context(params)
    return RequestCache(params.requests.cache_dir), (params, ctx)


def run_stats(args: argparse.Namespace) -> int:
    cache, _ = _cache(args)
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in cache.records():
        parts = record.get("parts") or {}
        groups[(parts.get("provider", "?"), parts.get("model", "?"))].append(record)
    if not groups:
        print(f"cache: {cache.root} is empty: no request to a real model has been answered yet")
        return 0
    print(f"cache: {cache.root}")
    print(f"{'provider':<14}{'model':<30}{'records':>8}{'batch':>7}{'in tok':>11}{'out tok':>10}{'USD paid':>12}")
    for (provider, model), records in sorted(groups.items()):
        usd = sum(r.get("cost_usd") or 0 for r in records)
        print(f"{provider:<14}{model:<30}{len(records):>8}{sum(bool(r.get('batch')) for r in records):>7}"
              f"{sum(r.get('input_tokens') or 0 for r in records):>11,}"
              f"{sum(r.get('output_tokens') or 0 for r in records):>10,}{usd:>12.4f}")
    return 0


def run_why(args: argparse.Namespace) -> int:
    cache, (params, ctx) = _cache(args)
    model = params.model(args.model)
    if args.split not in params.splits:
        raise SidewaysError(f"--split {args.split!r}: not a split of params.yaml ({', '.join(params.splits)})")
    for planned in plan_model(params, model, args.split, ctx, judges=args.judges):
        name = f"{planned.stage} {planned.spec.key} on {planned.split}"
        if not planned.calls:
            print(f"{name}: backend {planned.backend} sends no requests")
            continue
        misses = [c for c in planned.calls if cache.get(c.key) is None]
        note = "" if planned.exact else " (no predictions yet: judge requests built from gold answers)"
        print(f"{name}: {len(planned.calls) - len(misses)} of {len(planned.calls)} requests cached{note}")
        for call in misses if args.all else misses[:5]:
            for line in explain(cache, call.key, call.parts, call.label):
                print("  " + line)
        if len(misses) > 5 and not args.all:
            print(f"  ... {len(misses) - 5} more misses (--all to explain every one)")
    return 0


def run_show(args: argparse.Namespace) -> int:
    cache, _ = _cache(args)
    matches = [r for r in cache.records() if r["key"].startswith(args.key)] if len(args.key) < 64 else \
        [r for r in [cache.get(args.key)] if r]
    if len(matches) != 1:
        raise SidewaysError(f"cache show {args.key}: {len(matches)} records match; give a longer prefix" if matches
                            else f"cache show {args.key}: no record in {cache.root}")
    record = dict(matches[0])
    record["response"] = "<omitted>"
    print(json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False))
    return 0


def run_forget_errors(args: argparse.Namespace) -> int:
    cache, _ = _cache(args)
    dropped = [r["key"] for r in cache.records() if r.get("error")]
    for key in dropped:
        cache.forget(key)
    print(f"dropped {len(dropped)} cached rejection(s) from {cache.root}")
    return 0
