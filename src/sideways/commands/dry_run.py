"""``sideways dry-run``: what ``dvc repro`` would send to real models, and what it would cost.

Reads params.yaml and the split tables (and, with ``riddles.source: wiki`` and a model under
``riddles.extract``, the raw scrape), builds every extract, predict and judge request exactly as
the stages would, checks the request cache and the answers each stage's previous results carry
(``dvc pull`` brings them), and prints per provider the requests, how many are cached, how many
are answered by pulled results, how many would be sent (and paid), in how many batches, and the
estimated tokens and USD, then, with a cascade (or an exam's sample), the full design (every judge on every
prediction) against this one. Sends nothing and needs no key.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from sideways.commands import Subparsers, add_params_option
from sideways.config.params import load_params
from sideways.core.width import WIDTH, clip, listing
from sideways.jobs.context import run_context
from sideways.llm import ledger
from sideways.llm.cache import RequestCache
from sideways.planning.cascade import saving_lines
from sideways.planning.estimate import Estimate, estimate
from sideways.planning.plan import EXTRACT, carried_keys, pending_splits, plan_all
from sideways.planning.savings import design_savings
from sideways.scoring.costs import design_lines

DESCRIPTION = """\
Build every predict and judge request `dvc repro` would make, exactly as the stages would, and
print per provider: requests, how many the request cache holds, how many pulled results answer,
how many would be sent (and paid), in how many batches, and the estimated tokens and USD; with
jury.cascade, the full design (every judge on every prediction) against this one.
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
    """One line per (stage, split, model or judge) that has requests, columns as wide as their longest
    cell and no line over 120 columns (a key too long for its column is cut with ``...``); the rows
    of backends that send nothing (sim, replay: zero cost) are one line below, counted by backend; an
    estimated row is marked ``*`` with one note below."""
    asking = [e for e in estimates if e.requests]
    quiet = [e for e in estimates if not e.requests]
    lines = _model_table(asking) if asking else []
    if quiet:
        backends = Counter(e.backend for e in quiet)
        kinds = ", ".join(f"{b} {n}" for b, n in sorted(backends.items()))
        lines.append(clip(f"{len(quiet)} rows of models and judges with no request to send (zero cost; by backend: "
                          f"{kinds}) not listed"))
    return [*lines, ""]


def _model_table(estimates: list[Estimate]) -> list[str]:
    """The rows of :func:`_by_model` that have requests: each column as wide as its longest cell, and
    the key's column what is left of 120 columns (at least 12)."""
    marked = not all(e.exact for e in estimates)
    cells = [[e.stage, e.split, e.key, e.backend, str(e.requests), str(e.cached), str(e.pulled), str(e.to_send),
              str(e.batches), f"{e.input_tokens:,}", f"{e.output_tokens:,}", _usd(e.cost_usd)] for e in estimates]
    heads = ["stage", "split", "model/judge", "backend", "requests", "cached", "pulled", "to send", "batches",
             "in tok", "out tok", "est. USD"]
    widths = [max(len(h), *(len(row[i]) for row in cells)) for i, h in enumerate(heads)]
    others = sum(w + 1 for i, w in enumerate(widths) if i != 2) + (2 if marked else 0)
    widths[2] = max(12, min(widths[2], WIDTH - others - 1))

    def line(row: list[str]) -> str:
        text = [clip(c, widths[i]).ljust(widths[i]) if i < 4 else c.rjust(widths[i]) for i, c in enumerate(row)]
        return " ".join(text)

    lines = [line(heads)] + [line(row) + ("" if e.exact else " *") for row, e in zip(cells, estimates, strict=True)]
    if marked:
        lines.append("* judge requests estimated from gold answers (the predictions are not made yet)")
    return [clip(x) for x in lines]


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
    total = f"estimated total: {_usd(grand)}"
    if unpriced:
        room = WIDTH - len(total) - len(" plus unpriced models (: add them under prices: in params.yaml)")
        total += f" plus unpriced models ({listing(sorted(unpriced), room)}: add them under prices: in params.yaml)"
    lines += ["", total, "nothing was sent."]
    return "\n".join(clip(line) for line in lines)


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
    unpriced = any(e.cost_usd is None and e.to_send for e in estimates)
    to_send = None if unpriced else sum(e.cost_usd or 0.0 for e in estimates)
    for line in design_lines(sum(e.to_send for e in estimates), to_send, design_savings(params, planned, estimates)):
        print(line)  # the full design against this one (the cascade, an exam's sample)
    cap = params.requests.max_cost_usd
    if cap is not None:
        total = sum(e.cost_usd or 0.0 for e in estimates if e.stage != EXTRACT)
        spent = sum(ledger.spent(Path("."), ledger.answer_cost(cache)).values())  # the cap bounds the total
        verdict = "within it" if spent + total <= cap else "over it: predict would send nothing"
        head = f"requests.max_cost_usd ${cap:,.4f}: spent ${spent:,.4f} + the estimate of predict and judge"
        tail = f"${total:,.4f} is {verdict}"
        print(f"{head} {tail}" if len(head) + 1 + len(tail) <= WIDTH else f"{head}\n  {tail}")
    pending = pending_splits(params) if any(p.stage == EXTRACT for p in planned) else []
    if pending:
        print(f"not priced yet: predict and judge on {', '.join(pending)} (their riddles come from the extract "
              "stage; run the dry run again after `dvc repro split`)")
    return 0
