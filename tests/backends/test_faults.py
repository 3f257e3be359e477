"""Faults on the openai-compatible path: retries, Retry-After, timeouts, bad bodies, parse errors."""

from __future__ import annotations

import time

import pytest

from helpers.request_layer import context, make_riddles, model_spec
from sideways.artifacts.schema import PREDICTIONS, conform
from sideways.backends.openai_compatible import OpenAICompatibleBackend
from sideways.core.errors import ParamsError, SecretsError
from sideways.testing.openai_server import Behaviour, FakeServer

PLAN = {
    "[R000]": ["429", "ok"],
    "[R001]": ["500", "500", "ok"],
    "[R002]": ["timeout", "ok"],
    "[R003]": ["malformed", "ok"],
    "[R004]": ["truncated"],
    "[R005]": ["garbage"],
    "[R006]": ["400"],
    "[R007]": ["500"],
    "[R008]": ["drop", "ok"],
}


def test_each_fault_ends_in_the_right_status(tmp_path):
    riddles = make_riddles(10)
    behaviour = Behaviour(plan=PLAN, retry_after_s=0.3, timeout_sleep_s=1.5)
    with FakeServer(behaviour) as server:
        ctx = context(tmp_path, timeout_s=0.5, max_attempts=4)
        df = conform(OpenAICompatibleBackend().predict(riddles, model_spec(server.base_url), ctx), PREDICTIONS, "t")
        attempts = dict(server.fake.attempts)
    status = dict(zip(df["riddle_id"], df["status"]))
    assert status == {"R000": "ok", "R001": "ok", "R002": "ok", "R003": "ok", "R004": "parse_error",
                      "R005": "parse_error", "R006": "api_error", "R007": "api_error", "R008": "ok", "R009": "ok"}
    err = dict(zip(df["riddle_id"], df["error"]))
    assert "truncated" in err["R004"]
    assert "HTTP 400" in err["R006"] and "refuses" in err["R006"]
    assert "gave up after 4 attempts" in err["R007"] and "HTTP 500" in err["R007"]
    raw = dict(zip(df["riddle_id"], df["raw"]))
    assert raw["R005"] == "I would rather not answer in JSON today."
    assert raw["R004"] and raw["R004"].startswith("{")
    assert attempts["[R006]"] == 1  # a 400 is permanent: not retried
    assert attempts["[R007]"] == 4  # bounded attempts
    assert attempts["[R001]"] == 3
    # failed requests cost nothing and carry no tokens
    assert df.loc[df["status"] == "api_error", "cost_usd"].isna().all()


def test_retry_after_is_honoured(tmp_path):
    with FakeServer(Behaviour(plan={"[R000]": ["429", "429", "ok"]}, retry_after_s=0.25)) as server:
        start = time.monotonic()
        df = OpenAICompatibleBackend().predict(make_riddles(1), model_spec(server.base_url), context(tmp_path))
        elapsed = time.monotonic() - start
    assert df["status"].tolist() == ["ok"]
    assert elapsed >= 0.5  # two waits of Retry-After 0.25 s; backoff alone is <= 0.05 s each


def test_exhausted_retries_are_tried_again_on_rerun_but_answers_are_not(tmp_path):
    riddles = make_riddles(4)
    with FakeServer(Behaviour(plan={"[R001]": ["500", "500", "ok"]})) as server:
        ctx = context(tmp_path, max_attempts=2)
        first = OpenAICompatibleBackend().predict(riddles, model_spec(server.base_url), ctx)
        assert list(first["status"]) == ["ok", "api_error", "ok", "ok"]
        n = server.fake.requests
        second = OpenAICompatibleBackend().predict(riddles, model_spec(server.base_url), ctx)
        assert list(second["status"]) == ["ok"] * 4
        assert server.fake.requests == n + 1
        assert max(server.fake.answered.values()) == 1


