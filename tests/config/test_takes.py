"""``takes:`` and ``exams:`` in params.yaml: which model takes which benchmark (issue 28)."""

from __future__ import annotations

import pytest

from sideways.config.params import parse_params
from sideways.core.errors import ParamsError
from sideways.jobs.names import as_fingerprinted


def replay(**options) -> dict:
    return {"backend": "replay", "provider": "byo", "path": "preds.jsonl", **options}


def test_absent_takes_every_benchmark_and_takes_limits_it(default_params):
    default_params["models"]["atlas-mini"]["takes"] = ["llm"]
    p = parse_params(default_params)
    assert p.benchmarks == ("llm", "vlm", "demo")
    assert [m.key for m in p.models_taking("vlm")] == [m.key for m in p.models if m.key != "atlas-mini"]
    assert "atlas-mini" in [m.key for m in p.models_taking("llm")]
    assert not p.takes(p.model("atlas-mini"), "demo") and p.takes(p.model("atlas-large"), "demo")


@pytest.mark.parametrize(("takes", "message"), [
    (["llms"], r"models\.atlas-mini\.takes: 'llms' is not a benchmark \(did you mean 'llm'\?\)"),
    (["llm", "dmeo"], r"models\.atlas-mini\.takes: 'dmeo' is not a benchmark \(did you mean 'demo'\?\)"),
    (["lm"], r"models\.atlas-mini\.takes: 'lm' is not a benchmark \(did you mean 'llm' or 'vlm'\?\)"),
    ([], r"models\.atlas-mini\.takes: expected a non-empty list of benchmarks"),
    ("llm", r"models\.atlas-mini\.takes: expected a non-empty list of benchmarks"),
])
def test_a_takes_typo_is_one_line_with_a_did_you_mean(default_params, takes, message):
    default_params["models"]["atlas-mini"]["takes"] = takes
    with pytest.raises(ParamsError, match=message):
        parse_params(default_params)


def test_an_exams_typo_is_one_line_with_a_did_you_mean(default_params):
    default_params["exams"]["demo"]["stratgy"] = "baseline"
    with pytest.raises(ParamsError, match=r"exams\.demo\.stratgy: unknown key \(did you mean 'strategy'\?\)"):
        parse_params(default_params)


def test_the_old_exam_key_says_what_to_write_instead(default_params):
    default_params["exam"] = default_params.pop("exams")["demo"]
    with pytest.raises(ParamsError, match=r"exam: replaced by exams:.*exams: \{demo: \{path: data/exams/demo\.json"):
        parse_params(default_params)


def test_a_replay_model_without_exam_replies_takes_the_riddles_only(default_params):
    default_params["models"]["byo"] = replay()
    p = parse_params(default_params)
    assert [b for b in p.benchmarks if p.takes(p.model("byo"), b)] == ["llm", "vlm"]
    default_params["models"]["byo"] = replay(exam_path="demo_replies.jsonl")
    assert parse_params(default_params).takes(parse_params(default_params).model("byo"), "demo")


def test_a_replay_model_that_takes_an_exam_needs_its_replies(default_params):
    default_params["models"]["byo"] = replay(takes=["llm", "demo"])
    with pytest.raises(ParamsError, match=r"models\.byo\.takes: 'demo', but the model has no replies to it"):
        parse_params(default_params)


def test_one_replies_file_for_two_exams_must_be_mapped(default_params):
    default_params["exams"]["second"] = dict(default_params["exams"]["demo"])
    default_params["models"]["byo"] = replay(exam_path="replies.jsonl")
    with pytest.raises(ParamsError, match=r"models\.byo\.exam_path: one file of replies for several exams"):
        parse_params(default_params)
    default_params["models"]["byo"] = replay(exam_path={"second": "second.jsonl"})
    p = parse_params(default_params)
    assert [b for b in p.benchmarks if p.takes(p.model("byo"), b)] == ["llm", "vlm", "second"]
    assert p.model("byo").options.exam_replies("second") == "second.jsonl"


def test_no_exam_and_splits_that_are_not_a_list(default_params):
    default_params["exams"] = {}
    assert parse_params(default_params).benchmarks == ("llm", "vlm")
    default_params["splits"] = 5
    with pytest.raises(ParamsError, match=r"splits: expected a list of split names"):
        parse_params(default_params)


def test_takes_is_not_in_a_jobs_fingerprint(default_params):
    p = parse_params(default_params)
    default_params["models"]["atlas-mini"]["takes"] = ["llm"]
    q = parse_params(default_params)
    assert q.model("atlas-mini") != p.model("atlas-mini")
    assert as_fingerprinted(q.model("atlas-mini")) == as_fingerprinted(p.model("atlas-mini"))
