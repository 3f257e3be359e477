"""The batch backend through batchling, with respx faking the providers' batch endpoints."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys

import pytest
import respx

from helpers import ROOT
from helpers.fake_batch_apis import (
    FakeAnthropicBatches,
    FakeDoublewordBatches,
    FakeGeminiBatches,
    FakeGroqBatches,
    FakeMistralBatches,
    FakeOpenAIBatches,
    FakeTogetherBatches,
    FakeXaiBatches,
)
from helpers.request_layer import context, make_riddles
from sideways.artifacts.schema import JUDGMENTS, PREDICTIONS, conform
from sideways.backends.batch import BATCHLING_DB, BatchBackend
from sideways.config.options import BatchOptions
from sideways.config.params import JudgeSpec, ModelSpec

FAST = {"batch_window_s": 0.05, "batch_poll_s": 0.01, "backoff_s": 0.01, "max_backoff_s": 0.02}
PRICES = {"gpt-test": {"input_per_mtok": 2.0, "output_per_mtok": 8.0},
          "claude-test": {"input_per_mtok": 3.0, "output_per_mtok": 15.0}}


def ctx_for(tmp_path, **extra):
    return context(tmp_path, env={"OPENAI_API_KEY": "sk-openai-fake-1", "ANTHROPIC_API_KEY": "sk-ant-fake-2"},
                   prices=PRICES, **FAST, **extra)


def openai_model() -> ModelSpec:
    return ModelSpec("gpt-test", "batch", "openai", "gpt-test", 0, BatchOptions())


def anthropic_model() -> ModelSpec:
    return ModelSpec("claude-test", "batch", "anthropic", "claude-test", 0, BatchOptions(max_tokens=512))


def test_openai_batch_with_a_failed_line_and_a_poll_error(tmp_path):
    riddles = make_riddles(5)
    fake = FakeOpenAIBatches(fail_marker="[R002]", poll_errors=1)
    ctx = ctx_for(tmp_path)
    with respx.mock(assert_all_called=False) as mock:
        fake.install(mock)
        df = conform(BatchBackend().predict(riddles, openai_model(), ctx), PREDICTIONS, "t")
    assert dict(zip(df["riddle_id"], df["status"])) == {"R000": "ok", "R001": "ok", "R002": "api_error",
                                                         "R003": "ok", "R004": "ok"}
    assert "HTTP 500" in df.loc[2, "error"] and "line failed" in df.loc[2, "error"]
    assert fake.created == 1, "the poll error must resume the same batch, not submit a new one"
    assert fake.polls >= 2
    # batch price: (100 * 2 + 20 * 8) / 1e6, half off
    assert df.loc[0, "cost_usd"] == pytest.approx((100 * 2 + 20 * 8) / 1e6 * 0.5)
    assert set(fake.auth) == {"Bearer sk-openai-fake-1"}
    stored = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert stored and not [p for p in stored if b"sk-openai-fake-1" in p.read_bytes()]  # incl. batchling's db
    # the failed line was forgotten by batchling: only the 4 answered requests stay recorded
    with sqlite3.connect(tmp_path / "cache" / BATCHLING_DB) as conn:
        assert conn.execute("select count(*) from request_cache").fetchone()[0] == 4

    # rerun: the 4 answers come from our cache; only the failed line is submitted again
    fake2 = FakeOpenAIBatches()
    with respx.mock(assert_all_called=False) as mock:
        fake2.install(mock)
        again = BatchBackend().predict(riddles, openai_model(), ctx)
    assert (again["status"] == "ok").all()
    assert fake2.created == 1 and len(next(iter(fake2.stored.values()))) == 1


@pytest.mark.parametrize("provider, fake_class, var", [
    ("groq", FakeGroqBatches, "GROQ_API_KEY"),
    ("doubleword", FakeDoublewordBatches, "DOUBLEWORD_API_KEY"),
    ("together", FakeTogetherBatches, "TOGETHER_API_KEY"),
    ("mistral", FakeMistralBatches, "MISTRAL_API_KEY"),
    ("xai", FakeXaiBatches, "XAI_API_KEY"),
])
def test_the_other_batch_providers_with_a_failed_line(tmp_path, provider, fake_class, var):
    fake = fake_class(fail_marker="[R001]")
    ctx = context(tmp_path, env={var: f"{provider}-key-fake-4"}, **FAST)
    spec = ModelSpec("m", "batch", provider, "open-model-1", 0, BatchOptions())
    with respx.mock(assert_all_called=False) as mock:
        fake.install(mock)
        df = conform(BatchBackend().predict(make_riddles(3), spec, ctx), PREDICTIONS, "t")
    assert df["status"].tolist() == ["ok", "api_error", "ok"]
    assert fake.created == 1 and set(fake.auth) == {f"Bearer {provider}-key-fake-4"}
    line = next(iter(fake.stored.values()))[0]["body"] if hasattr(fake, "stored") else \
        next(iter(fake.requests.values()))[0]["batch_request"]["chat_get_completion"]
    assert line["model"] == "open-model-1" and "max_tokens" in line


def test_rerun_of_finished_batch_stage_sends_nothing(tmp_path):
    riddles = make_riddles(3)
    ctx = ctx_for(tmp_path)
    with respx.mock(assert_all_called=False) as mock:
        FakeOpenAIBatches().install(mock)
        first = BatchBackend().predict(riddles, openai_model(), ctx)
    with respx.mock(assert_all_called=False) as mock:  # no routes: any request would fail
        again = BatchBackend().predict(riddles, openai_model(), ctx)
        assert mock.calls.call_count == 0
    assert first.equals(again)


def test_anthropic_batch_instructions_in_the_message_and_a_failed_line(tmp_path):
    riddles = make_riddles(4, image=True)
    fake = FakeAnthropicBatches(fail_marker="[R001]", poll_errors=1)
    with respx.mock(assert_all_called=False) as mock:
        fake.install(mock)
        df = conform(BatchBackend().predict(riddles, anthropic_model(), ctx_for(tmp_path)), PREDICTIONS, "t")
    assert df["status"].tolist() == ["ok", "api_error", "ok", "ok"]
    assert "prompt is too long" in df.loc[1, "error"]
    assert fake.created == 1
    line = next(iter(fake.batches.values()))[0]["params"]
    assert set(line) == {"model", "max_tokens", "messages"}  # what batchling sends
    content = line["messages"][0]["content"]
    assert content[0]["type"] == "image" and content[0]["source"]["media_type"] == "image/png"
    assert "riddle-solving benchmark" in content[1]["text"]  # the instructions travel in the message
    assert fake.headers[0]["x-api-key"] == "sk-ant-fake-2"
    assert df.loc[0, "cost_usd"] == pytest.approx((120 * 3 + 30 * 15) / 1e6 * 0.5)


def test_gemini_batch_with_images_and_a_failed_line(tmp_path):
    riddles = make_riddles(3, image=True)
    fake = FakeGeminiBatches(fail_marker="[R002]")
    ctx = context(tmp_path, env={"GEMINI_API_KEY": "g-key-fake-3"},
                  prices={"gemini-test": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}, **FAST)
    spec = ModelSpec("gemini-test", "batch", "gemini", "gemini-test", 0, BatchOptions())
    with respx.mock(assert_all_called=False) as mock:
        fake.install(mock)
        df = conform(BatchBackend().predict(riddles, spec, ctx), PREDICTIONS, "t")
    assert df["status"].tolist() == ["ok", "ok", "api_error"]
    assert df["answer"].tolist()[:2] == ["0", "1"]
    assert fake.created == 1 and set(fake.keys) == {"g-key-fake-3"}
    request = next(iter(fake.files.values()))[0]["request"]
    assert request["contents"][0]["parts"][1]["inline_data"]["mime_type"] == "image/png"
    assert request["generationConfig"]["responseMimeType"] == "application/json"
    assert df.loc[0, "output_tokens"] == 20  # thinking tokens are billed as output
    assert df.loc[0, "cost_usd"] == pytest.approx((80 * 1 + 20 * 2) / 1e6 * 0.5)


def test_batch_judge_over_anthropic(tmp_path):
    riddles = make_riddles(3)
    ctx = ctx_for(tmp_path)
    with respx.mock(assert_all_called=False) as mock:
        FakeOpenAIBatches().install(mock)
        preds = BatchBackend().predict(riddles, openai_model(), ctx)
    judge = JudgeSpec("claude-j", "batch", "anthropic", "claude-test", BatchOptions())
    with respx.mock(assert_all_called=False) as mock:
        FakeAnthropicBatches().install(mock)
        verdicts = conform(BatchBackend().judge(riddles, preds, judge, ctx), JUDGMENTS, "t")
    assert verdicts["status"].eq("ok").all() and verdicts["both_correct"].all()


def test_batch_refuses_a_base_url_and_unknown_providers(tmp_path):
    from sideways.config.backends import model_options
    from sideways.core.errors import ParamsError

    with pytest.raises(ParamsError, match=r"models\.m\.base_url: batchling batches only"):
        model_options("batch", {"base_url": "http://x"}, "params.yaml: models.m")
    with pytest.raises(ParamsError, match="no batch API"):
        BatchBackend().predict(make_riddles(1), ModelSpec("m", "batch", "ollama", "x", 0, BatchOptions()),
                               ctx_for(tmp_path))


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "mistral", "together", "groq", "doubleword", "xai"])
def test_every_batch_provider_is_routed_by_batchling_and_fingerprinted_like_it(provider):
    """Our host/endpoint table must match batchling's, or requests would go out at full price."""
    import asyncio
    import json
    from urllib.parse import urlparse

    from batchling.core import Batcher
    from batchling.providers import get_provider_for_batch_request

    from sideways.backends.batch import PROVIDERS, batchling_key, url_of
    from sideways.config.requests import RequestSettings
    from sideways.llm.prompts import load_templates
    from sideways.llm.riddle_requests import prediction_calls

    spec = ModelSpec("m", "batch", provider, "some-model-1", 0, BatchOptions())
    backend = BatchBackend()
    target = backend.target(spec, RequestSettings())
    call = prediction_calls(make_riddles(1), spec, target, load_templates())[0]
    url = urlparse(url_of(PROVIDERS[provider], call))
    routed = get_provider_for_batch_request(method="POST", hostname=url.hostname, path=url.path)
    assert routed is not None and routed.name == provider

    async def theirs() -> str:
        batcher = Batcher(cache=False)
        body = json.dumps(call.body).encode()
        queue_key = batcher._build_queue_key(provider=routed, endpoint=url.path, body=body)
        return batcher._build_request_hash(queue_key=queue_key, host=url.hostname, body=body)

    assert batchling_key(provider, PROVIDERS[provider], call) == asyncio.run(theirs())


