"""What each model cost on a benchmark, and what the design saved against the full design. Pure code.

**Cost** is what the results cost: every answer and verdict a benchmark's tables hold, at what it cost when it was
paid (a row the request cache answered carries the ``cost_usd`` of the request that paid for it), summed per model.
It is what the results cost if paid once: the same tables give the same figures in ``sideways show`` and the
report, and a rerun that pays nothing again shows the same cost. What the evaluation paid (every attempt, retries,
failed requests and earlier runs included) is the ledger's (``data/spend``, the ``spent:`` line of
``sideways show``), and it is per model only.

**The full design** asks every judge of a model's panel about every prediction and every model every question
of every exam. What each mechanism did not send, against it (:class:`Saved`, one per mechanism, a list that
grows with the mechanisms):

- ``jury.cascade`` (:func:`cascade_saved`): the verdicts a later judge was not asked (the predictions the first
  judges settled), each at what that judge's verdicts cost on this benchmark (their mean ``cost_usd``: measured,
  not a price list's guess; unknown while it was asked nothing priced here, 0 for a judge that sends no request).
- ``exams.<key>.sample`` (:func:`sample_saved`): the questions a model was not asked, each at what its questions
  asked cost (answer and grades).

Labels are a person's time, not USD: a benchmark's label count is shown as it is, and the label queue's order
claims no saving per run (what it saves against labelling at random is measured, docs/method.md).
Every amount is checked finite and non-negative where it is read (:func:`usd`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from sideways.config.params import Params
from sideways.core.errors import SchemaError
from sideways.core.money import usd
from sideways.core.width import WIDTH, clip

CASCADE = "jury.cascade"
KEY = ["riddle_id", "model"]


@dataclass(frozen=True)
class Saved:
    """What one mechanism did not send against the full design: ``requests`` and their ``usd`` (None: unknown).
    ``in_plan``: the dry run's plan counts these requests already (the cascade's later judges are planned on every
    prediction), so the full design is the plan and this design the plan less them; else they are outside it."""

    mechanism: str
    requests: int
    usd: float | None
    in_plan: bool = False


@dataclass(frozen=True)
class ModelCost:
    """One model on one benchmark: what its answers and the verdicts on them cost, and what each mechanism saved."""

    model: str
    predict_usd: float
    judge_usd: float
    answers: int
    verdicts: int
    predict_unpriced: int  # answers without a cost (no price, or a backend that reports no usage)
    judge_unpriced: int  # verdicts without a cost
    saved: tuple[Saved, ...] = field(default=())

    @property
    def unpriced(self) -> int:
        return self.predict_unpriced + self.judge_unpriced

    @property
    def total_usd(self) -> float:
        return self.predict_usd + self.judge_usd

    def known(self, part: str) -> bool:
        """Whether ``part`` (``predict``, ``judge`` or ``total``) has a cost: False when it has rows and none is
        priced (shown ``-``, as the exam's ``cost $`` column shows it), True otherwise (unpriced rows add 0)."""
        rows, unpriced = {"predict": (self.answers, self.predict_unpriced),
                          "judge": (self.verdicts, self.judge_unpriced),
                          "total": (self.answers + self.verdicts, self.unpriced)}[part]
        return not rows or unpriced < rows

    @property
    def full_usd(self) -> float | None:
        """What the full design would have cost (None: the results or a mechanism's saving have no known cost)."""
        extra = [s.usd for s in self.saved]
        if not self.known("total") or any(x is None for x in extra):
            return None
        return self.total_usd + sum(x for x in extra if x is not None)


def _usage(table: pd.DataFrame, by: str, where: str) -> dict[str, tuple[float, int, int]]:
    """(USD, rows, rows without a cost) per ``by`` value of ``table``, every cost checked."""
    out: dict[str, tuple[float, int, int]] = {}
    for key, group in table.groupby(by, sort=True):
        costs = group["cost_usd"].dropna()
        total = sum(usd(float(c), f"{where} ({by} {key})") for c in costs)
        out[str(key)] = (usd(total, f"{where} ({by} {key})"), len(group), len(group) - len(costs))
    return out


def model_costs(predictions: pd.DataFrame, judgments: pd.DataFrame, models: Sequence[str],
                where: str = "") -> list[ModelCost]:
    """Each of ``models`` on one benchmark: its answers (``predictions``) and the verdicts on them (``judgments``,
    by the model graded); a model with no row costs 0. ``where`` names the benchmark in an error."""
    answered = _usage(predictions, "model", f"{where} predictions".strip())
    judged = _usage(judgments, "model", f"{where} judgments".strip())
    out = []
    for m in models:
        p, j = answered.get(m, (0.0, 0, 0)), judged.get(m, (0.0, 0, 0))
        out.append(ModelCost(m, p[0], j[0], p[1], j[1], p[2], j[2]))
    return out


def verdict_cost(judgments: pd.DataFrame, judge: str, free: Collection[str] = ()) -> float | None:
    """What one verdict of ``judge`` cost on this benchmark: the mean ``cost_usd`` of its priced verdicts (0 for a
    judge in ``free``, one that sends no request; None while it has no priced verdict here)."""
    if judge in free:
        return 0.0
    costs = judgments.loc[judgments["judge"] == judge, "cost_usd"].dropna()
    if not len(costs):
        return None
    return usd(sum(usd(float(c), f"judgments (judge {judge})") for c in costs) / len(costs), f"judge {judge}")


def cascade_saved(judgments: pd.DataFrame, escalation: Mapping[str, tuple[Sequence[str], Sequence[str]]],
                  free: Collection[str] = ()) -> dict[str, Saved]:
    """Per model of ``escalation`` (model -> (first judges, later judges)) with later judges: the verdicts its later
    judges were not asked (a prediction the first judges judged and a later judge has no row for), each at
    :func:`verdict_cost` of that judge."""
    out: dict[str, Saved] = {}
    for model, (first, later) in sorted(escalation.items()):
        if not later:
            continue
        mine = judgments[judgments["model"] == model]
        asked = set(map(tuple, mine.loc[mine["judge"].isin(list(first)), KEY].drop_duplicates().to_numpy()))
        calls, cost = 0, 0.0
        unknown = False
        for judge in later:
            have = set(map(tuple, mine.loc[mine["judge"] == judge, KEY].to_numpy()))
            n = len(asked - have)
            calls += n
            price = verdict_cost(judgments, judge, free) if n else 0.0
            if price is None:
                unknown = True
            else:
                cost += n * price
        out[model] = Saved(CASCADE, calls, None if unknown else usd(cost, f"{CASCADE} ({model})"))
    return out


def sample_saved(mechanism: str, items: int, asked: Mapping[str, int],
                 costs: Mapping[str, float]) -> dict[str, Saved]:
    """Per model of ``asked`` (model -> questions it was asked of an exam of ``items`` questions): the questions it
    was not asked, each at what its asked questions cost on average (``costs``: model -> their USD, answers and
    grades). ``mechanism`` names it (``exams.<key>.sample``). The exam's sample wires this in."""
    out: dict[str, Saved] = {}
    for model, n in sorted(asked.items()):
        if not 0 <= n <= items:
            raise SchemaError(f"{mechanism}: {model} was asked {n} of {items} questions")
        spent = usd(costs.get(model, 0.0), f"{mechanism} ({model})")
        out[model] = Saved(mechanism, items - n, usd((items - n) * spent / n, mechanism) if n else None)
    return out


def with_saved(costs: Sequence[ModelCost], *mechanisms: Mapping[str, Saved]) -> list[ModelCost]:
    """``costs`` with each mechanism's saving on each model it names (in the order given)."""
    return [replace(c, saved=c.saved + tuple(m[c.model] for m in mechanisms if c.model in m)) for c in costs]


def split_costs(params: Params, split: str, predictions: pd.DataFrame, judgments: pd.DataFrame) -> list[ModelCost]:
    """Each model taking ``split``: its cost there, and what the cascade saved (no entry without one)."""
    taking = params.models_taking(split)
    escalation: dict[str, tuple[Sequence[str], Sequence[str]]] = {}
    for m in taking:
        first, later = params.jury.escalation(m.provider)
        escalation[m.key] = ([j.key for j in first], [j.key for j in later])
    free = {j.key for j in params.jury.pool if not j.capabilities.sends_requests}
    costs = model_costs(predictions, judgments, [m.key for m in taking], split)
    return with_saved(costs, cascade_saved(judgments, escalation, free))


def exam_costs(exam: str, items: pd.DataFrame, predictions: pd.DataFrame, grades: pd.DataFrame,
               models: Sequence[str]) -> list[ModelCost]:
    """Each of ``models`` on exam ``exam``: its replies (``predictions``) and their grades, and, for a model asked
    fewer than the exam's ``items`` (a sampled exam), the questions it was not asked (:func:`sample_saved`, as
    ``exams.<exam>.sample``)."""
    costs = model_costs(predictions, grades, models, f"exam {exam}")
    asked = predictions.groupby("model")["item_id"].nunique()
    fewer = {m: int(asked.get(m, 0)) for m in models if m in asked.index and int(asked[m]) < len(items)}
    saved = sample_saved(f"exams.{exam}.sample", len(items), fewer, {c.model: c.total_usd for c in costs})
    return with_saved(costs, saved)


def _money(value: float | None) -> str:
    return "$?" if value is None else f"${value:,.4f}"


def _part(c: ModelCost, part: str, value: float) -> str:
    return _money(value) if c.known(part) else "-"


def _saved_cell(s: Saved | None) -> str:
    return "" if s is None else f"{s.requests:,} calls {_money(s.usd)}"


def mechanisms(costs: Sequence[ModelCost]) -> list[str]:
    """The mechanisms that saved something on any model, in first-seen order."""
    return list(dict.fromkeys(s.mechanism for c in costs for s in c.saved))


def cost_table(costs: Sequence[ModelCost], indent: str = "  ") -> list[str]:
    """The cost table of one benchmark: per model, answers, verdicts, total, one ``saved`` column per mechanism and
    the full design (``-``: no row priced; ``$?``: a saving of unknown cost); then the sum over models. Columns as
    wide as their cells, no line over 120 columns (the model column takes what is left, at least 12)."""
    names = mechanisms(costs)
    total = ModelCost("all models", sum(c.predict_usd for c in costs), sum(c.judge_usd for c in costs),
                      sum(c.answers for c in costs), sum(c.verdicts for c in costs),
                      sum(c.predict_unpriced for c in costs), sum(c.judge_unpriced for c in costs),
                      tuple(Saved(m, sum(s.requests for c in costs for s in c.saved if s.mechanism == m),
                                  _sum([s.usd for c in costs for s in c.saved if s.mechanism == m])) for m in names))
    heads = ["model", "answers", "verdicts", "total", *[f"{m} saved" for m in names], "full design"]
    rows = [[c.model, _part(c, "predict", c.predict_usd), _part(c, "judge", c.judge_usd),
             _part(c, "total", c.total_usd),
             *[_saved_cell(next((s for s in c.saved if s.mechanism == m), None)) for m in names],
             _money(c.full_usd)] for c in [*costs, total]]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]
    widths[0] = max(12, min(widths[0], WIDTH - len(indent) - sum(w + 2 for w in widths[1:])))

    def line(cells: list[str]) -> str:
        return indent + "  ".join(clip(x, widths[0]).ljust(widths[0]) if i == 0 else x.rjust(widths[i])
                                  for i, x in enumerate(cells))

    return [clip(line(r)) for r in [heads, *rows]]


