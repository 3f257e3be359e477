"""``sideways dry-run``: what ``dvc repro`` would send to real models, and what it would cost.

Reads params.yaml and the split tables (and, with ``riddles.source: wiki`` and a model under
``riddles.extract``, the raw scrape), builds every extract, predict and judge request exactly as
the stages would, checks the request cache and the answers each stage's previous results carry
(``dvc pull`` brings them), and prints per provider the requests, how many are cached, how many
are answered by pulled results, how many would be sent (and paid), in how many batches, and the
estimated tokens and USD. Sends nothing and needs no key.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from sideways.commands import Subparsers, add_params_option
from sideways.config.params import load_params
from sideways.jobs.context import run_context
from sideways.llm.cache import RequestCache
from sideways.planning.cascade import saving_lines
from sideways.planning.estimate import Estimate, estimate
from sideways.planning.plan import EXTRACT, carried_keys, pending_splits, plan_all

DESCRIPTION = """\
Build every predict and judge request `dvc repro` would make, exactly as the stages would, and
print per provider: requests, how many the request cache holds, how many pulled results answer,
how many would be sent (and paid), in how many batches, and the estimated tokens and USD.
Sends nothing and needs no API key."""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("dry-run", help="print requests, batches and estimated cost per provider; send nothing",
                       description=DESCRIPTION)
    add_params_option(p)
    p.add_argument("--by-model", action="store_true", help="one line per (stage, model or judge, split) as well")
    p.set_defaults(func=run)


def _usd(value: float | None) -> str:
    return "no price" if value is None else f"${value:,.4f}"


def _by_model(estimates: list[Estimate]) -> list[str]:
    """One line per (stage, split, model or judge), columns as wide as their longest cell: within
    120 columns at the default project; an estimated row is marked ``*`` with one note below."""
    key = max([11, *(len(e.key) for e in estimates)]) + 1
    backend = max([7, *(len(e.backend) for e in estimates)]) + 1
    split = max([5, *(len(e.split) for e in estimates)]) + 1
    lines = [f"{'stage':<13}{'split':<{split}}{'model/judge':<{key}}{'backend':<{backend}}{'requests':>9}{'cached':>7}"
             f"{'pulled':>7}{'to send':>8}{'batches':>8}{'in tok':>10}{'out tok':>9}{'est. USD':>11}"]
    for e in estimates:
        lines.append(f"{e.stage:<13}{e.split:<{split}}{e.key:<{key}}{e.backend:<{backend}}{e.requests:>9}"
                     f"{e.cached:>7}{e.pulled:>7}{e.to_send:>8}{e.batches:>8}{e.input_tokens:>10,}"
                     f"{e.output_tokens:>9,}{_usd(e.cost_usd):>11}" + ("" if e.exact else " *"))
    if not all(e.exact for e in estimates):
        lines.append("* judge requests estimated from gold answers (the predictions are not made yet)")
    return [*lines, ""]


def format_report(estimates: list[Estimate], by_model: bool) -> str:
    lines = []
    if by_model:
        lines += _by_model(estimates)
    totals: dict[tuple[str, str], list[Estimate]] = defaultdict(list)
    for e in estimates:
        totals[(e.provider, e.backend)].append(e)
    lines.append(f"{'provider':<14}{'backend':<19}{'requests':>9}{'cached':>8}{'pulled':>8}{'to send':>9}{'batches':>8}"
                 f"{'in tok':>11}{'out tok':>10}{'est. USD':>13}")
    grand, unpriced = 0.0, set()
    for (provider, backend), group in sorted(totals.items()):
        costs = [e.cost_usd for e in group]
        known = sum(c for c in costs if c is not None)
        missing = [e.key for e in group if e.cost_usd is None]
        unpriced.update(missing)
        grand += known
        usd = "no price" if missing and not known else _usd(known) + (" + ?" if missing else "")
        lines.append(f"{provider:<14}{backend:<19}{sum(e.requests for e in group):>9}{sum(e.cached for e in group):>8}"
                     f"{sum(e.pulled for e in group):>8}{sum(e.to_send for e in group):>9}"
                     f"{sum(e.batches for e in group):>8}"
                     f"{sum(e.input_tokens for e in group):>11,}{sum(e.output_tokens for e in group):>10,}{usd:>13}")
    lines.append(f"\nestimated total: {_usd(grand)}" + (
        f" plus unpriced models ({', '.join(sorted(unpriced))}: add them under prices: in params.yaml)"
        if unpriced else ""))
    lines.append("nothing was sent.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    params = load_params(args.params)
    ctx = run_context(params)
    cache = RequestCache(params.requests.cache_dir)
    planned = plan_all(params, ctx)
    estimates = [estimate(p, lambda k: cache.get(k) is not None, params.requests, params.prices, carried_keys(p))
                 for p in planned]
    print(format_report(estimates, args.by_model))
    for line in saving_lines(params, planned, estimates):  # jury.cascade: what its second round is expected to skip
        print(line)
    cap = params.requests.max_cost_usd
    if cap is not None:
        total = sum(e.cost_usd or 0.0 for e in estimates if e.stage != EXTRACT)
        verdict = "within it" if total <= cap else "over it: predict would stop before sending anything"
        print(f"requests.max_cost_usd ${cap:,.4f}: the estimate of predict and judge (${total:,.4f}) is {verdict}")
    pending = pending_splits(params) if any(p.stage == EXTRACT for p in planned) else []
    if pending:
        print(f"not priced yet: predict and judge on {', '.join(pending)} (their riddles come from the extract "
              "stage; run the dry run again after `dvc repro split`)")
    return 0
