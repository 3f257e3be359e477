"""The l3score judge against the real local OpenAI-compatible server, with crafted top_logprobs.

Every branch of the rule (docs/method.md §7) is asked through HTTP, the request cache and the
backend, and each score is compared with a value computed by hand from the crafted numbers.
"""

from __future__ import annotations

import math

import pytest

from helpers.request_layer import context, make_riddles
from sideways.artifacts.schema import JUDGMENTS, conform
from sideways.backends import judge_for
from sideways.backends.openai_compatible import OpenAICompatibleBackend
from sideways.config.options import OpenAICompatibleOptions
from sideways.config.params import JudgeSpec
from sideways.core.errors import ParamsError
from sideways.llm.l3score_requests import L3Item
from sideways.testing.openai_server import Behaviour, FakeServer

e = math.exp
LOW_SUM = e(-0.13) + e(-3.0) + e(-3.5) + e(-4.0) + e(-4.2)  # 0.9914: outside mass 0.0086 < e(-4.2)

# marker -> (crafted top-5, most likely first, and the score worked out by hand)
CASES: dict[str, tuple[list[tuple[str, float]], float]] = {
    "both-present": ([("Yes", -0.3), ("No", -1.5), ("Maybe", -3.0), ("I", -4.0), ("The", -5.0)],
                     e(-0.3) / (e(-0.3) + e(-1.5))),
    "only-yes-lowest-token": ([("Yes", -0.5), ("Sure", -2.5), ("Indeed", -3.0), ("Correct", -3.5), ("True", -4.0)],
                              e(-0.5) / (e(-0.5) + e(-4.0))),  # outside 1 - 0.787 = 0.213 > e(-4) = 0.018
    "only-no-outside-mass": ([("No", -0.13), ("Nope", -3.0), ("Never", -3.5), ("Not", -4.0), ("False", -4.2)],
                             (1 - LOW_SUM) / ((1 - LOW_SUM) + e(-0.13))),
    "only-yes-floor": ([("Yes", -0.01), ("Sure", -3.0), ("OK", -4.0), ("Right", -5.0), ("True", -6.0)],
                       e(-0.01) / (e(-0.01) + 1e-8)),  # rounded logprobs sum above 1: the 1e-8 floor
    "neither": ([("Maybe", -0.5), ("I", -1.5), ("Perhaps", -2.0), ("The", -3.0), ("It", -4.0)], 0.0),
    "case-and-space": ([(" yes", -0.4), ("YES", -1.2), ("\nNo ", -1.6), ("no", -2.0), ("Nope", -2.5)],
                       e(-0.4) / (e(-0.4) + e(-1.6))),  # first variant of each wins, none is added
    "yeah-is-yes": ([(" Yeah", -0.7), (" NO", -0.9), ("Hmm", -3.0), ("Well", -3.3), ("So", -3.6)],
                    e(-0.7) / (e(-0.7) + e(-0.9))),
    "unsorted": ([("Maybe", -3.0), ("No", -1.5), ("The", -5.0), ("Yes", -0.3), ("I", -4.0)],
                 e(-0.3) / (e(-0.3) + e(-1.5))),
    "empty-top": ([], 0.0),
}


def l3_judge(base_url: str, key: str = "l3-j", threshold: float = 0.5) -> JudgeSpec:
    options = OpenAICompatibleOptions(base_url=base_url, concurrency=4, max_tokens=1, temperature=0.0)
    return JudgeSpec(key, "openai-compatible", "judgeco", "judge-model-1", options, "l3score", threshold)


@pytest.fixture
def crafted():
    with FakeServer(Behaviour(top_logprobs={k: v[0] for k, v in CASES.items()})) as s:
        yield s


