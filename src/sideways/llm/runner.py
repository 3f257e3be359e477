"""Sending requests: the cache first, then bounded concurrency, rate limit, retries, and a
journalled answer (a cache record soon after) the moment an answer arrives.

:func:`run_calls` is shared by the OpenAI-compatible and the batch backends; they differ only
in the :class:`Transport` (a direct HTTP client, or the same client inside batchling's
``batchify`` so the request becomes one line of a provider batch). Identical requests are sent
once. Failures never raise: each call ends as a :class:`Result` with a response or an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, Protocol, cast

import httpx

from sideways.core.money import usd_or_none
from sideways.core.progress import counter, current_job
from sideways.core.retry_after import parse_retry_after
from sideways.llm.budget import SPENDING_CAP_ERROR, WAIT, Meter, Ticket
from sideways.llm.cache import RequestCache, canonical_json, encode, key_parts, make_record, payload_key, readable
from sideways.llm.journal import Journal, recover
from sideways.llm.paidlock import sending
from sideways.llm.ratelimit import EndpointGate, RpmLimiter
from sideways.llm.retry import RetryPolicy, backoff_delay, is_retryable_status
from sideways.llm.secrets import scrub


@dataclass(frozen=True)
class Call:
    """One request to make: what it is for (``item``, ``label``) and what is sent."""

    item: str
    label: str
    provider: str
    model: str
    endpoint: str
    body: Mapping[str, Any]

    @cached_property
    def parts(self) -> dict[str, Any]:
        return key_parts(self.provider, self.endpoint, self.model, self.body)

    @cached_property
    def payload(self) -> bytes:
        """The body as sent: its canonical JSON, encoded once for the key and the request."""
        return canonical_json(self.body)

    @cached_property
    def key(self) -> str:
        return payload_key(self.provider, self.endpoint, self.model, self.payload)

    @cached_property
    def readable_parts(self) -> dict[str, Any]:
        """The key parts as a cache record shows them (images as digests)."""
        # readable() is typed Any -> Any (it walks any JSON value); it maps a dict to a dict.
        return cast(dict[str, Any], readable(self.parts))


@dataclass
class Result:
    """How a call ended: a response (fresh or cached) or an error message."""

    call: Call
    key: str
    response: Any = None
    error: str | None = None
    cached: bool = False
    attempts: int = 0
    elapsed_s: float = 0.0
    status_code: int | None = None
    record: Mapping[str, Any] | None = field(default=None, repr=False)
    billed: bool = False  # failed, but its last attempt may have been billed (a timeout, a dropped connection)


@dataclass(frozen=True)
class Reply:
    """An HTTP reply, as light as it gets (``httpx.Response`` has the same four members)."""

    status_code: int
    headers: Mapping[str, str]
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


class Transport(Protocol):
    async def send(self, call: Call) -> Reply | httpx.Response: ...


Account = Callable[[Any], tuple[int | None, int | None, float | None]]
# Removes secrets from text about to be stored (a :class:`~sideways.llm.secrets.Redactor`).
Redact = Callable[[str | None], str | None]


@dataclass(frozen=True)
class RunOptions:
    policy: RetryPolicy = RetryPolicy()
    concurrency: int = 16
    rpm: float | None = None
    timeout_s: float | None = 120.0
    batch: bool = False
    retry_exceptions: bool = True
    seed: int = 0
    desc: str = ""
    gate: EndpointGate | None = None  # shared with other jobs' runs to the same endpoint (a fan-out)
    meter: Meter | None = None  # the spending cap (sideways.llm.budget): None when no cap is set


def is_deterministic_rejection(status: int | None) -> bool:
    """A 4xx that the same request would get again (400, 404, 413, 422, ...), so it is cached.

    Not 401/403/407 (fixing the key must not be defeated by the cache), nor 408/429 (transient).
    ``sideways cache forget-errors`` drops these records to ask again.
    """
    return status is not None and 400 <= status < 500 and status not in (401, 403, 407, 408, 409, 425, 429)


class TransportError(Exception):
    """A connection-level failure a transport reports (reset, refused, dropped): retried."""


class Unreachable(TransportError):
    """No connection was made (refused, no such host): nothing was sent, nothing billed; an endpoint
    that stays so for :data:`ENDPOINT_WAIT_S` is down for the job."""


class _Transient(Exception):
    def __init__(self, message: str, retry_after: float | None = None, *, status: int | None = None,
                 billed: bool = False):
        super().__init__(message)
        self.retry_after, self.status, self.billed = retry_after, status, billed


class _Permanent(Exception):
    def __init__(self, message: str, status_code: int):
        super().__init__(message)
        self.status_code = status_code


async def run_calls(
    calls: Sequence[Call],
    open_transport: Callable[[], contextlib.AbstractAsyncContextManager[Transport]] | None,
    cache: RequestCache,
    options: RunOptions,
    account: Account,
    redact: Redact = lambda s: s,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    on_fresh: Callable[[Result], None] | None = None,
) -> list[Result]:
    """One :class:`Result` per call, in order. Cached answers cost no request.

    ``open_transport`` is entered only if something must be sent, so a rerun from the cache
    opens no connection and needs no key (it may be None then). ``account`` turns a response
    into (input tokens, output tokens, USD) for the cache record. ``on_fresh`` sees each answer
    of this run once journalled, after its slot has sent the next request (rows take shape then).
    """
    recover(cache)  # answers journalled by a killed run become records: they count as cached
    plan = _Plan(calls, cache)
    if plan.first is None:
        return plan.results()
    with sending(cache.root, options.desc or "requests") as waited:  # one run sends through a cache at a time
        if waited:  # another run sent meanwhile: what it paid for is cached now, and counts against the cap
            recover(cache)
            if options.meter is not None:
                options.meter.budget.refresh()
            plan = _Plan(calls, cache)
            if plan.first is None:
                return plan.results()
        return await _send_misses(plan, calls, open_transport, cache, options, account, redact, sleep, on_fresh)


def _pause(sleep: Callable[[float], Awaitable[None]], health: _Health) -> Callable[[float], Awaitable[None]]:
    """The backoff between attempts, cut short when the endpoint is found down meanwhile."""

    async def pause(delay: float) -> None:
        if sleep is not asyncio.sleep:
            await sleep(delay)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(health.down_event.wait(), delay)

    return pause


async def _admit(plan: _Plan, key: str, call: Call, health: _Health, options: RunOptions,
                 redact: Redact) -> _Charge | None:
    """The charge of ``call``'s attempts, or None when it is not sent and is settled here: its endpoint is down
    (nothing more is sent, nor reserved), or the spending cap refuses it."""
    if health.down is not None:
        plan.settle(key, Result(call, key, error=redact(health.down)))
        return None
    charge = _Charge(options.meter, call, key)
    refusal = await charge.admit()
    if refusal is not None:
        plan.settle(key, Result(call, key, error=f"{SPENDING_CAP_ERROR}: {refusal}"))
        return None
    return charge


async def _send_misses(
    plan: _Plan,
    calls: Sequence[Call],
    open_transport: Callable[[], contextlib.AbstractAsyncContextManager[Transport]] | None,
    cache: RequestCache,
    options: RunOptions,
    account: Account,
    redact: Redact,
    sleep: Callable[[float], Awaitable[None]],
    on_fresh: Callable[[Result], None] | None,
) -> list[Result]:
    """Send ``plan``'s misses (the caller holds the cache's send lock)."""
    assert plan.first is not None
    if open_transport is None:
        raise RuntimeError("run_calls: requests to send but no transport")

    progress = counter(len(calls), options.desc)
    limiter = RpmLimiter(options.rpm)
    rng = random.Random(options.seed)
    loop = asyncio.get_running_loop()
    pending = plan.pending()
    health = _Health(options.desc or plan.first[1].label)

    pause = _pause(sleep, health)

    async def worker() -> None:
        # One worker per concurrency slot, taking the next miss (and its cap reservation) when it is free;
        # busy until its answer is journalled (one write(), no await): a SIGKILL loses only those in flight.
        for key, call in pending:  # one generator shared by the workers: each miss goes to one slot
            progress.update(plan.take_progress())
            charge = await _admit(plan, key, call, health, options, redact)
            if charge is None:
                continue
            plan.sent += 1
            result = await _attempts(key, call, transport, options, limiter, rng, redact, pause, health, charge)
            result.record = _safe_record(key, call, result, account, options.batch, redact)
            if result.record is not None:  # journalled before anything else can fail: never paid twice
                journal.append(key, encode(result.record))
            charge.end(result)
            plan.settle(key, result)
            if on_fresh is not None:
                loop.call_soon(on_fresh, result)

    journal = Journal(cache, about=_about(plan.first[1], options))  # writer threads make records (no GIL held)
    try:
        async with open_transport() as transport:
            workers = [asyncio.create_task(worker()) for _ in range(max(1, min(options.concurrency, len(calls))))]
            reporter = asyncio.create_task(_report(journal, plan))
            try:
                await asyncio.gather(*workers)
            finally:
                for task in [*workers, reporter]:
                    task.cancel()
    finally:
        journal.close()
        progress.update(plan.take_progress())
        progress.close()
    return plan.results()


STATUS_EVERY_S = 1.0  # how often a run's status file (``sideways status``) may be rewritten


def _about(first: Call, options: RunOptions) -> dict[str, Any]:
    """Who a run works for, as its status file says: the fan-out job around it, else its own name."""
    scope = current_job()
    return {"job": scope.name if scope else options.desc, "provider": scope.provider if scope else first.provider,
            "model": first.model, "desc": options.desc, "batch": options.batch}


async def _report(journal: Journal, plan: _Plan) -> None:
    """Keep the run's status file current (counts only change when requests move) until cancelled."""
    while True:
        journal.status(calls=len(plan.calls), cached=plan.done, sent=plan.sent,
                       answered=len(plan.fresh) - plan.failed, failed=plan.failed)
        await asyncio.sleep(STATUS_EVERY_S)


