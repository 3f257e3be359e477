"""Pure pieces of the request layer: settings, prices, secrets, parsing, prompts, formats, retry, cache."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pandas as pd
import pytest

from helpers.request_layer import make_riddles, png_bytes
from sideways.config.prices import parse_prices
from sideways.config.requests import parse_requests
from sideways.core.errors import ParamsError, RequestError
from sideways.core.retry_after import parse_retry_after
from sideways.llm import cache as cache_mod
from sideways.llm.failures import check_failure_share
from sideways.llm.formats import AnthropicMessages, GeminiGenerate, Generation, OpenAIChat
from sideways.llm.parsing import PREDICTION_SCHEMA, parse_prediction, parse_verdict
from sideways.llm.pricing import cost_totals
from sideways.llm.prompts import Prompt, hints, judge_prompt, load_templates, media_type, prediction_prompt
from sideways.llm.retry import RetryPolicy, backoff_delay
from sideways.llm.secrets import Redactor, read_dotenv


def test_settings_defaults_and_errors_name_the_key():
    s = parse_requests({"timeout_s": 30, "max_failure_share": 0.1})
    assert s.timeout_s == 30 and s.max_failure_share == 0.1 and s.max_attempts == 6
    assert parse_requests(None) == parse_requests({})
    with pytest.raises(ParamsError, match=r"requests\.retries: unknown key \(known: "):
        parse_requests({"retries": 3})
    with pytest.raises(ParamsError, match=r"requests\.timeout: unknown key \(did you mean 'timeout_s'\?\)"):
        parse_requests({"timeout": 3})
    with pytest.raises(ParamsError, match=r"requests\.max_failure_share: 2 is out of range"):
        parse_requests({"max_failure_share": 2})
    with pytest.raises(ParamsError, match=r"requests\.concurrency: expected an integer"):
        parse_requests({"concurrency": 2.5})
    with pytest.raises(ParamsError, match=r"requests\.rpm: expected a number"):
        parse_requests({"rpm": "fast"})
    with pytest.raises(ParamsError, match=r"requests\.cache_dir: expected a non-empty string"):
        parse_requests({"cache_dir": ""})
    with pytest.raises(ParamsError, match=r"requests: expected a mapping"):
        parse_requests([1])


def test_prices_with_batch_discount_and_unknown_models():
    table = parse_prices({"gpt-5.1": {"input_per_mtok": 1.25, "output_per_mtok": 10}})
    assert table.cost(("gpt-5-1", "gpt-5.1"), 1_000_000, 100_000, batch=False, discount=0.5) == pytest.approx(2.25)
    assert table.cost(("gpt-5-1", "gpt-5.1"), 1_000_000, 100_000, batch=True, discount=0.5) == pytest.approx(1.125)
    assert table.cost(("other",), 10, 10, batch=False, discount=0.5) is None
    with pytest.raises(ParamsError, match=r"prices\.m\.input_per_mtok: -1 is out of range"):
        parse_prices({"m": {"input_per_mtok": -1, "output_per_mtok": 1}})
    with pytest.raises(ParamsError, match=r"prices\.m\.output_per_mtok: expected a number, got None"):
        parse_prices({"m": {"input_per_mtok": 1}})
    with pytest.raises(ParamsError, match=r"prices\.m\.input_per_mtk: unknown key \(did you mean 'input_per_mtok'\?\)"):
        parse_prices({"m": {"input_per_mtk": 1, "output_per_mtok": 1}})
    with pytest.raises(ParamsError, match=r"prices\.m: expected a mapping"):
        parse_prices({"m": 3})
    df = pd.DataFrame({"model": ["a", "a", "b"], "status": ["ok", "api_error", "ok"], "input_tokens": [10, None, 5],
                       "output_tokens": [1, None, 2], "cost_usd": [0.5, None, None]})
    totals = cost_totals({"x": df}, by="model")
    assert totals["a"] == {"rows": 2, "failed": 1, "input_tokens": 10, "output_tokens": 1, "cost_usd": 0.5, "priced": 1}
    assert totals["b"]["priced"] == 0


def test_failure_share_raises_with_a_summary():
    df = pd.DataFrame({"riddle_id": list("abcd"), "status": ["ok", "ok", "ok", "api_error"],
                       "error": [None, None, None, "HTTP 400: nope"]})
    check_failure_share(df, 0.25, "predict@m-llm")
    with pytest.raises(RequestError, match=r"predict@m-llm: 1 of 4 items failed \(25% > .*d: api_error: HTTP 400"):
        check_failure_share(df, 0.2, "predict@m-llm")


def test_failure_share_of_a_replay_says_to_fix_the_file_not_to_rerun():
    df = pd.DataFrame({"riddle_id": list("ab"), "status": ["ok", "parse_error"], "error": [None, "no JSON"]})
    with pytest.raises(RequestError, match=r"replayed from a file .* fix the broken rows in the replay file") as err:
        check_failure_share(df, 0.2, "predict@m-llm", replay=True)
    assert "re-sends" not in str(err.value)


def test_dotenv_and_redaction(tmp_path):
    (tmp_path / ".env").write_text("# keys\nexport A_KEY='sk-abc123'\nB=\"x y\"\nbroken line\n")
    assert read_dotenv(tmp_path / ".env") == {"A_KEY": "sk-abc123", "B": "x y"}
    assert read_dotenv(tmp_path / "missing") == {}
    redact = Redactor(["sk-abc123", None, ""])
    assert redact("key sk-abc123 refused") == "key [REDACTED] refused" and redact(None) is None


@pytest.mark.parametrize("text, truncated, ok", [
    ('{"answer": "4", "justification": "j"}', False, True),
    ('blah ```json\n{"answer": "4", "justification": "j"}\n``` blah', False, True),
    ('{"answer": "4", "justification": "cut', False, True),
    ('{"answer": "4", "justification": "cut', True, False),
    ('{"answer": "", "justification": "j"}', False, False),
    ("plain prose", False, False),
    ("", False, False),
])
def test_prediction_parsing_never_raises(text, truncated, ok):
    assert parse_prediction(text, truncated).ok is ok


def test_verdict_parsing():
    assert parse_verdict('{"is_answer_correct": "True", "is_justification_correct": false}').is_answer_correct is True
    assert not parse_verdict('{"is_answer_correct": true}').ok


def test_hints_in_order_and_prompts():
    riddle = make_riddles(1).iloc[0].to_dict()
    assert [n for n, _ in hints(riddle, 4)] == ["First hint", "Second hint", "Special hint"]  # third is null
    t = load_templates()
    assert "First hint" not in prediction_prompt(riddle, 0, t).text
    assert "Second hint: Carefully." in prediction_prompt(riddle, 2, t).text
    judge = judge_prompt(riddle, {"answer": "7", "justification": "guess"}, t).text
    assert "Participant's answer: 7" in judge and "Special hint: Trick!" in judge and "Correct answer: 0" in judge
    assert media_type(png_bytes()) == "image/png" and media_type(b"\xff\xd8\xff\xe0") == "image/jpeg"


def test_wire_formats_put_images_where_each_provider_wants_them():
    prompt = Prompt("hello", b"\x89PNG\r\n\x1a\nxx", "image/png")
    gen = Generation(100, 0.0, PREDICTION_SCHEMA)
    o = OpenAIChat(max_tokens_field="max_completion_tokens").body("m", prompt, gen)
    assert o["max_completion_tokens"] == 100 and o["response_format"]["json_schema"]["strict"] is True
    assert o["messages"][0]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    a = AnthropicMessages().body("m", prompt, gen)
    assert "system" not in a and a["messages"][0]["content"][0]["source"]["type"] == "base64"
    g = GeminiGenerate().body("m", prompt, gen)
    assert g["contents"][0]["parts"][1]["inline_data"]["mime_type"] == "image/png"
    assert "additionalProperties" not in g["generationConfig"]["responseSchema"]
    d = AnthropicMessages().decode({"content": [{"type": "text", "text": "hi"}], "stop_reason": "max_tokens",
                                    "usage": {"input_tokens": 3, "output_tokens": 4}})
    assert (d.text, d.input_tokens, d.output_tokens, d.truncated) == ("hi", 3, 4, True)
    assert OpenAIChat().decode({"oops": 1}).error.startswith("unexpected response shape")
    gd = GeminiGenerate().decode({"candidates": [{"content": {"parts": [{"text": "t", "thought": True}, {"text": "x"}]},
                                                  "finishReason": "STOP"}],
                                  "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 2,
                                                    "thoughtsTokenCount": 7}})
    assert (gd.text, gd.output_tokens) == ("x", 9)


def test_backoff_is_bounded_and_respects_retry_after():
    policy = RetryPolicy(max_attempts=5, backoff_s=1, max_backoff_s=8, max_retry_after_s=30)
    rng = random.Random(0)
    assert all(0 <= backoff_delay(a, policy, None, rng) <= min(8, 2 ** (a - 1)) for a in range(1, 10) for _ in range(50))
    assert backoff_delay(1, policy, 12.0, rng) >= 12.0
    assert backoff_delay(1, policy, 3600.0, rng) == 30
    assert parse_retry_after("2.5") == 2.5 and parse_retry_after("soon") is None
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=20), usegmt=True)
    assert 15 < parse_retry_after(later) <= 20


def test_cache_key_covers_every_part_and_records_are_atomic(tmp_path):
    parts = cache_mod.key_parts("p", "/chat/completions", "m", {"messages": [{"content": "a"}], "max_tokens": 5})
    key = cache_mod.request_key(parts)
    for changed in (cache_mod.key_parts("q", "/chat/completions", "m", parts["body"]),
                    cache_mod.key_parts("p", "/chat/completions", "m", {**parts["body"], "max_tokens": 6})):
        assert cache_mod.request_key(changed) != key
    assert cache_mod.request_key(dict(reversed(list(parts.items())))) == key  # canonical: order does not matter
    store = cache_mod.RequestCache(tmp_path)
    store.put(cache_mod.make_record(key, parts, "predict/m/r1", {"x": 1}, input_tokens=1, output_tokens=2,
                                    cost_usd=0.1, batch=False, created_at="t", elapsed_s=0.1, attempts=1))
    assert store.get(key)["response"] == {"x": 1}
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [f"{key}.json"]  # no temporary left behind
    store.path(key).write_text('{"key": "trunc')  # a torn record is a miss, not a crash
    assert store.get(key) is None


def test_explain_shows_image_digests_not_base64(tmp_path):
    store = cache_mod.RequestCache(tmp_path)
    blob = "data:image/png;base64," + "A" * 5000
    old = cache_mod.key_parts("p", "/e", "m", {"content": [{"url": blob}], "t": 1})
    store.put(cache_mod.make_record(cache_mod.request_key(old), old, "L", {}, input_tokens=None, output_tokens=None,
                                    cost_usd=None, batch=False, created_at="t", elapsed_s=0, attempts=1))
    new = cache_mod.key_parts("p", "/e", "m", {"content": [{"url": blob.replace("AAAA", "BBBB", 1)}], "t": 1})
    lines = cache_mod.explain(store, cache_mod.request_key(new), new, "L")
    assert "differs in 1 part" in lines[0] and "body.content[0].url" in lines[1] and "sha256:" in lines[1]
    assert "AAAAAAAA" not in "\n".join(lines)


@pytest.mark.parametrize("body", [
    {"messages": [{"role": "user", "content": "é ü \n \"quoted\" ☃"}], "max_tokens": 5},
    {"z": [1, 2.5, None, True, {"b": 1, "a": [2]}], "a": "x"},
    {},
])
def test_the_key_assembled_around_the_sent_payload_is_the_canonical_key(body):
    """payload_key must give exactly request_key: every cache written before it stays valid."""
    for provider, endpoint, model in (("p", "/chat/completions", "m"), ("ö", "/v1/x", 'gpt "5"')):
        payload = cache_mod.canonical_json(body)
        assert cache_mod.payload_key(provider, endpoint, model, payload) == cache_mod.request_key(
            cache_mod.key_parts(provider, endpoint, model, body))


def test_lazy_calls_build_each_call_once_when_first_read():
    from sideways.llm.riddle_requests import LazyCalls
    from sideways.llm.runner import Call

    built: list[int] = []

    def build(i: int) -> Call:
        built.append(i)
        return Call(f"r{i}", f"predict/m/r{i}", "p", "m", "/chat/completions", {"i": i})

    calls = LazyCalls(5, build)
    assert len(calls) == 5 and built == []
    assert calls[3].item == "r3" and calls[-1].item == "r4" and built == [3, 4]
    assert [c.item for c in calls] == ["r0", "r1", "r2", "r3", "r4"] and sorted(built) == [0, 1, 2, 3, 4]
    assert [c.item for c in calls[1:3]] == ["r1", "r2"] and calls[2] is calls[2] and len(built) == 5
    with pytest.raises(IndexError):
        calls[5]
