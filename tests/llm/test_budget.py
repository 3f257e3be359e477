"""The spending cap while requests go out (sideways.llm.budget), against the fake OpenAI server's usage."""

from __future__ import annotations

import pytest

from helpers import project_params
from helpers.request_layer import context, make_riddles, model_spec
from sideways.backends.openai_compatible import OpenAICompatibleBackend
from sideways.config.params import parse_params
from sideways.core.errors import ParamsError
from sideways.llm import budget
from sideways.llm.budget import WAIT, Budget, SpendingCapReached, Ticket
from sideways.llm.cache import RequestCache
from sideways.llm.failures import check_failure_share
from sideways.testing.openai_server import Behaviour, FakeServer

PRICES = {"local-model-1": {"input_per_mtok": 1.0, "output_per_mtok": 10_000.0}}


@pytest.fixture
def installed():
    yield budget.install
    budget.install(None)


def test_reserve_waits_for_what_is_in_flight_then_refuses_past_the_cap_and_stops_there():
    b = Budget(cap=1.0)
    first = b.reserve("m", 0.6)
    assert isinstance(first, Ticket)
    assert b.reserve("m", 0.6) == WAIT  # it fits once the one in flight has settled
    b.settle(first, 0.7)
    assert b.reserve("m", 0.6) == ("over requests.max_cost_usd $1.000000: the evaluation has spent $0.700000 "
                                   "(data/spend), this request may cost $0.600000 ($0.600000 expected); raise it to pay more")
    again = b.reserve("m", 0.1)  # once stopped, stopped, and every later refusal says why
    assert again.startswith("stopped earlier in this run, over requests.max_cost_usd $1.000000: the evaluation has spent "
                            "$0.700000")
    assert b.total_spent() == pytest.approx(0.7)
    assert "has no price" in Budget(cap=1.0).reserve("m", None)
    assert isinstance(Budget().reserve("m", None), Ticket)  # no cap: an unpriced model may send


def test_an_attempt_goes_when_its_expected_cost_fits_not_its_worst_case():
    b = Budget(cap=1.0, before={"m": 0.5})  # what earlier runs paid counts
    assert isinstance(b.reserve("m", 0.9, expected=0.1), Ticket)
    assert b.reserve("m", 0.9, expected=0.1) == WAIT  # the first's worst case is in flight
    assert "over requests.max_cost_usd" in Budget(cap=1.0, before={"m": 0.95}).reserve("m", 0.9, expected=0.1)
    # while the rest of the run's estimate does not fit, the worst case must
    assert "over requests" in Budget(cap=1.0, before={"m": 0.5}, remaining={"m": 0.6}).reserve("m", 0.9, expected=0.1)
    ok = Budget(cap=1.0, before={"m": 0.5}, remaining={"m": 0.4})
    assert isinstance(ok.reserve("m", 0.9, expected=0.1), Ticket) and ok.remaining == {"m": pytest.approx(0.3)}


def test_answers_longer_than_expected_make_the_expected_cost_realistic():
    b = Budget(cap=1.0, remaining={"m": 0.5})
    t = b.reserve("m", 0.5, expected=0.1)
    b.settle(t, 0.3, answered=True)  # three times what was expected
    assert "over requests.max_cost_usd" in b.reserve("m", 0.8, expected=0.1)  # the rest (0.4) costs 1.2 now


def test_a_per_model_cap_stops_that_model_only_and_counts_what_it_spent_before():
    b = Budget(per_model={"a": 0.5}, before={"a": 0.2})
    assert isinstance(b.reserve("a", 0.3), Ticket) and b.reserve("a", 0.3) == WAIT
    assert isinstance(b.reserve("b", 5.0), Ticket)
    assert "requests.max_cost_usd_per_model.a $0.500000" in Budget(per_model={"a": 0.5}, before={"a": 0.3}).reserve(
        "a", 0.3)


def test_a_run_stops_within_one_request_of_the_cap_and_the_rest_is_sent_once_later(tmp_path, installed):
    riddles = make_riddles(12)
    with FakeServer(Behaviour()) as server:
        spec = model_spec(server.base_url, concurrency=1, max_tokens=64)
        ctx = context(tmp_path, prices=PRICES)
        cap = 12 * 15 * 10_000.0 / 1e6  # 15 tokens a reply: the fake's replies are longer
        installed(Budget(cap=cap))
        df = OpenAICompatibleBackend().predict(riddles, spec, ctx)
        spent = budget.current().total_spent()
        capped = df["error"].fillna("").str.startswith("spending cap")
        assert 0 < server.fake.requests < 12 and capped.sum() == 12 - server.fake.requests
        records = list(RequestCache(tmp_path / "cache").records())
        assert len(records) == server.fake.requests and spent == pytest.approx(sum(r["cost_usd"] for r in records))
        worst = budget.worst_case(server.fake.bodies[0], ("local-m", "local-model-1"), 64, ctx.prices, batch=False,
                                  discount=0.5, image_tokens=1000)
        assert spent <= cap < spent + worst  # within one request's worst case
        with pytest.raises(SpendingCapReached, match="requests not sent, the first: spending cap"):
            check_failure_share(df, 0.05, "predict@local-m-llm")

        installed(Budget(cap=cap * 10))  # a higher cap: only what was not sent goes out
        again = OpenAICompatibleBackend().predict(riddles, spec, ctx)
        assert (again["status"] == "ok").all() and server.fake.requests == 12
        assert set(server.fake.by_body.values()) == {1}


def test_a_per_model_cap_must_name_a_model():
    data = project_params()
    data["requests"]["max_cost_usd_per_model"] = {"nobody": 1.0}
    with pytest.raises(ParamsError, match="requests.max_cost_usd_per_model.nobody: not a model"):
        parse_params(data)
