"""What this design is expected not to send against the full design, before anything is sent (the dry run's).

The full design asks every judge of a model's panel about every prediction and every model every question of every
exam. Each mechanism of this design contributes one :class:`~sideways.scoring.costs.Saved` (a list: a new mechanism
is one more function in :func:`design_savings`); :func:`sideways.scoring.costs.design_lines` prints the full design
against this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sideways.artifacts import paths
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import EXAM_ITEMS
from sideways.config.params import Params
from sideways.planning.cascade import saving
from sideways.planning.estimate import Estimate
from sideways.planning.plan import Planned
from sideways.scoring.costs import CASCADE, Saved


def cascade_savings(params: Params, planned: Sequence[Planned], estimates: Sequence[Estimate],
                    root: Path = Path(".")) -> list[Saved]:
    """``jury.cascade``: the later judges' requests it is expected not to send (the plan counts them: it plans every
    judge on every prediction, :mod:`sideways.planning.cascade`)."""
    s = saving(params, planned, estimates, root)
    return [] if s is None else [Saved(CASCADE, s.saved_requests, s.saved_usd, in_plan=True)]


def exam_sample_savings(params: Params, planned: Sequence[Planned], estimates: Sequence[Estimate],
                        root: Path = Path(".")) -> list[Saved]:
    """``exams.<key>.sample``: the questions a sampled exam does not ask, one :class:`Saved` per exam with a sample
    (outside the plan: the plan holds only the sampled questions). Each question not asked would have cost one
    answer and one grade a judge of the model's exam panel; their USD is the planned questions' mean to send (unknown
    when nothing of that model's exam is left to send, or some of it has no price)."""
    out = []
    for exam in params.exams.values():
        path = root / paths.exam_items(exam.key)
        if exam.sample is None or not path.exists():
            continue
        total = len(read_table(path, EXAM_ITEMS))
        unasked = total - exam.sample_size(total)
        requests = 0
        usd_known: float | None = 0.0
        for model in params.models_taking(exam.key):
            mine = [(p, e) for p, e in zip(planned, estimates, strict=True)
                    if p.split == exam.key and p.model == model.key and p.stage in ("exam_predict", "exam_judge")]
            asked = sum(len(p.calls) for p, _ in mine if p.stage == "exam_predict")
            requests += unasked * len(mine)  # an answer and each judge's grade a question
            sent = sum(e.to_send for _, e in mine)
            cost = sum((e.cost_usd or 0.0) for _, e in mine)
            unpriced = any(e.cost_usd is None for _, e in mine if e.to_send)
            if usd_known is not None and (not sent or not asked or unpriced):
                usd_known = None
            elif usd_known is not None:
                usd_known += unasked * len(mine) * cost / sent
        if unasked and requests:
            out.append(Saved(f"exams.{exam.key}.sample", requests, usd_known, in_plan=False))
    return out


def design_savings(params: Params, planned: Sequence[Planned], estimates: Sequence[Estimate],
                   root: Path = Path(".")) -> list[Saved]:
    """Every mechanism's expected saving over ``planned``, in the order the dry run prints them."""
    return [*cascade_savings(params, planned, estimates, root), *exam_sample_savings(params, planned, estimates, root)]