def _sum(values: Sequence[float | None]) -> float | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def labels_line(benchmark: str, labels: int) -> str:
    """The label count of a benchmark: a person's time, not USD (the queue's order claims no saving per run)."""
    return clip(f"  labels on {benchmark}: {labels:,} (a person's time, not USD; the label queue's saving against "
                "random: docs/method.md)")


def design_lines(requests: int, cost: float | None, savings: Sequence[Saved]) -> list[str]:
    """The dry run's full design against this design, before anything is sent: ``requests`` and their ``cost`` (None:
    some unpriced) are the plan's to send; each saving is in the plan (``in_plan``) or outside it."""
    if not savings:
        return []
    outside = [s for s in savings if not s.in_plan]
    inside = [s for s in savings if s.in_plan]
    full_n = requests + sum(s.requests for s in outside)
    full = _sum([cost, *[s.usd for s in outside]])
    this_n = requests - sum(s.requests for s in inside)
    this = _sum([cost, *[None if s.usd is None else -s.usd for s in inside]])
    parts = ", ".join(f"{s.mechanism} -{s.requests:,} requests -{_money(s.usd)}" for s in savings)
    return [clip(f"full design (every judge on every prediction, every question): {full_n:,} requests, "
                 f"{_money(full)} to send"),
            clip(f"this design: {this_n:,} requests, {_money(None if this is None else max(this, 0.0))} ({parts})")]


def design_summary(costs: Sequence[ModelCost], labels: int) -> dict[str, Any]:
    """The report's data for one benchmark: each model's cost and savings (USD rounded to 6 decimals; None where
    :meth:`ModelCost.known` says there is none), the label count."""
    def r(v: float | None) -> float | None:
        return None if v is None else round(v, 6)

    return {"mechanisms": mechanisms(costs), "labels": int(labels),
            "models": [{"model": c.model, "predict_usd": r(c.predict_usd if c.known("predict") else None),
                        "judge_usd": r(c.judge_usd if c.known("judge") else None),
                        "total_usd": r(c.total_usd if c.known("total") else None), "unpriced": c.unpriced,
                        "full_usd": r(c.full_usd),
                        "saved": [{"mechanism": s.mechanism, "requests": s.requests, "usd": r(s.usd)}
                                  for s in c.saved]} for c in costs]}