class _Plan:
    """The calls, looked up in the cache in order as they are needed; identical requests once.

    The first miss is found up front (nothing to send: no transport, no key). The others are
    found by :meth:`pending` as slots free up, so building calls and looking them up overlaps
    the requests already out instead of delaying the first ones.
    """

    def __init__(self, calls: Sequence[Call], cache: RequestCache):
        self.calls, self.cache = calls, cache
        self.cached: dict[str, dict[str, Any]] = {}
        self.fresh: dict[str, Result] = {}
        self.calls_per_key: dict[str, int] = {}
        self.done = 0  # calls answered from the cache so far
        self.answered = 0  # calls answered by this run so far
        self.sent = 0  # distinct requests taken by a slot (sent, or queued for a batch)
        self.failed = 0  # distinct requests that ended with an error in this run
        self._shown = 0
        self._misses = self._scan()
        self.first = next(self._misses, None)

    def _scan(self) -> Iterator[tuple[str, Call]]:
        for call in self.calls:
            key = call.key
            seen = key in self.calls_per_key
            self.calls_per_key[key] = self.calls_per_key.get(key, 0) + 1
            if not seen:
                record = self.cache.get(key)
                if record is None:
                    call.readable_parts  # noqa: B018 -- computed now, not on the answer's path
                    yield key, call
                    continue
                self.cached[key] = record
            if key in self.cached:
                self.done += 1
            elif key in self.fresh:  # a duplicate of a call this run already answered
                self.answered += 1

    def pending(self) -> Iterator[tuple[str, Call]]:
        """Every miss once, the first one included, each looked up when a slot asks for it."""
        assert self.first is not None
        yield self.first
        yield from self._misses

    def settle(self, key: str, result: Result) -> None:
        """``result`` answers ``key`` (and every call of this run with the same request)."""
        self.failed += result.error is not None
        self.fresh[key] = result
        self.answered += self.calls_per_key[key]

    def take_progress(self) -> int:
        """Calls answered (cached or fresh) since the last call: the progress bar's step."""
        step = self.done + self.answered - self._shown
        self._shown += step
        return step

    def results(self) -> list[Result]:
        """One :class:`Result` per call, in order, from the cache or from this run."""
        out = []
        for call in self.calls:
            key = call.key
            record = self.cached.get(key)
            if record is not None:
                out.append(Result(call, key, record["response"], record.get("error"), cached=True,
                                  status_code=record.get("status_code"), record=record))
            else:
                r = self.fresh[key]
                out.append(Result(call, key, r.response, r.error, False, r.attempts, r.elapsed_s,
                                  r.status_code, r.record))
        return out


