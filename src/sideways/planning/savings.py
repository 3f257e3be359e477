"""What this design is expected not to send against the full design, before anything is sent (the dry run's).

The full design asks every judge of a model's panel about every prediction and every model every question of every
exam. Each mechanism of this design contributes one :class:`~sideways.scoring.costs.Saved` (a list: a new mechanism
is one more function in :func:`design_savings`); :func:`sideways.scoring.costs.design_lines` prints the full design
against this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

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
    (``in_plan=False`` when the plan holds only the sampled questions; their USD at the planned questions' mean).
    None yet: the exam's sample wires it here."""
    return []


def design_savings(params: Params, planned: Sequence[Planned], estimates: Sequence[Estimate],
                   root: Path = Path(".")) -> list[Saved]:
    """Every mechanism's expected saving over ``planned``, in the order the dry run prints them."""
    return [*cascade_savings(params, planned, estimates, root), *exam_sample_savings(params, planned, estimates, root)]
