"""The spending cap while requests go out: what the evaluation spent, plus what is in flight.

``requests.max_cost_usd`` (and ``requests.max_cost_usd_per_model``) bound what the evaluation pays
in total: every paid stage, every run, killed or not (the ledger, :mod:`sideways.llm.ledger`).
Before anything is sent, the paid stage compares what was spent plus the run's estimate with the
cap (:mod:`sideways.planning.cap`). While it runs, every attempt (a retry is an attempt: the
provider may have billed the one before) first reserves its worst case (its input at one token per
byte, or ``requests.image_tokens`` per image, plus its ``max_tokens`` of output, at the model's
price, batch discount included) in the one :class:`Budget` of the process; its end settles the
reservation at what its usage costs. An attempt may go when spent + the worst case of what is in
flight + its own expected cost fits the cap; it waits while only what is in flight stands in the
way; otherwise sending stops: that request and every later one end with a ``spending cap`` error
(never cached), and the jobs they belong to fail with reason ``spending cap``
(:mod:`sideways.artifacts.failures`). Everything answered is cached, so a rerun with a higher cap
pays only what was not paid.

The owner of a request is the model whose job it is (a judge's request belongs to the model it
grades): :func:`owned_by` sets it for a job, and its threads and tasks inherit it.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from sideways.config.prices import PriceTable
from sideways.core.errors import SidewaysError
from sideways.llm.ledger import Ledger, compact

SPENDING_CAP_ERROR = "spending cap"  # how a refused request's error begins (rows, records)


class SpendingCapReached(SidewaysError):
    """The run stopped sending at the spending cap: a job's remaining requests were not sent."""


@dataclass(frozen=True)
class Ticket:
    """One attempt's reservation: whose, its worst case, and its line in the ledger."""

    owner: str
    worst: float | None
    rid: str | None = None


WAIT = "wait"  # :meth:`Budget.reserve`'s answer when the request fits once what is in flight has settled


@dataclass
class Budget:
    """What the evaluation may still spend, in this process (thread-safe): the cap in all and per model.

    ``before`` is what the evaluation paid before this process started, per model (every paid stage's
    ledger, :func:`sideways.llm.ledger.spent`), so the cap bounds the evaluation's total, not one run.
    Every attempt sent is recorded in ``ledger`` (when there is one), cap or no cap.
    """

    cap: float | None = None
    per_model: Mapping[str, float] = field(default_factory=dict)
    before: Mapping[str, float] = field(default_factory=dict)
    ledger: Ledger | None = None
    spent: dict[str, float] = field(default_factory=dict)
    reserved: dict[str, float] = field(default_factory=dict)
    stopped: bool = False
    stopped_models: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def active(self) -> bool:
        return self.cap is not None or bool(self.per_model) or self.ledger is not None

    def total_spent(self) -> float:
        """What the evaluation has paid, this process included."""
        with self._lock:
            return sum(self.before.values()) + sum(self.spent.values())

    def spent_here(self) -> float:
        """What this process has paid."""
        with self._lock:
            return sum(self.spent.values())

    def reserve(self, owner: str, worst: float | None, expected: float | None = None,
                key: str = "") -> Ticket | str:
        """Reserve one attempt of ``owner``'s: a :class:`Ticket` when it may go, :data:`WAIT` when it fits
        once what is in flight has settled, else why not (sending stops there).

        It may go when what is spent + the worst case of every attempt in flight + this one's
        ``expected`` cost fits the cap (its own worst case need not: a run whose estimate fits
        finishes). So the total passes the cap by at most one attempt's worst case less its expected
        cost, once: the attempt that passed it is the last one admitted.
        """
        with self._lock:
            capped = self.cap is not None or owner in self.per_model
            if worst is None and capped:
                return f"{owner} has no price (an unknown price is not 0: add it under prices:)"
            if self.stopped or owner in self.stopped_models:
                return "sending stopped at the cap earlier in this run"
            need = min(worst, expected) if worst is not None and expected is not None else (worst or 0.0)
            spent = sum(self.before.values()) + sum(self.spent.values())
            held = sum(self.reserved.values())
            if self.cap is not None and spent + held + need > self.cap + 1e-12:
                if held > 0:
                    return WAIT
                self.stopped = True
                return (f"the evaluation has spent ${spent:.6f} (data/spend) and this request's expected "
                        f"${need:.6f} would pass requests.max_cost_usd ${self.cap:.6f}: raise it to pay more")
            limit = self.per_model.get(owner)
            mine = self.before.get(owner, 0.0) + self.spent.get(owner, 0.0)
            mine_held = self.reserved.get(owner, 0.0)
            if limit is not None and mine + mine_held + need > limit + 1e-12:
                if mine_held > 0:
                    return WAIT
                self.stopped_models.add(owner)
                return (f"{owner} has spent ${mine:.6f} (every paid stage, data/spend) and this request's expected "
                        f"${need:.6f} would pass requests.max_cost_usd_per_model.{owner} ${limit:.6f}: "
                        "raise it to pay more")
            self.reserved[owner] = mine_held + (worst or 0.0)
        rid = self.ledger.reserve(owner, key, worst) if self.ledger is not None else None
        return Ticket(owner, worst, rid)

    def settle(self, ticket: Ticket, actual: float) -> None:
        """A reserved attempt ended: ``actual`` USD is spent (finite, >= 0), its reservation released."""
        if not (math.isfinite(actual) and actual >= 0):
            actual = ticket.worst or 0.0
        with self._lock:
            self.reserved[ticket.owner] = self.reserved.get(ticket.owner, 0.0) - (ticket.worst or 0.0)
            self.spent[ticket.owner] = self.spent.get(ticket.owner, 0.0) + actual
        if self.ledger is not None and ticket.rid is not None:
            self.ledger.settle(ticket.rid, actual)


