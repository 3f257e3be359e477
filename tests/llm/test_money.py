"""Money at the request layer, against the fake OpenAI server: every billed attempt charged, broken
usage charged its worst case (and the answer kept), the ledger of paid attempts, dead endpoints."""

from __future__ import annotations

import json
import math
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.remote_servers import free_port
from helpers.request_layer import context, make_riddles, model_spec
from sideways.backends.openai_compatible import OpenAICompatibleBackend
from sideways.config.prices import tokens
from sideways.core.errors import SchemaError, SidewaysError
from sideways.llm import budget, ledger, paidlock, runner
from sideways.llm.budget import Budget
from sideways.llm.cache import RequestCache
from sideways.testing.openai_server import Behaviour, FakeServer

PRICES = {"local-model-1": {"input_per_mtok": 1.0, "output_per_mtok": 10_000.0}}
NAMES = ("local-m", "local-model-1")


@pytest.fixture
def installed():
    yield budget.install
    budget.install(None)


def with_ledger(tmp_path, **caps) -> Budget:
    return Budget(ledger=ledger.Ledger(ledger.ledger_path("predict", tmp_path)), **caps)


def worst_of(body: dict, ctx, max_tokens: int = 64) -> float:
    w = budget.worst_case(body, NAMES, max_tokens, ctx.prices, batch=False, discount=0.5, image_tokens=1000)
    assert w is not None
    return w


def test_every_send_after_a_timeout_or_a_malformed_200_is_charged_again(tmp_path, installed):
    """N sends, N charges: a timed-out attempt, a malformed 200 and a connection dropped once the body
    was sent may all have been billed; a 503 was not (it keeps its reservation for the next attempt)."""
    riddles = make_riddles(4)
    plan = {"[R000]": ["timeout", "timeout", "ok"], "[R001]": ["malformed", "malformed", "malformed", "ok"],
            "[R002]": ["drop", "ok"], "[R003]": ["503", "ok"]}
    with FakeServer(Behaviour(plan=plan, timeout_sleep_s=1.0)) as server:
        spec = model_spec(server.base_url, concurrency=2, max_tokens=64)
        ctx = context(tmp_path, prices=PRICES, timeout_s=0.3, max_attempts=6)
        b = with_ledger(tmp_path)
        installed(b)
        df = OpenAICompatibleBackend().predict(riddles, spec, ctx)
        assert (df["status"] == "ok").all()
        assert server.fake.requests == 11  # 3 + 4 + 2 + 2 sends
        b.ledger.close()
        lines = [json.loads(x) for x in ledger.ledger_path("predict", tmp_path).read_text().splitlines()]
        worst = {x["id"]: x["worst"] for x in lines if "worst" in x}
        settles = [x for x in lines if "usd" in x]
        assert len(worst) == 10 and len(settles) == 10  # every send that may be billed reserved, then settled
        at_worst = [x for x in settles if x["usd"] == worst[x["id"]]]
        assert len(at_worst) == 6  # 2 timeouts, 3 malformed 200s, 1 drop: charged as billed
        records = [r["cost_usd"] for r in RequestCache(tmp_path / "cache").records()]
        assert sum(x["usd"] for x in settles if x not in at_worst) == pytest.approx(sum(records))
        assert b.spent_here() == pytest.approx(sum(x["usd"] for x in settles))


@pytest.mark.parametrize("usage", [{"completion_tokens": -1_000_000}, {"completion_tokens": float("inf")},
                                   {"completion_tokens": float("nan")}, {"prompt_tokens": 10**12},
                                   {"completion_tokens": "many"}])
def test_a_broken_usage_is_charged_its_worst_case_and_the_answer_is_cached_once(tmp_path, installed, usage):
    riddles = make_riddles(3)
    with FakeServer(Behaviour(usage=usage)) as server:
        spec = model_spec(server.base_url, concurrency=1, max_tokens=64)
        ctx = context(tmp_path, prices=PRICES)
        b = with_ledger(tmp_path)
        installed(b)
        df = OpenAICompatibleBackend().predict(riddles, spec, ctx)
        assert (df["status"] == "ok").all() and df["cost_usd"].isna().all()
        records = list(RequestCache(tmp_path / "cache").records())
        assert len(records) == 3 and all(r["cost_usd"] is None for r in records)
        assert b.spent_here() == pytest.approx(sum(worst_of(body, ctx) for body in server.fake.bodies))
        assert b.spent_here() > 0
        again = OpenAICompatibleBackend().predict(riddles, spec, ctx)  # cached: nothing paid again
        assert server.fake.requests == 3 and (again["status"] == "ok").all()


