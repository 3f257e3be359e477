"""What a cascaded jury (``jury.cascade``, docs/method.md §2) is expected to save, for the dry run.

The dry run plans every judge of every panel on every prediction: it cannot know before the first round which
predictions the first judges will disagree on. The later judges' calls are therefore an upper bound, and what the
cascade saves is those calls times the share of predictions the first judges settle: the share of the model's
predictions they settled in its last run where its judgments are on disk (exact), else
:data:`EXPECTED_ESCALATED` (measured on layton-eval's real LLM calibration file: 2.2-4.3% of predictions over every
judge order, docs/method.md §2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from sideways.artifacts import paths
from sideways.config.params import Params
from sideways.planning.estimate import Estimate
from sideways.planning.plan import Planned
from sideways.scoring.cascade import escalated

#: The share of predictions escalated where no judgment of the model says more (real LLM file, every order: 2.2-4.3%).
EXPECTED_ESCALATED = 0.04
JUDGE = "judge"


@dataclass(frozen=True)
class Saving:
    """The later judges' planned requests and cost, and the share of them a cascade is expected not to send."""

    requests: int
    cost_usd: float | None
    settled: float
    exact: bool

    @property
    def saved_requests(self) -> int:
        return round(self.requests * self.settled)

    @property
    def saved_usd(self) -> float | None:
        return None if self.cost_usd is None else self.cost_usd * self.settled


def settled_share(params: Params, model: str, split: str, root: Path = Path(".")) -> float | None:
    """The share of ``model``'s predictions on ``split`` its first judges settled in its last judgments, if on disk."""
    spec = params.model(model)
    first = [j.key for j in params.jury.escalation(spec.provider)[0]]
    table = root / paths.judgments(split, model)
    if not table.is_file():
        return None
    judgments = pd.read_parquet(table)
    keys = judgments[["riddle_id", "model"]].drop_duplicates().reset_index(drop=True)
    if not len(keys) or not set(first) <= set(judgments["judge"]):
        return None
    return 1.0 - float(escalated(judgments, keys, {model: first}).mean())


def saving(params: Params, planned: Sequence[Planned], estimates: Sequence[Estimate],
           root: Path = Path(".")) -> Saving | None:
    """What the cascade is expected to save over ``planned`` (None: no cascade, or no later judge to send to)."""
    if not params.jury.cascade.first:
        return None
    requests, cost, saved_requests, saved_cost, unpriced, exact = 0, 0.0, 0.0, 0.0, False, True
    for p, e in zip(planned, estimates, strict=True):
        if p.stage != JUDGE or not p.model:
            continue
        later = {j.key for j in params.jury.escalation(params.model(p.model).provider)[1]}
        if p.spec.key not in later or not e.to_send:
            continue
        share = settled_share(params, p.model, p.split, root)
        exact &= share is not None
        share = 1.0 - EXPECTED_ESCALATED if share is None else share
        requests += e.to_send
        saved_requests += e.to_send * share
        if e.cost_usd is None:
            unpriced = True
        else:
            cost += e.cost_usd
            saved_cost += e.cost_usd * share
    if not requests:
        return None
    return Saving(requests, None if unpriced else cost, saved_requests / requests, exact)


def saving_lines(params: Params, planned: Sequence[Planned], estimates: Sequence[Estimate],
                 root: Path = Path(".")) -> list[str]:
    """The dry run's lines on the cascade (none without one): within 120 columns."""
    s = saving(params, planned, estimates, root)
    if s is None:
        return []
    usd = "" if s.saved_usd is None else f" and ${s.saved_usd:,.4f}"
    basis = ("their last run's share settled" if s.exact
             else f"{100 * (1 - EXPECTED_ESCALATED):.1f}% settled, as on real judges")
    return [f"jury.cascade: {s.requests:,} of the requests above go to later judges only where the first "
            f"{params.jury.cascade.first} disagree;",
            f"  expected not sent: {s.saved_requests:,} requests{usd} ({basis})"]
