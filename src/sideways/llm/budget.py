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
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sideways.config.prices import PriceTable
from sideways.config.requests import RequestSettings
from sideways.core.errors import SidewaysError
from sideways.core.money import is_usd
from sideways.llm import ledger
from sideways.llm.cache import RequestCache
from sideways.llm.journal import recover
from sideways.llm.ledger import Ledger, compact

SPENDING_CAP_ERROR = "spending cap"  # how a refused request's error begins (rows, records)


class SpendingCapReached(SidewaysError):
    """The run stopped sending at the spending cap: a job's remaining requests were not sent."""


@dataclass(frozen=True)
class Ticket:
    """One attempt's reservation: whose, its worst and expected cost, and its line in the ledger."""

    owner: str
    worst: float | None
    expected: float = 0.0
    rid: str | None = None


WAIT = "wait"  # :meth:`Budget.reserve`'s answer when the request fits once what is in flight has settled


@dataclass
class Budget:
    """What the evaluation may still spend, in this process (thread-safe): the cap in all and per model.

    ``before`` is what the evaluation paid before this process started, per model (every paid stage's
    ledger, :func:`sideways.llm.ledger.spent`), so the cap bounds the evaluation's total, not one run.
    ``remaining`` is the run's estimate of what it still has to send (the dry run's, per model and in
    all; None: unknown), lowered as attempts go. Every attempt sent is recorded in ``ledger`` (when
    there is one), cap or no cap.
    """

    cap: float | None = None
    per_model: Mapping[str, float] = field(default_factory=dict)
    before: Mapping[str, float] = field(default_factory=dict)
    ledger: Ledger | None = None
    remaining: dict[str, float] | None = None
    spent: dict[str, float] = field(default_factory=dict)
    reserved: dict[str, float] = field(default_factory=dict)
    stopped: bool = False
    stopped_models: set[str] = field(default_factory=set)
    reasons: dict[str, str] = field(default_factory=dict)  # why it stopped ("": the cap; a model: its cap)
    seen: list[float] = field(default_factory=lambda: [0.0, 0.0])  # answers' (actual, expected) USD so far
    reread: Callable[[], dict[str, float]] | None = None  # ``before`` read again (the ledgers), without this run
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def active(self) -> bool:
        return self.cap is not None or bool(self.per_model) or self.ledger is not None

    def total_spent(self) -> float:
        """What the evaluation has paid, this process included."""
        with self._lock:
            return sum(self.before.values()) + sum(self.spent.values())

    def refresh(self) -> None:
        """Read what the evaluation spent before again: another run sent while this one waited for the
        request cache (:mod:`sideways.llm.paidlock`), and what it paid counts against the same cap."""
        if self.reread is not None:
            before = self.reread()
            with self._lock:
                self.before = before

    def spent_here(self) -> float:
        """What this process has paid."""
        with self._lock:
            return sum(self.spent.values())

    def _ratio(self) -> float:
        """How much more than expected the answers so far cost (at least 1): expected costs are scaled
        by it, so a run whose answers are longer than ``expected_output_tokens`` is judged on them."""
        actual, expected = self.seen
        return max(1.0, actual / expected) if expected > 0 else 1.0

    def reserve(self, owner: str, worst: float | None, expected: float | None = None,
                key: str = "") -> Ticket | str:
        """Reserve one attempt of ``owner``'s: a :class:`Ticket` when it may go, :data:`WAIT` when it fits
        once what is in flight has settled, else why not (sending stops there).

        It may go when what is spent + the worst case of every attempt in flight + its own worst case
        fits the cap (then the cap can never be passed), or, while the rest of the run's estimate
        fits too, + its realistic cost (its expected cost, scaled by how much more the answers so far
        cost than expected). So a run whose estimate fits finishes; the total passes the cap by at
        most one attempt's worst case less its realistic cost, only then, once (the attempt that
        passed it is the last one admitted).
        """
        with self._lock:
            capped = self.cap is not None or owner in self.per_model
            if worst is None and capped:
                return f"{owner} has no price (an unknown price is not 0: add it under prices:)"
            if self.stopped or owner in self.stopped_models:  # every later refusal says the first one's reason
                why = self.reasons.get("" if self.stopped else owner, "")
                return f"stopped earlier in this run, {why}"
            ratio = self._ratio()
            raw = expected if expected is not None and worst is not None else (worst or 0.0)
            realistic = min(worst or 0.0, raw * ratio)
            spent = sum(self.before.values()) + sum(self.spent.values())
            held = sum(self.reserved.values())
            left = None if self.remaining is None else sum(self.remaining.values()) * ratio
            if self.cap is not None and not _fits(spent + held, worst or 0.0, realistic, left, self.cap):
                if held > 0:
                    return WAIT
                self.stopped = True
                rest = f", the rest of the run ${left:.6f} expected" if left is not None else ""
                self.reasons[""] = (f"over requests.max_cost_usd ${self.cap:.6f}: the evaluation has spent "
                                    f"${spent:.6f} (data/spend), this request may cost ${worst or 0.0:.6f} "
                                    f"(${realistic:.6f} expected){rest}; raise it to pay more")
                return self.reasons[""]
            limit = self.per_model.get(owner)
            mine = self.before.get(owner, 0.0) + self.spent.get(owner, 0.0)
            mine_held = self.reserved.get(owner, 0.0)
            mine_left = None if self.remaining is None else self.remaining.get(owner, 0.0) * ratio
            if limit is not None and not _fits(mine + mine_held, worst or 0.0, realistic, mine_left, limit):
                if mine_held > 0:
                    return WAIT
                self.stopped_models.add(owner)
                rest = f", the rest of its run ${mine_left:.6f} expected" if mine_left is not None else ""
                self.reasons[owner] = (f"over requests.max_cost_usd_per_model.{owner} ${limit:.6f}: {owner} has spent "
                                       f"${mine:.6f} (every paid stage, data/spend), this request may cost "
                                       f"${worst or 0.0:.6f} (${realistic:.6f} expected){rest}; raise it to pay more")
                return self.reasons[owner]
            self.reserved[owner] = mine_held + (worst or 0.0)
            if self.remaining is not None and owner in self.remaining:
                self.remaining[owner] = max(0.0, self.remaining[owner] - raw)
        rid = self.ledger.reserve(owner, key, worst, raw) if self.ledger is not None else None
        return Ticket(owner, worst, raw, rid)

    def settle(self, ticket: Ticket, actual: float, answered: bool = False) -> None:
        """A reserved attempt ended: ``actual`` USD is spent (finite, >= 0), its reservation released;
        ``answered``: ``actual`` is an answer's priced usage (it teaches the realistic cost)."""
        if not is_usd(actual):
            actual, answered = ticket.worst or 0.0, False
        with self._lock:
            self.reserved[ticket.owner] = self.reserved.get(ticket.owner, 0.0) - (ticket.worst or 0.0)
            self.spent[ticket.owner] = self.spent.get(ticket.owner, 0.0) + actual
            if answered and ticket.expected > 0:
                self.seen[0] += actual
                self.seen[1] += ticket.expected
        if self.ledger is not None and ticket.rid is not None:
            self.ledger.settle(ticket.rid, actual, answered)


