"""Keep Python's garbage collector off the objects that existed before a long request loop.

A stage imports pandas, pyarrow and the rest before it sends anything: some 90,000 tracked
objects. While 1,000 answers arrive, the allocations of the HTTP client trigger collections,
and a full (generation 2) one walks all of those old objects: 77-83 ms during which the event
loop stands still and every slot's next request waits (measured with ``gc.callbacks`` in
``benchmarks/throughput.py``'s setting: one such pause in about every other run of 1.8 s).
``gc.freeze()`` moves the existing objects to the permanent generation, so collections during
the loop look only at what the loop itself created; ``gc.unfreeze()`` puts them back after.
Nothing is leaked: cycles among new objects are still collected, and the frozen ones are
collected as usual once unfrozen.

Several request loops may run at once, one per thread (:func:`sideways.jobs.fanout.run_jobs`),
so the freeze is counted: every entry freezes (objects made since the last freeze join the
permanent generation), and only the last block to leave unfreezes, never while another loop runs.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_inside = 0  # blocks entered and not left yet, in every thread


@contextlib.contextmanager
def old_objects_frozen() -> Iterator[None]:
    """Freeze the tracked objects for the duration of the block, unfreeze them after.

    Unfreezing also returns to the collector whatever was frozen before (CPython itself starts
    with a few hundred frozen objects): harmless, they are then collected like any others.
    """
    global _inside
    with _lock:
        _inside += 1
        gc.freeze()
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                gc.unfreeze()