@given(st.one_of(st.none(), st.booleans(), st.integers(-10**15, 10**15), st.floats(allow_nan=True),
                 st.text(max_size=5), st.lists(st.integers(), max_size=2)))
def test_a_token_count_is_a_sane_count_or_unknown(value):
    got = tokens(value)
    assert got is None or (isinstance(got, int) and 0 <= got <= 100_000_000)


def test_the_ledger_settles_a_killed_runs_attempts_at_their_answer_or_worst_case(tmp_path):
    path = ledger.ledger_path("judge", tmp_path)
    one = ledger.Ledger(path)
    a, b, c = one.reserve("m", "a" * 64, 0.5), one.reserve("m", "b" * 64, 0.25), one.reserve("n", "", 0.125)
    one.settle(a, 0.1)  # b: its answer reached the cache; c: nothing known (a timeout, then the kill)
    del c
    assert not ledger.compact(path, {}.get)  # while its run appends, the file is left as it is
    one.close()  # its process dies: the kernel drops its lock
    costs = {"b" * 64: 0.01}
    assert ledger.spent(tmp_path, costs.get) == pytest.approx({"m": 0.11, "n": 0.125})
    assert ledger.compact(path, costs.get)
    assert ledger.spent(tmp_path) == pytest.approx({"m": 0.11, "n": 0.125})  # the same, from one line a model
    assert len(path.read_text().splitlines()) == 2
    two = ledger.Ledger(path)
    two.settle(two.reserve("m", "", 1.0), 0.5)
    with path.open("ab") as fh:
        fh.write(b'{"id": "x-1", "mod')  # a torn last line: a crash mid-write
    assert ledger.spent(tmp_path)["m"] == pytest.approx(0.61)
    del b


JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=8)),
                    lambda inner: st.one_of(st.lists(inner, max_size=3),
                                            st.dictionaries(st.sampled_from(["id", "model", "key", "worst", "usd", "run",
                                                                             "attempts", "x"]), inner, max_size=5)),
                    max_leaves=8)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(JSON, min_size=1, max_size=4))
def test_a_ledger_of_any_lines_reads_as_sane_amounts_or_one_line_naming_file_and_line(tmp_path, lines):
    path = ledger.ledger_path("predict", tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    try:
        spent = ledger.spent(tmp_path)
    except SchemaError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)
    else:
        assert all(math.isfinite(v) and v >= 0 for v in spent.values())


@pytest.mark.parametrize("where", ["closed port", "no such host"])
def test_a_closed_port_or_an_unknown_host_fails_the_job_within_seconds_saying_so(tmp_path, installed, capsys, where):
    riddles = make_riddles(8)
    url = f"http://127.0.0.1:{free_port()}/v1" if where == "closed port" else "http://no-such-host.invalid/v1"
    spec = model_spec(url, concurrency=4, max_tokens=64)
    ctx = context(tmp_path, prices=PRICES, backoff_s=1.0, max_backoff_s=30.0, max_attempts=8)
    start = time.monotonic()
    df = OpenAICompatibleBackend().predict(riddles, spec, ctx)
    took = time.monotonic() - start
    assert took < runner.ENDPOINT_WAIT_S + 3, took  # 8 attempts of 8 items would back off for minutes
    assert (df["status"] == "api_error").all()
    assert df["error"].str.contains("endpoint unreachable for 8s").all()
    said = [x for x in capsys.readouterr().err.splitlines() if "retrying after" in x]
    assert len(said) == 1 and len(said[0]) <= 120 and "Unreachable: ClientConnector" in said[0] and "down after 8s" in said[0]


def test_a_provider_answering_503_to_everything_is_down_after_a_bounded_number_of_attempts(tmp_path, installed):
    riddles = make_riddles(30)
    with FakeServer(Behaviour(plan={"": ["503"]})) as server:
        spec = model_spec(server.base_url, concurrency=4, max_tokens=64)
        ctx = context(tmp_path, prices=PRICES, backoff_s=0.5, max_backoff_s=1.0, max_attempts=6)
        start = time.monotonic()
        df = OpenAICompatibleBackend().predict(riddles, spec, ctx)
        took = time.monotonic() - start
        assert (df["status"] == "api_error").all() and df["error"].str.contains("provider down").any()
        assert server.fake.requests <= runner.DOWN_SURELY  # not 30 items x 6 attempts
        assert took < runner.DOWN_AFTER_S + 5, took
        print(f"always-503: {server.fake.requests} attempts, {took:.1f}s")


