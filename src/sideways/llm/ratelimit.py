"""An optional requests-per-minute limit (request starts spaced at least 60/rpm seconds, per model),
and the gates that keep the jobs of a fan-out within each endpoint's own concurrency."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextvars import ContextVar


class RpmLimiter:
    """Shared by all tasks of one model run; ``rpm=None`` disables it."""

    def __init__(self, rpm: float | None):
        self._interval = 60.0 / rpm if rpm else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        if not self._interval:
            return
        async with self._lock:
            now = time.monotonic()
            wait = self._next - now
            self._next = max(now, self._next) + self._interval
        if wait > 0:
            await asyncio.sleep(wait)


class EndpointGate:
    """At most ``limit`` requests in flight to one endpoint, across the threads and event loops of
    every job of a fan-out (each job runs its own loop in its own thread, so no asyncio primitive
    can be shared). A freed slot goes to the longest waiter, on that waiter's loop."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self._lock = threading.Lock()
        self._busy = 0
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    async def acquire(self) -> None:
        with self._lock:
            if self._busy < self.limit and not self._waiters:
                self._busy += 1
                return
            loop = asyncio.get_running_loop()
            waiter = (loop, loop.create_future())
            self._waiters.append(waiter)
        try:
            await waiter[1]
        except asyncio.CancelledError:
            with self._lock:
                if waiter in self._waiters:  # never got a slot
                    self._waiters.remove(waiter)
                    raise
            if waiter[1].done() and not waiter[1].cancelled():  # got one as it was cancelled: give it back
                self.release()
            raise

    def release(self) -> None:
        with self._lock:
            if self._busy > self.limit or not self._waiters:
                self._busy -= 1
                return
            loop, future = self._waiters.popleft()  # the slot passes on: _busy stays
        loop.call_soon_threadsafe(self._hand_over, future)

    def _hand_over(self, future: asyncio.Future[None]) -> None:
        if future.cancelled():  # its task was cancelled before the slot arrived: pass it on again
            self.release()
        else:
            future.set_result(None)


class Gates:
    """The endpoint gates of one fan-out, by endpoint; models sharing an endpoint share its gate,
    whose limit is the smallest concurrency any of them declares."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gates: dict[str, EndpointGate] = {}

    def gate(self, endpoint: str, limit: int) -> EndpointGate:
        with self._lock:
            gate = self._gates.setdefault(endpoint, EndpointGate(limit))
            gate.limit = min(gate.limit, max(1, limit))
            return gate


_gates: ContextVar[Gates | None] = ContextVar("sideways_gates", default=None)


@contextlib.contextmanager
def shared_gates() -> Iterator[Gates]:
    """Inside, requests to one endpoint from every job share that endpoint's concurrency (a
    fan-out inside a job shares the gates of the fan-out around it)."""
    gates = _gates.get() or Gates()
    token = _gates.set(gates)
    try:
        yield gates
    finally:
        _gates.reset(token)


def endpoint_gate(endpoint: str, limit: int) -> EndpointGate | None:
    """The shared gate of ``endpoint`` inside :func:`shared_gates`; None outside (one run alone
    is bounded by its own slots)."""
    gates = _gates.get()
    return None if gates is None else gates.gate(endpoint, limit)
