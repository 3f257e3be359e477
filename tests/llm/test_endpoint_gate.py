"""EndpointGate: one endpoint's concurrency shared by event loops in several threads (run_jobs)."""

from __future__ import annotations

import asyncio
import threading

from sideways.llm.ratelimit import EndpointGate, endpoint_gate, shared_gates


def test_loops_in_two_threads_never_hold_more_than_the_limit():
    gate = EndpointGate(3)
    lock = threading.Lock()
    now = {"in": 0, "most": 0, "done": 0}

    async def request() -> None:
        await gate.acquire()
        try:
            with lock:
                now["in"] += 1
                now["most"] = max(now["most"], now["in"])
            await asyncio.sleep(0.01)
            with lock:
                now["in"] -= 1
                now["done"] += 1
        finally:
            gate.release()

    async def job() -> None:
        await asyncio.gather(*(request() for _ in range(20)))

    threads = [threading.Thread(target=asyncio.run, args=(job(),)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert now == {"in": 0, "most": 3, "done": 60}


def test_a_waiter_cancelled_gives_its_slot_to_the_next():
    async def main() -> list[str]:
        gate, order = EndpointGate(1), []
        await gate.acquire()

        async def wait(name: str) -> None:
            await gate.acquire()
            order.append(name)
            gate.release()

        first, second = asyncio.create_task(wait("first")), asyncio.create_task(wait("second"))
        await asyncio.sleep(0.01)
        first.cancel()
        gate.release()
        await asyncio.wait_for(second, 2)
        await gate.acquire()  # every slot came back
        return order

    assert asyncio.run(main()) == ["second"]


def test_gates_exist_only_inside_a_fanout_and_take_the_smallest_concurrency():
    assert endpoint_gate("http://h/v1", 4) is None
    with shared_gates():
        a = endpoint_gate("http://h/v1", 8)
        b = endpoint_gate("http://h/v1", 4)
        assert a is b and a is not None and a.limit == 4
        assert endpoint_gate("http://other/v1", 8) is not a