class _Charge:
    """How one request charges the spending cap: a reservation per attempt that may be billed.

    The first attempt reserves its worst case before it is sent; an attempt the provider may have
    billed (a timeout, a dropped connection once the body was sent, a malformed 200) is charged its
    worst case, and the next attempt reserves again; an HTTP error or a refused connection (nothing
    billed) keeps the reservation for the next attempt. The last attempt settles at its answer's
    priced usage (its worst case when that is unknown)."""

    def __init__(self, meter: Meter | None, call: Call, key: str):
        self.meter, self.call, self.key = meter, call, key
        self.ticket: Ticket | None = None
        self.worst: float | None = None

    async def admit(self) -> str | None:
        """Reserve the next attempt (waiting while what is in flight must settle first); None or why not."""
        if self.meter is None:
            return None
        if self.worst is None:
            self.worst = self.meter.worst(self.call)
        expected = self.meter.expected(self.call)
        while True:
            answer = self.meter.budget.reserve(self.meter.owner, self.worst, expected, self.key)
            if isinstance(answer, Ticket):
                self.ticket = answer
                return None
            if answer != WAIT:
                return answer
            await asyncio.sleep(WAIT_S)

    async def billed(self) -> str | None:
        """The attempt just made may have been billed: charge its worst case, reserve the next one."""
        self._settle(self.worst or 0.0)
        return await self.admit()

    def end(self, result: Result) -> None:
        """The request ended: what its last attempt cost replaces its reservation."""
        usd = _charged(result, self.worst or 0.0)
        self._settle(usd, answered=result.error is None and usd != self.worst)

    def _settle(self, usd: float, answered: bool = False) -> None:
        if self.meter is not None and self.ticket is not None:
            self.meter.budget.settle(self.ticket, usd, answered)
            self.ticket = None