def test_every_branch_equals_its_hand_computed_score(crafted, tmp_path):
    items = [L3Item(k, f"Question [{k}]?", "candidate", "reference") for k in CASES]
    out = OpenAICompatibleBackend().l3score(items, l3_judge(crafted.base_url), context(tmp_path))
    for item, outcome in zip(items, out, strict=True):
        assert outcome.status == "ok", (item.item, outcome.error)
        assert outcome.score == pytest.approx(CASES[item.item][1], abs=1e-12), item.item
    assert out[0].score != pytest.approx(0.5, abs=0.01)  # the crafted numbers matter
    sent = crafted.fake.bodies[0]
    assert (sent["logprobs"], sent["top_logprobs"], sent["max_tokens"], sent["temperature"]) == (True, 5, 1, 0.0)
    assert "response_format" not in sent
    assert sent["messages"][0]["content"].endswith("Answer in one word - Yes or No.")


def test_a_rerun_sends_nothing_and_costs_nothing_new(crafted, tmp_path):
    items = [L3Item(k, f"Question [{k}]?", "c", "r") for k in ("both-present", "neither")]
    backend, judge, ctx = OpenAICompatibleBackend(), l3_judge(crafted.base_url), context(tmp_path)
    first = backend.l3score(items, judge, ctx)
    sent = crafted.fake.requests
    again = backend.l3score(items, judge, ctx)
    assert crafted.fake.requests == sent == 2
    assert [o.score for o in again] == [o.score for o in first] and all(o.cached for o in again)
    # priced from the usage: judge-model-1 costs 0.5 USD in and 1.0 out per million tokens
    used = first[0].usage
    assert used["output_tokens"] == 1
    assert used["cost_usd"] == pytest.approx((used["input_tokens"] * 0.5 + 1 * 1.0) / 1e6, abs=1e-15)


def test_in_the_jury_the_score_is_kept_and_thresholded_on_the_answer_only(server, tmp_path):
    riddles = make_riddles(4)
    preds = riddles[["riddle_id"]].assign(model="m", provider="p", status="ok", justification="because",
                                          answer=["0", "wrong", "2", "nope"])
    table = conform(OpenAICompatibleBackend().judge(riddles, preds, l3_judge(server.base_url), context(tmp_path)),
                    JUDGMENTS, "test").set_index("riddle_id")
    yes = e(-0.0001) / (e(-0.0001) + e(-9.5))
    no = e(-9.0) / (e(-9.0) + e(-0.0002))
    assert list(table["score"]) == pytest.approx([yes, no, yes, no], abs=1e-12)
    assert list(table["is_answer_correct"]) == [True, False, True, False]
    assert table["is_justification_correct"].isna().all() and table["both_correct"].isna().all()
    assert (table["status"] == "ok").all() and table["cost_usd"].notna().all()


def test_the_threshold_decides_the_verdict(crafted, tmp_path):
    riddles = make_riddles(1)
    riddles.loc[0, "description"] = "[both-present] riddle"
    preds = riddles[["riddle_id"]].assign(model="m", provider="p", status="ok", answer="x", justification="y")
    score = e(-0.3) / (e(-0.3) + e(-1.5))  # 0.7685
    for threshold, verdict in ((0.5, True), (score + 1e-9, False), (score - 1e-9, True)):
        table = OpenAICompatibleBackend().judge(riddles, preds, l3_judge(crafted.base_url, threshold=threshold),
                                                context(tmp_path))
        assert bool(table.loc[0, "is_answer_correct"]) is verdict, threshold


def test_a_server_without_logprobs_gives_a_parse_error_naming_the_judge(tmp_path):
    with FakeServer(Behaviour(plan={"Question": ["no_logprobs"]})) as s:
        (out,) = OpenAICompatibleBackend().l3score([L3Item("1", "Question?", "a", "b")], l3_judge(s.base_url),
                                                   context(tmp_path))
    assert out.status == "parse_error" and out.score is None
    assert "judge l3-j" in str(out.error) and "no logprobs" in str(out.error)


def test_a_backend_without_logprobs_is_refused_naming_the_judge():
    from sideways.config.options import BatchOptions

    judge = JudgeSpec("claude-l3", "batch", "anthropic", "claude-haiku-4-5", BatchOptions(), "l3score")
    with pytest.raises(ParamsError, match="judge 'claude-l3' is of kind l3score.*backend 'batch' cannot"):
        judge_for(judge)