def test_a_rejection_is_cached_but_an_auth_failure_is_not(tmp_path):
    riddles = make_riddles(2)
    with FakeServer(Behaviour(plan={"[R001]": ["400", "ok"]})) as server:
        ctx = context(tmp_path)
        first = OpenAICompatibleBackend().predict(riddles, model_spec(server.base_url), ctx)
        n = server.fake.requests
        second = OpenAICompatibleBackend().predict(riddles, model_spec(server.base_url), ctx)
        assert server.fake.requests == n  # a finished stage rerun sends nothing, rejection included
        assert first.equals(second) and second["status"].tolist() == ["ok", "api_error"]
    with FakeServer(Behaviour(expected_key="right-key-1")) as server:
        spec = model_spec(server.base_url, api_key_env="K")
        bad = OpenAICompatibleBackend().predict(riddles, spec, context(tmp_path / "b", env={"K": "wrong-key-1"}))
        assert bad["status"].tolist() == ["api_error"] * 2 and "HTTP 401" in bad.loc[0, "error"]
        good = OpenAICompatibleBackend().predict(riddles, spec, context(tmp_path / "b", env={"K": "right-key-1"}))
        assert good["status"].tolist() == ["ok", "ok"]


def test_structured_output_requested_and_prose_json_parsed(tmp_path):
    riddles = make_riddles(2)
    with FakeServer() as server:
        OpenAICompatibleBackend().predict(riddles, model_spec(server.base_url), context(tmp_path / "a"))
        assert server.fake.bodies[0]["response_format"]["json_schema"]["schema"]["required"] == ["answer", "justification"]
        df = OpenAICompatibleBackend().predict(riddles, model_spec(server.base_url, structured_output=False),
                                               context(tmp_path / "b"))
        assert "response_format" not in server.fake.bodies[-1]
    assert list(df["status"]) == ["ok", "ok"] and df["raw"].str.contains("```json").all()


def test_images_travel_as_data_urls(tmp_path):
    riddles = make_riddles(1, image=True)
    with FakeServer() as server:
        df = OpenAICompatibleBackend().predict(riddles, model_spec(server.base_url), context(tmp_path))
        content = server.fake.bodies[0]["messages"][0]["content"]
    assert df["status"].tolist() == ["ok"]
    assert content[0]["type"] == "text" and "picture" in content[0]["text"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")


def test_concurrency_and_rpm_limits(tmp_path):
    riddles = make_riddles(12)
    with FakeServer(Behaviour(latency_s=0.03)) as server:
        OpenAICompatibleBackend().predict(riddles, model_spec(server.base_url, concurrency=3), context(tmp_path / "a"))
        assert server.fake.max_in_flight == 3
        start = time.monotonic()
        OpenAICompatibleBackend().predict(riddles, model_spec(server.base_url, concurrency=12, rpm=3000),
                                          context(tmp_path / "b"))
        assert time.monotonic() - start >= 11 * 60 / 3000 * 0.95


def test_key_needed_only_when_something_must_be_sent(tmp_path):
    riddles = make_riddles(2)
    with FakeServer(Behaviour(expected_key="sk-local-123456")) as server:
        spec = model_spec(server.base_url, api_key_env="LOCAL_KEY")
        with pytest.raises(SecretsError, match="LOCAL_KEY"):
            OpenAICompatibleBackend().predict(riddles, spec, context(tmp_path))
        assert server.fake.requests == 0
        df = OpenAICompatibleBackend().predict(riddles, spec, context(tmp_path, env={"LOCAL_KEY": "sk-local-123456"}))
        assert df["status"].tolist() == ["ok", "ok"]
        again = OpenAICompatibleBackend().predict(riddles, spec, context(tmp_path))  # all cached: no key needed
        assert again["status"].tolist() == ["ok", "ok"] and server.fake.requests == 2


@pytest.mark.parametrize("options, match", [
    ({"api_key": "sk-oops"}, r"models\.m\.api_key: never put a key"),
    ({"concurency": 4}, r"models\.m\.concurency: unknown key \(did you mean 'concurrency'\?\)"),
    ({"base_url": "localhost:8000"}, r"models\.m\.base_url: the openai-compatible backend needs an http\(s\) base_url"),
    ({"max_tokens": 0}, r"models\.m\.max_tokens: 0 is out of range"),
    ({"max_tokens_field": "tokens"}, r"models\.m\.max_tokens_field: 'tokens' is not one of"),
    ({"rpm": 0}, r"models\.m\.rpm: expected a positive number"),
    ({"structured_output": "yes"}, r"models\.m\.structured_output: expected true or false"),
])
def test_bad_options_name_the_key(options, match):
    """Options are validated with params.yaml, before any backend runs."""
    from sideways.config.backends import model_options

    with pytest.raises(ParamsError, match=match):
        model_options("openai-compatible", {"base_url": "http://127.0.0.1:9/v1", **options}, "params.yaml: models.m")