WAIT_S = 0.01  # how often an attempt waiting for what is in flight to settle looks again


def _charged(result: Result, worst: float) -> float:
    """What a sent request's last attempt cost: its priced usage; the worst case when that is unknown
    (no usable usage, or no answer after a timeout or a dropped connection: the provider may have
    billed it); nothing for an HTTP error or a connection never made (providers do not bill those)."""
    cost = None if result.record is None else result.record.get("cost_usd")
    if result.error is None:
        known = usd_or_none(cost)
        return worst if known is None else known
    return 0.0 if result.status_code is not None or not result.billed else worst


def _safe_record(key: str, call: Call, result: Result, account: Account, batch: bool,
                 redact: Redact) -> dict[str, Any] | None:
    """:func:`_redacted_record`, whose accounting cannot fail: a response whose usage cannot be
    priced is recorded with an unknown cost (and charged its worst case), never lost."""
    def safe(response: Any) -> tuple[int | None, int | None, float | None]:
        try:
            in_tok, out_tok, cost = account(response)
        except Exception:  # noqa: BLE001 -- a response of any shape must still be journalled
            return None, None, None
        return in_tok, out_tok, usd_or_none(cost)

    return _redacted_record(key, call, result, safe, batch, redact)


def _redacted_record(key: str, call: Call, result: Result, account: Account, batch: bool,
                     redact: Redact) -> dict[str, Any] | None:
    """:func:`_record` with every string redacted, the response kept for rows redacted too: a key
    a provider echoes in a 200 body reaches neither the cache, the answers files nor the rows."""
    result.response = scrub(result.response, redact)
    record = _record(key, call, result, account, batch)
    return None if record is None else scrub(record, redact)


