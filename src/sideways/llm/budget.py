"""The spending cap while requests go out: what is spent plus the worst case of what is in flight.

``requests.max_cost_usd`` (and ``requests.max_cost_usd_per_model``) bound what a run pays. Before
anything is sent, the paid stage compares the run's estimate with the cap
(:mod:`sideways.planning.cap`). While it runs, every request that must be sent first reserves its
worst case (its input at one token per byte, or ``requests.image_tokens`` per image, plus its
``max_tokens`` of output, at the model's price, batch discount included) in the one
:class:`Budget` of the process; its answer then settles the reservation at what its usage costs.
When the next request's worst case would take spent + in flight over the cap, sending stops: that
request and every later one end with a ``spending cap`` error (never cached), and the jobs they
belong to fail with reason ``spending cap`` (:mod:`sideways.artifacts.failures`). Everything
answered is cached, so a rerun with a higher cap pays only what was not paid.

The owner of a request is the model whose job it is (a judge's request belongs to the model it
grades): :func:`owned_by` sets it for a job, and its threads and tasks inherit it.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from sideways.config.prices import PriceTable
from sideways.core.errors import SidewaysError

SPENDING_CAP_ERROR = "spending cap"  # how a refused request's error begins (rows, records)


class SpendingCapReached(SidewaysError):
    """The run stopped sending at the spending cap: a job's remaining requests were not sent."""


@dataclass
class Budget:
    """What may still be spent in this process (thread-safe): the cap for the whole run and per model."""

    cap: float | None = None
    per_model: Mapping[str, float] = field(default_factory=dict)
    spent_before: float = 0.0  # what an earlier stage of the same run spent (predict, for judge)
    spent: dict[str, float] = field(default_factory=dict)
    reserved: dict[str, float] = field(default_factory=dict)
    stopped: bool = False
    stopped_models: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def active(self) -> bool:
        return self.cap is not None or bool(self.per_model)

    def total_spent(self) -> float:
        with self._lock:
            return self.spent_before + sum(self.spent.values())

    def reserve(self, owner: str, worst: float | None) -> str | None:
        """Reserve ``worst`` USD for one request of ``owner``'s; None when it may go, else why not."""
        with self._lock:
            if worst is None:
                return f"{owner} has no price (an unknown price is not 0: add it under prices:)"
            if self.stopped or owner in self.stopped_models:
                return "sending stopped at the cap earlier in this run"
            spent, held = self.spent_before + sum(self.spent.values()), sum(self.reserved.values())
            if self.cap is not None and spent + held + worst > self.cap + 1e-12:
                self.stopped = True
                return (f"spent ${spent:.6f} + in flight ${held:.6f} + this request's worst case ${worst:.6f} "
                        f"> requests.max_cost_usd ${self.cap:.6f}")
            limit = self.per_model.get(owner)
            mine, mine_held = self.spent.get(owner, 0.0), self.reserved.get(owner, 0.0)
            if limit is not None and mine + mine_held + worst > limit + 1e-12:
                self.stopped_models.add(owner)
                return (f"{owner} spent ${mine:.6f} + in flight ${mine_held:.6f} + this request's worst case "
                        f"${worst:.6f} > requests.max_cost_usd_per_model.{owner} ${limit:.6f}")
            self.reserved[owner] = mine_held + worst
            return None

    def settle(self, owner: str, worst: float, actual: float) -> None:
        """A reserved request ended: ``actual`` USD is spent, its reservation released."""
        with self._lock:
            self.reserved[owner] = self.reserved.get(owner, 0.0) - worst
            self.spent[owner] = self.spent.get(owner, 0.0) + actual


@dataclass(frozen=True)
class Meter:
    """How one request run charges the budget: whose requests they are, and each one's worst case."""

    budget: Budget
    owner: str
    worst: Callable[[Any], float | None]  # a Call's worst case in USD (None: no price)


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


_budget: Budget | None = None
_owner: contextvars.ContextVar[str | None] = contextvars.ContextVar("sideways_budget_owner", default=None)


def install(budget: Budget | None) -> None:
    """The process's budget (a paid stage installs it before its jobs start; None: no cap)."""
    global _budget
    _budget = budget if budget is not None and budget.active else None


def current() -> Budget | None:
    return _budget


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
