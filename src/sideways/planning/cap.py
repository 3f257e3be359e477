"""The spending cap before anything is sent: what the evaluation spent plus the run's estimate, against the caps.

A paid stage calls :func:`run_budget` first. It compacts the stage's ledger (a killed run's
attempts become what they cost, :mod:`sideways.llm.ledger`), reads what every paid stage of the
evaluation has spent, and, with a cap set, plans the requests the run would send exactly as
``sideways dry-run`` does (uncached requests only: what the request cache holds or the previous
results carry is free; the batch discount included). It stops the stage with one line naming what
was spent, the estimate, the cap and the biggest jobs when spent + estimate is over a cap, or when a
model that would send requests has no price (an unknown price is not 0). Otherwise it returns the
:class:`~sideways.llm.budget.Budget` the requests then charge as they go (cap or no cap: every
attempt goes to the ledger).

``predict`` checks its own requests and the judges' (estimated from gold answers before the
predictions exist); ``judge`` its own. Both count what every paid stage spent, in every run.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from sideways.backends.base import RunContext
from sideways.config.params import Params
from sideways.core.errors import SidewaysError
from sideways.llm import ledger
from sideways.llm.budget import Budget, open_budget
from sideways.llm.cache import RequestCache
from sideways.llm.journal import recover
from sideways.planning.estimate import estimate
from sideways.planning.plan import EXTRACT, carried_keys, plan_all

SHOWN = 3  # the biggest jobs the refusal names


class OverCap(SidewaysError):
    """The run's estimate is over the spending cap, or a model to be paid has no price: nothing was sent."""


def run_budget(params: Params, ctx: RunContext, stage: str, root: Path = Path(".")) -> Budget:
    """The budget of paid ``stage`` (predict or judge): its ledger, what the evaluation spent before
    it (every paid stage's ledger), and the caps; raises :class:`OverCap` when spent + the estimate
    is over a cap, or a model to be paid has no price."""
    s = params.requests
    cache = RequestCache(s.cache_dir)
    recover(cache)  # a killed run's journalled answers first: its attempts cost what they did, not their worst
    ledger.compact(ledger.ledger_path(stage, root), ledger.answer_cost(cache))
    remaining = None
    if s.max_cost_usd is not None or s.max_cost_usd_per_model:
        remaining = check_estimate(params, ctx, stage, root, cache, ledger.spent(root, ledger.answer_cost(cache)))
    return open_budget(stage, s, root, remaining)


def check_estimate(params: Params, ctx: RunContext, stage: str, root: Path, cache: RequestCache,
                   before: dict[str, float]) -> dict[str, float]:
    """Refuse (:class:`OverCap`) a run whose estimate, after what the evaluation spent, is over a cap;
    else the estimate per model (what the run expects to send, for the budget's stop rule)."""
    s = params.requests
    kinds = {"predict", "judge", "exam_predict", "exam_judge"} if stage == "predict" else {"judge", "exam_judge"}
    estimates = [(p.model or p.spec.key, p.stage_name, estimate(p, lambda k: cache.get(k) is not None, s, params.prices,
                                                                 carried_keys(p, root)))
                 for p in plan_all(params, ctx, root) if p.stage != EXTRACT and p.stage in kinds]
    unpriced = sorted({e.key for _, _, e in estimates if e.cost_usd is None and e.to_send})
    if unpriced:
        raise OverCap(f"requests.max_cost_usd is set but {', '.join(unpriced)} would send requests and "
                      "has no price (an unknown price is not 0): add it under prices: in params.yaml; nothing was sent")
    jobs: dict[str, float] = defaultdict(float)
    by_model: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for model, job, e in estimates:
        jobs[job] += e.cost_usd or 0.0
        by_model[model][job] += e.cost_usd or 0.0
    total, spent = sum(jobs.values()), sum(before.values())
    if s.max_cost_usd is not None and spent + total > s.max_cost_usd:
        if total == 0:
            return {}  # nothing to send: nothing to refuse
        raise OverCap(f"{stage}: spent ${spent:.4f} + the run's estimate ${total:.4f} is over requests.max_cost_usd "
                      f"${s.max_cost_usd:.4f}; the biggest jobs: {biggest(jobs)}; nothing was sent (raise the cap "
                      "to pay more; `sideways show` says what was spent, `sideways dry-run --by-model` the estimate)")
    for model, limit in sorted(s.max_cost_usd_per_model.items()):
        mine, paid = by_model.get(model, {}), before.get(model, 0.0)
        if sum(mine.values()) > 0 and paid + sum(mine.values()) > limit:
            raise OverCap(f"{stage}: {model} spent ${paid:.4f} + its estimate ${sum(mine.values()):.4f} is over "
                          f"requests.max_cost_usd_per_model.{model} ${limit:.4f} (every paid stage, data/spend); its "
                          f"biggest jobs: {biggest(mine)}; nothing was sent (raise the cap to pay more)")
    return {model: sum(jobs.values()) for model, jobs in by_model.items()}


def biggest(jobs: dict[str, float]) -> str:
    """The :data:`SHOWN` costliest jobs that pay anything, ``name $cost`` each."""
    top = sorted(((n, c) for n, c in jobs.items() if c > 0), key=lambda kv: (-kv[1], kv[0]))[:SHOWN]
    return ", ".join(f"{name} ${cost:.4f}" for name, cost in top)



def spend_line(params: Params, root: Path = Path(".")) -> str:
    """``spent: $X of requests.max_cost_usd $Y (data/spend; <model> $Z, ...)``: what the evaluation paid."""
    s = params.requests
    spent = ledger.spent(root, ledger.answer_cost(RequestCache(s.cache_dir)))
    cap = f" of requests.max_cost_usd ${s.max_cost_usd:.4f}" if s.max_cost_usd is not None else ""
    models = sorted(((m, usd) for m, usd in spent.items() if usd > 0), key=lambda kv: (-kv[1], kv[0]))
    parts = [f"{m} ${usd:.4f}" + (f" of ${s.max_cost_usd_per_model[m]:.4f}" if m in s.max_cost_usd_per_model else "")
             for m, usd in models]
    head = f"spent: ${sum(spent.values()):.4f}{cap} (data/spend"
    for shown in range(len(parts), -1, -1):  # the costliest models that fit in one line of 120 columns
        more = f", {len(parts) - shown} more" if 0 < shown < len(parts) else ""
        listing = ", ".join(parts[:shown]) + more if shown else f"{len(parts)} models"
        line = head + (f"; {listing}" if parts else "") + ")"
        if len(line) <= LINE or shown == 0:
            return line
    return head + ")"


LINE = 120
