"""old_objects_frozen: the objects that existed before are out of the collector's way during the
block, cycles made inside are still collected, and everything is back to normal afterwards."""

from __future__ import annotations

import gc
import weakref

from sideways.core.collector import old_objects_frozen


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_old_objects_are_frozen_inside_and_thawed_after():
    before = _cycle()  # garbage made before the block: frozen with the rest, so it survives inside
    with old_objects_frozen():
        assert gc.get_freeze_count() > 1000
        inside = _cycle()
        gc.collect()
        assert inside() is None, "a cycle made inside the block must still be collected"
        assert before() is not None, "an object that existed before must be out of the collector's reach"
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert before() is None, "once thawed, the old garbage is collected as usual"


def test_the_objects_are_thawed_when_the_block_raises():
    try:
        with old_objects_frozen():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.get_freeze_count() == 0


def test_blocks_in_several_threads_unfreeze_only_when_the_last_one_leaves():
    import threading

    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, int] = {}

    def first() -> None:
        with old_objects_frozen():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with old_objects_frozen():
            second_in.set()
            first_out.wait(5)
            seen["after the first left"] = gc.get_freeze_count()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen["after the first left"] > 1000, "the first block to leave unfroze under a loop still running"
    assert gc.get_freeze_count() == 0