@dataclass(frozen=True)
class Meter:
    """How one request run charges the budget: whose requests they are, and each one's worst case."""

    budget: Budget
    owner: str
    worst: Callable[[Any], float | None]  # a Call's worst case in USD (None: no price)
    expected: Callable[[Any], float | None] = lambda call: None  # its expected cost (the estimate's)


def body_size(body: Any) -> tuple[int, int, int]:
    """(characters, UTF-8 bytes, images) of a request body's text: images are data URLs (OpenAI
    format) or the base64 ``data`` of an Anthropic or Gemini part, counted apart."""
    chars = size = images = 0
    for key, value in _strings(body):
        if (value.startswith("data:") and ";base64," in value[:80]) or (key == "data" and " " not in value[:64]):
            images += 1
        else:
            chars, size = chars + len(value), size + len(value.encode())
    return chars, size, images


def _strings(obj: Any, key: str = "") -> Iterable[tuple[str, str]]:
    """Every string of a request body, with the key it sits under."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(v, k)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v, key)
    elif isinstance(obj, str):
        yield key, obj


OVERHEAD_TOKENS = 64  # a chat request's tokens beyond its text (roles, separators): generous


def worst_case(body: Any, names: Iterable[str], max_tokens: int, prices: PriceTable, *, batch: bool,
               discount: float, image_tokens: int) -> float | None:
    """The most one request can cost: a token per byte of its text (no tokenizer makes fewer bytes
    per token), ``image_tokens`` per image, :data:`OVERHEAD_TOKENS`, and ``max_tokens`` of output."""
    _, size, images = body_size(body)
    return prices.cost(names, size + images * image_tokens + OVERHEAD_TOKENS, max_tokens, batch=batch,
                       discount=discount)


def expected_cost(body: Any, names: Iterable[str], output_tokens: int, prices: PriceTable, *, batch: bool,
                  discount: float, image_tokens: int) -> float | None:
    """What one request is expected to cost, as the estimate counts it (a token per 4 characters,
    ``image_tokens`` per image, ``output_tokens`` of output)."""
    chars, _, images = body_size(body)
    return prices.cost(names, -(-chars // 4) + images * image_tokens, output_tokens, batch=batch, discount=discount)


_budget: Budget | None = None
_owner: contextvars.ContextVar[str | None] = contextvars.ContextVar("sideways_budget_owner", default=None)


def install(budget: Budget | None) -> None:
    """The process's budget (a paid stage installs it before its jobs start; None: no cap)."""
    global _budget
    _budget = budget if budget is not None and budget.active else None


def current() -> Budget | None:
    return _budget


def finish() -> None:
    """The process's paid stage is over: close its ledger and compact this run's attempt lines."""
    if _budget is not None and _budget.ledger is not None:
        _budget.ledger.close()
        compact(_budget.ledger.path)


@contextlib.contextmanager
def owned_by(model: str) -> Iterator[None]:
    """Requests sent inside are ``model``'s (its job's), for the per-model cap."""
    token = _owner.set(model)
    try:
        yield
    finally:
        _owner.reset(token)


def owner(default: str) -> str:
    """The model the requests sent now belong to: the job's, else ``default`` (the spec's key)."""
    return _owner.get() or default