# -- a paid batch is never submitted twice (issue 9) ---------------------------------------------

CHILD = """
import json, sys
from pathlib import Path
import respx
from helpers import fake_batch_apis
from helpers.request_layer import context, make_riddles
from sideways.backends.batch import BatchBackend
from sideways.config.options import BatchOptions
from sideways.config.params import ModelSpec
cfg = json.loads(Path(sys.argv[1]).read_text())
fake = getattr(fake_batch_apis, cfg["fake"])(save_to=Path(cfg["state"]), die_on_poll=True)
ctx = context(Path(cfg["tmp"]), env=cfg["env"], prices=cfg["prices"], **cfg["fast"])
spec = ModelSpec(cfg["key"], "batch", cfg["provider"], cfg["key"], 0, BatchOptions(max_tokens=cfg["max_tokens"]))
with respx.mock(assert_all_called=False) as mock:
    fake.install(mock)
    BatchBackend().predict(make_riddles(cfg["n"]), spec, ctx)
"""

KEYS = {"OPENAI_API_KEY": "sk-openai-fake-1", "ANTHROPIC_API_KEY": "sk-ant-fake-2"}


def die_after_acceptance(tmp_path, fake_class, spec, n: int):
    """Run the stage in a child process that is SIGKILLed at its first poll, after the batch was accepted."""
    cfg = {"fake": fake_class.__name__, "state": str(tmp_path / "fake-state.json"), "tmp": str(tmp_path),
           "env": KEYS, "prices": PRICES, "fast": FAST, "key": spec.key, "provider": spec.provider, "n": n,
           "max_tokens": spec.options.max_tokens}
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    (tmp_path / "child.py").write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")]),
           "SIDEWAYS_PROGRESS": "0"}
    child = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(tmp_path / "cfg.json")], env=env,
                           timeout=60, capture_output=True, text=True)
    assert child.returncode == -signal.SIGKILL, child.stderr
    return tmp_path / "fake-state.json"