def _fits(committed: float, worst: float, realistic: float, left: float | None, cap: float) -> bool:
    """Whether an attempt may go: spent + in flight (``committed``) + its worst case fits ``cap``, or
    + its realistic cost does while the rest of the run (``left``, when known) fits as well."""
    if committed + worst <= cap + 1e-12:
        return True
    return committed + realistic <= cap + 1e-12 and (left is None or committed + left <= cap + 1e-12)


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


def open_budget(stage: str, settings: RequestSettings, root: Path = Path("."),
                remaining: dict[str, float] | None = None) -> Budget:
    """The budget of paid ``stage``: its ledger (a killed run's attempts first settled at what the
    request cache says they cost), what the evaluation spent before (every paid stage's ledger), the
    caps of ``settings``, and ``remaining`` (the run's estimate per model, when it was made)."""
    cache = RequestCache(settings.cache_dir)
    recover(cache)  # a killed run's journalled answers become records first: their attempts cost what they did
    lookup = ledger.answer_cost(cache)
    path = ledger.ledger_path(stage, root)
    ledger.compact(path, lookup)  # left as it is while another run of the stage still appends to it
    mine = ledger.Ledger(path)
    return Budget(settings.max_cost_usd, dict(settings.max_cost_usd_per_model), before=ledger.spent(root, lookup),
                  ledger=mine, remaining=remaining, seen=list(ledger.observed(root)),
                  reread=lambda: ledger.spent(root, ledger.answer_cost(cache), besides=mine.run))


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
