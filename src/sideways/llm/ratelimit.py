"""An optional requests-per-minute limit: request starts are spaced at least 60/rpm seconds."""

from __future__ import annotations

import asyncio
import time


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