def _record(key: str, call: Call, result: Result, account: Account, batch: bool) -> dict[str, Any] | None:
    """The cache record for an answer or a deterministic rejection; None for other failures."""
    now = datetime.now(UTC).isoformat(timespec="seconds")
    if result.error is None:
        in_tok, out_tok, cost = account(result.response)
        return make_record(key, call.readable_parts, call.label, result.response, input_tokens=in_tok,
                           output_tokens=out_tok, cost_usd=cost, batch=batch, created_at=now,
                           elapsed_s=result.elapsed_s, attempts=result.attempts, readable_parts=True)
    if is_deterministic_rejection(result.status_code):
        return make_record(key, call.readable_parts, call.label, None, input_tokens=None, output_tokens=None,
                           cost_usd=None, batch=batch, created_at=now, elapsed_s=result.elapsed_s,
                           attempts=result.attempts, error=result.error, status_code=result.status_code,
                           readable_parts=True)
    return None


ENDPOINT_WAIT_S = 8.0  # an endpoint unreachable (refused, no such host) this long is down for the job
DOWN_AFTER = 12  # server errors (5xx) in a row, across the job, that make a provider down ...
DOWN_AFTER_S = 4.0  # ... once they span this long (a burst of 503s from an overloaded provider is not down)
DOWN_SURELY = 60  # ... or this many in a row, however fast
NOT_BILLED = (Unreachable, httpx.ConnectError, httpx.ConnectTimeout, ConnectionRefusedError, socket.gaierror)


class _Health:
    """Whether a job's endpoint is down: unreachable for :data:`ENDPOINT_WAIT_S`, or answering
    server errors to everything. Once down, no attempt of the job is sent (the job fails saying why)."""

    def __init__(self, desc: str):
        self.desc = desc
        self.down: str | None = None
        self.down_event = asyncio.Event()
        self.unreachable: str | None = None
        self.in_row = 0
        self.first_error_at = 0.0
        self.said = False

    def ok(self) -> None:
        self.unreachable, self.in_row = None, 0

    def no_connection(self, what: str) -> None:
        """An attempt could not connect: the endpoint is down unless one connects within the wait."""
        if self.unreachable is None:
            self.unreachable = what
            asyncio.get_running_loop().call_later(ENDPOINT_WAIT_S, self._still_unreachable)

    def _still_unreachable(self) -> None:
        if self.unreachable is not None:
            self._down(f"endpoint unreachable for {ENDPOINT_WAIT_S:.0f}s: {self.unreachable}")

    def server_error(self, what: str) -> None:
        now = time.monotonic()
        if self.in_row == 0:
            self.first_error_at = now
        self.in_row += 1
        if (self.in_row >= DOWN_AFTER and now - self.first_error_at >= DOWN_AFTER_S) or self.in_row >= DOWN_SURELY:
            self._down(f"provider down: {self.in_row} server errors in a row, the last: {what}")

    def _down(self, why: str) -> None:
        if self.down is None:
            self.down = why[:300]
            self.down_event.set()

    def retrying(self, what: str, tail: str) -> None:
        """One line a job, the first time it must wait to retry: what it waits for, and how long at most."""
        if not self.said:
            self.said = True
            head = f"{self.desc}: retrying after "
            room = LINE - len(head) - len(tail)
            what = what if len(what) <= room else what[:max(0, room - 3)] + "..."
            print((head + what + tail)[:LINE], file=sys.stderr, flush=True)