@pytest.mark.parametrize("poll_error", ["http", "connect"])
@pytest.mark.parametrize("fake_class, spec", [(FakeOpenAIBatches, openai_model()),
                                              (FakeAnthropicBatches, anthropic_model())], ids=["openai", "anthropic"])
def test_killed_after_acceptance_then_a_failed_first_poll_submits_once(tmp_path, fake_class, spec, poll_error):
    riddles = make_riddles(4)
    state = die_after_acceptance(tmp_path, fake_class, spec, len(riddles))
    assert json.loads(state.read_text())["created"] == 1  # the provider accepted the batch, then the process died

    fake = fake_class.restored(state, poll_errors=1, poll_error=poll_error)  # the restart's first poll fails
    with respx.mock(assert_all_called=False) as mock:
        fake.install(mock)
        df = conform(BatchBackend().predict(riddles, spec, ctx_for(tmp_path)), PREDICTIONS, "t")
    assert (df["status"] == "ok").all() and df["answer"].tolist() == ["0", "1", "2", "3"]
    assert fake.created == 1, "the batch accepted before the kill was submitted again"
    assert fake.polls == 2  # the failed poll, then the one that found the batch ended

    with respx.mock(assert_all_called=False) as mock:  # every answer is cached: nothing is sent or polled
        again = BatchBackend().predict(riddles, spec, ctx_for(tmp_path))
        assert mock.calls.call_count == 0
    assert again.equals(BatchBackend().predict(riddles, spec, ctx_for(tmp_path)))