def test_paid_lock_is_never_followed_through_a_symlink(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    root = tmp_path / "cache"
    root.mkdir()
    os.symlink(target, root / paidlock.LOCK_NAME)
    with pytest.raises(SidewaysError, match="paid.lock: a symbolic link"), paidlock.sending(root, "predict m"):
        pass
    assert target.read_text() == "keep me"


def test_a_killed_runs_journalled_answer_is_charged_what_it_cost_not_its_worst_case(tmp_path):
    """Killed after the answer was journalled, before its attempt was settled: the next stage's budget
    recovers the journal first, so the attempt costs its answer's usage."""
    from sideways.config.requests import parse_requests
    from sideways.llm.cache import encode, make_record

    key = "c" * 64
    settings = parse_requests({"cache_dir": str(tmp_path / "cache")})
    killed = ledger.Ledger(ledger.ledger_path("predict", tmp_path))
    killed.reserve("m", key, 0.5)
    record = make_record(key, {}, "predict/m/R000", {"choices": []}, input_tokens=10, output_tokens=10,
                         cost_usd=0.02, batch=False, created_at="2026-11-28T00:00:00+00:00", elapsed_s=0.1, attempts=1)
    journal = tmp_path / "cache/journal/123-dead.jsonl"
    journal.parent.mkdir(parents=True)
    journal.write_bytes(encode(record) + b"\n")  # a dead run's journal: nobody holds its lock
    b = budget.open_budget("predict", settings, tmp_path)
    assert b.before == {"m": pytest.approx(0.02)} and not journal.exists()


LIVE_RUN = """
import sys, time
from pathlib import Path
from sideways.llm import ledger
run = ledger.Ledger(Path(sys.argv[1]))
run.settle(run.reserve("m", "", 0.5), 0.25)
Path(sys.argv[2]).write_text("first")
while not Path(sys.argv[3]).exists():
    time.sleep(0.01)
run.settle(run.reserve("m", "", 0.5), 0.125)  # appended after another process tried to compact the file
"""


def test_a_run_still_appending_in_another_process_loses_no_line_to_a_compaction(tmp_path):
    """An orphaned stage (its shell killed, itself alive) and a restart: the restart's compaction must
    not replace the file the orphan appends to, or what the orphan pays next is lost from the ledger."""
    import subprocess
    import sys

    path = ledger.ledger_path("predict", tmp_path)
    dead = ledger.Ledger(path)
    dead.reserve("m", "", 1.0)  # a run killed long ago: its attempt is charged its worst case
    dead.close()
    first, go = tmp_path / "first", tmp_path / "go"
    live = subprocess.Popen([sys.executable, "-c", LIVE_RUN, str(path), str(first), str(go)])
    while not first.exists():
        assert live.poll() is None, "the live run died"
        time.sleep(0.01)
    before = path.read_bytes()
    assert not ledger.compact(path)  # the live run holds its lock: nothing is replaced
    assert path.read_bytes() == before
    go.touch()
    assert live.wait(30) == 0
    assert ledger.spent(tmp_path) == {"m": pytest.approx(1.0 + 0.25 + 0.125)}
    assert ledger.compact(path)  # the live run has ended: now its lines become one a run
    assert ledger.spent(tmp_path) == {"m": pytest.approx(1.375)} and len(path.read_text().splitlines()) == 2


def test_a_budget_that_waited_for_another_run_counts_what_that_run_paid(tmp_path):
    from sideways.config.requests import parse_requests

    settings = parse_requests({"cache_dir": str(tmp_path / "cache"), "max_cost_usd": 1.0})
    waiting = budget.open_budget("predict", settings, tmp_path)
    mine = waiting.reserve("m", 0.1)
    waiting.settle(mine, 0.1)  # its own attempt: in its ledger and in what it spent
    other = budget.open_budget("predict", settings, tmp_path)  # another run, sending while this one waits
    other.settle(other.reserve("m", 0.5), 0.5)
    assert waiting.total_spent() == pytest.approx(0.1)
    waiting.refresh()
    assert waiting.total_spent() == pytest.approx(0.6)  # the other run's $0.50 counts, its own $0.10 once
    refused = waiting.reserve("m", 0.5)
    assert isinstance(refused, str) and "over requests.max_cost_usd $1.000000" in refused