LINE = 120


async def _attempts(
    key: str, call: Call, transport: Transport, options: RunOptions, limiter: RpmLimiter, rng: random.Random,
    redact: Redact, sleep: Callable[[float], Awaitable[None]], health: _Health, charge: _Charge,
) -> Result:
    start = time.monotonic()
    last, billed = "no attempt made", False
    for attempt in range(1, options.policy.max_attempts + 1):
        until = f" (at most {options.policy.max_attempts} attempts)"
        if health.down is not None:
            return Result(call, key, error=redact(health.down), attempts=attempt - 1, billed=billed,
                          elapsed_s=time.monotonic() - start)
        await limiter.acquire()
        try:
            response = await _gated_send(call, transport, options)
            health.ok()
            return Result(call, key, response, attempts=attempt, elapsed_s=time.monotonic() - start)
        except _Permanent as exc:
            health.ok()
            return Result(call, key, error=redact(str(exc)), attempts=attempt, elapsed_s=time.monotonic() - start,
                          status_code=exc.status_code)
        except _Transient as exc:
            last, retry_after, billed = str(exc), exc.retry_after, exc.billed
            if exc.status is not None and exc.status >= 500:
                health.server_error(last[:120])
                until = f" (down after {DOWN_AFTER} server errors in a row)"
        except NOT_BILLED as exc:
            last, retry_after, billed = _describe(exc), None, False
            health.no_connection(last[:160])
            until = f" (down after {ENDPOINT_WAIT_S:.0f}s unreachable)"
        except (TimeoutError, httpx.TimeoutException) as exc:
            last, retry_after, billed = f"timeout ({type(exc).__name__})", None, True
        except (httpx.HTTPError, TransportError, RuntimeError, OSError) as exc:
            if not options.retry_exceptions:
                return Result(call, key, error=redact(_describe(exc)), attempts=attempt, billed=True,
                              elapsed_s=time.monotonic() - start)
            last, retry_after, billed = _describe(exc), None, True
        if attempt < options.policy.max_attempts and health.down is None:
            if billed:  # the provider may have done (and billed) the work: the next attempt is paid again
                refusal = await charge.billed()
                if refusal is not None:
                    return Result(call, key, error=f"{SPENDING_CAP_ERROR}: {refusal}", attempts=attempt,
                                  elapsed_s=time.monotonic() - start)
                billed = False
            health.retrying(redact(last) or last, until)
            await sleep(backoff_delay(attempt, options.policy, retry_after, rng))
    if health.down is not None:
        last = health.down
    return Result(call, key, error=redact(f"gave up after {attempt} attempts: {last}"), billed=billed,
                  attempts=attempt, elapsed_s=time.monotonic() - start)


async def _gated_send(call: Call, transport: Transport, options: RunOptions) -> Any:
    """:func:`_send` holding one of the endpoint's shared slots, when there is a gate."""
    if options.gate is None:
        return await _send(call, transport, options)
    await options.gate.acquire()
    try:
        return await _send(call, transport, options)
    finally:
        options.gate.release()


async def _send(call: Call, transport: Transport, options: RunOptions) -> Any:
    if options.timeout_s:
        async with asyncio.timeout(options.timeout_s):
            response = await transport.send(call)
    else:
        response = await transport.send(call)
    status = response.status_code
    if 200 <= status < 300:
        try:
            return response.json()
        except ValueError:
            raise _Transient(f"HTTP {status} with a malformed body: {response.text[:200]!r}", billed=True) from None
    message = f"HTTP {status}: {response.text[:300]}"
    if is_retryable_status(status, options.policy):
        raise _Transient(message, parse_retry_after(response.headers.get("retry-after")), status=status)
    raise _Permanent(message, status)


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:400]
