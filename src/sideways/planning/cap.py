"""The spending cap before anything is sent: the run's estimate against ``requests.max_cost_usd``.

A paid stage calls :func:`run_budget` first. With no cap set it returns None and costs nothing.
With a cap, it plans the requests the run would send, exactly as ``sideways dry-run`` does
(uncached requests only: what the request cache holds or the previous results carry is free; the
batch discount included), and stops the stage with one line naming the estimate, the cap and the
biggest jobs when the estimate is over it, or when a model that would send requests has no price
(an unknown price is not 0). Otherwise it returns the :class:`~sideways.llm.budget.Budget` the
requests then charge as they go.

The run is the paid stages of one pipeline run: ``predict`` checks its own requests and the
judges' (estimated from gold answers before the predictions exist), ``judge`` its own against
what is left after what ``predict`` spent in its last execution (its failure record says).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from sideways.artifacts.failures import recorded_spend
from sideways.backends.base import RunContext
from sideways.config.params import Params
from sideways.core.errors import SidewaysError
from sideways.llm.budget import Budget
from sideways.llm.cache import RequestCache
from sideways.planning.estimate import estimate
from sideways.planning.plan import EXTRACT, carried_keys, plan_all

SHOWN = 3  # the biggest jobs the refusal names


class OverCap(SidewaysError):
    """The run's estimate is over the spending cap, or a model to be paid has no price: nothing was sent."""


def run_budget(params: Params, ctx: RunContext, stage: str, root: Path = Path(".")) -> Budget | None:
    """The budget of paid ``stage`` (predict or judge), or None without a cap; raises :class:`OverCap`."""
    s = params.requests
    if s.max_cost_usd is None and not s.max_cost_usd_per_model:
        return None
    kinds = {"predict", "judge", "exam_predict", "exam_judge"} if stage == "predict" else {"judge", "exam_judge"}
    cache = RequestCache(s.cache_dir)
    estimates = [(p.model or p.spec.key, p.stage_name, estimate(p, lambda k: cache.get(k) is not None, s, params.prices,
                                                                 carried_keys(p, root)))
                 for p in plan_all(params, ctx, root) if p.stage != EXTRACT and p.stage in kinds]
    unpriced = sorted({e.key for _, _, e in estimates if e.cost_usd is None and e.to_send})
    if unpriced:
        raise OverCap(f"requests.max_cost_usd is set but {', '.join(unpriced)} would send requests and "
                      "has no price (an unknown price is not 0): add it under prices: in params.yaml; nothing was sent")
    before = recorded_spend("predict", root) if stage == "judge" else 0.0
    jobs: dict[str, float] = defaultdict(float)
    by_model: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for model, job, e in estimates:
        jobs[job] += e.cost_usd or 0.0
        by_model[model][job] += e.cost_usd or 0.0
    total = sum(jobs.values())
    if s.max_cost_usd is not None and before + total > s.max_cost_usd:
        spent = f" after ${before:.4f} spent by predict" if before else ""
        raise OverCap(f"{stage}: the run's estimate ${total:.4f}{spent} is over requests.max_cost_usd "
                      f"${s.max_cost_usd:.4f} (uncached requests, batch discount included); the biggest jobs: "
                      f"{biggest(jobs)}; nothing was sent (raise the cap, or see `sideways dry-run --by-model`)")
    for model, limit in sorted(s.max_cost_usd_per_model.items()):
        mine = by_model.get(model, {})
        if sum(mine.values()) > limit:
            raise OverCap(f"{stage}: {model}'s estimate ${sum(mine.values()):.4f} is over "
                          f"requests.max_cost_usd_per_model.{model} ${limit:.4f}; its biggest jobs: {biggest(mine)}; "
                          "nothing was sent")
    return Budget(s.max_cost_usd, dict(s.max_cost_usd_per_model), spent_before=before)


def biggest(jobs: dict[str, float]) -> str:
    """The :data:`SHOWN` costliest jobs that pay anything, ``name $cost`` each."""
    top = sorted(((n, c) for n, c in jobs.items() if c > 0), key=lambda kv: (-kv[1], kv[0]))[:SHOWN]
    return ", ".join(f"{name} ${cost:.4f}" for name, cost in top)