@pytest.mark.parametrize("status", ["failed", "expired"])
def test_a_batch_the_provider_failed_is_submitted_once_more_and_named(tmp_path, capsys, status):
    riddles = make_riddles(3)
    fake = FakeOpenAIBatches(outcome={"batch_1": status})
    with respx.mock(assert_all_called=False) as mock:
        fake.install(mock)
        df = BatchBackend().predict(riddles, openai_model(), ctx_for(tmp_path))
    assert (df["status"] == "ok").all()
    assert fake.created == 2 and [len(fake.stored[fake.jobs[b]]) for b in ("batch_1", "batch_2")] == [3, 3]
    err = capsys.readouterr().err
    assert (f"batch: openai batch batch_1 ended '{status}' at the provider; of its 3 request(s): 3 submitted once "
            "more (batch batch_2)") in err


def test_a_second_failed_batch_is_not_submitted_again(tmp_path, capsys):
    riddles = make_riddles(2)
    ctx = ctx_for(tmp_path, max_attempts=3)
    fake = FakeOpenAIBatches(outcome={"batch_1": "expired", "batch_2": "failed"})
    with respx.mock(assert_all_called=False) as mock:
        fake.install(mock)
        df = BatchBackend().predict(riddles, openai_model(), ctx)
    assert fake.created == 2 and (df["status"] == "api_error").all()
    assert "batch_1 (expired), batch_2 (failed)" in df.loc[0, "error"] and "not submitted again" in df.loc[0, "error"]
    assert "batch_2 ended 'failed' at the provider; of its 2 request(s): 2 not submitted again" in capsys.readouterr().err

    rerun = FakeOpenAIBatches()  # the next run (the user's retry, the provider back) submits them once more
    with respx.mock(assert_all_called=False) as mock:
        rerun.install(mock)
        again = BatchBackend().predict(riddles, openai_model(), ctx)
    assert rerun.created == 1 and (again["status"] == "ok").all()


def test_polls_failing_past_every_retry_leave_the_batch_to_the_next_run(tmp_path):
    riddles = make_riddles(3)
    ctx = ctx_for(tmp_path, max_attempts=2)
    fake = FakeOpenAIBatches(poll_errors=1000)
    with respx.mock(assert_all_called=False) as mock:
        fake.install(mock)
        df = BatchBackend().predict(riddles, openai_model(), ctx)
    assert (df["status"] == "api_error").all() and "batch_1 holds this request" in df.loc[0, "error"]
    assert fake.created == 1 and fake.polls == 4  # 2 polls in the first attempt, 2 on the runner's retry

    fake.poll_errors = 0  # the provider is back: the next run collects the same batch
    with respx.mock(assert_all_called=False) as mock:
        fake.install(mock)
        again = BatchBackend().predict(riddles, openai_model(), ctx)
    assert (again["status"] == "ok").all() and fake.created == 1
