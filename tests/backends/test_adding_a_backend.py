"""A new backend is one table entry and its module (docs/real-models.md, "Adding a backend").

The toy backend (tests/helpers/toy_backend.py) is registered with one entry of
``sideways.config.backends.BACKENDS`` and nothing else; then params.yaml accepts it (its options
validated from their one declaration), and it answers riddles, judges them, answers an exam and
grades it, and the dry run plans its requests, against the fake server on 127.0.0.1.
"""

from __future__ import annotations

import pytest

from helpers.exams import items, mcq, short
from helpers.request_layer import context, make_riddles
from helpers.toy_backend import ENTRY
from sideways.backends import judge_for, predictor_for
from sideways.config.backends import BACKENDS
from sideways.config.params import parse_params
from sideways.core.errors import ParamsError
from sideways.exams.answer import exam_predictions
from sideways.exams.grade import exam_grades
from sideways.planning.plan import plan_model
from sideways.testing.openai_server import FakeServer


def toy_params(endpoint: str) -> dict:
    toy = {"backend": "toy", "endpoint": endpoint}
    return {
        "seed": 0, "splits": ["llm"],
        "models": {"toy-m": {**toy, "provider": "toyco", "name": "toy-model"}},
        "jury": {"judges": 1, "pool": {"toy-j": {**toy, "provider": "judgeco", "name": "toy-judge"}}},
    }


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(BACKENDS, "toy", ENTRY)


def test_without_its_entry_the_toy_backend_is_unknown():
    with pytest.raises(ParamsError, match=r"models\.toy-m\.backend: .*'toy'"):
        parse_params(toy_params("http://127.0.0.1:9/v1"))


def test_its_options_are_validated_from_their_declaration(toy):
    data = toy_params("http://127.0.0.1:9/v1")
    data["models"]["toy-m"]["endpont"] = "x"
    with pytest.raises(ParamsError, match=r"models\.toy-m\.endpont: unknown key \(did you mean 'endpoint'\?\)"):
        parse_params(data)


def test_a_toy_backend_registered_once_predicts_judges_and_takes_the_exam(toy, tmp_path):
    with FakeServer() as server:
        params = parse_params(toy_params(server.base_url))
        model, judge = params.models[0], params.jury.pool[0]
        ctx = context(tmp_path)
        riddles = make_riddles(3)
        predictions = predictor_for(model).predict(riddles, model, ctx)
        assert list(predictions["status"]) == ["ok"] * 3
        verdicts = judge_for(judge).judge(riddles, predictions, judge, ctx)
        assert list(verdicts["status"]) == ["ok"] * 3

        exam = items([mcq("q1", "Which one?"), short("q2", "Why?", rubric=["a reason"])])
        replies = exam_predictions(exam, model, ctx)
        assert list(replies["status"]) == ["ok", "ok"] and replies["text"].str.len().min() > 0
        grades = exam_grades(exam, replies, model, judge, "rubric_anchored", ctx)
        assert list(grades["status"]) == ["ok"] and grades["request_hash"].notna().all()

        sent = server.fake.snapshot()["requests"]
        assert sent == 3 + 3 + 2 + 1
        # the dry run plans the toy's requests (the table says it sends requests), all cached now
        planned = plan_model(params, model, "llm", ctx, root=_with_split(tmp_path, riddles))
        assert [len(p.calls) for p in planned] == [3, 3]
    assert server.fake.snapshot()["requests"] == sent  # planning sent nothing


def _with_split(root, riddles):
    from sideways.artifacts import paths
    from sideways.artifacts.io import write_table
    from sideways.artifacts.schema import RIDDLES

    (root / paths.split_table("llm")).parent.mkdir(parents=True, exist_ok=True)
    write_table(riddles, RIDDLES, root / paths.split_table("llm"))
    return root
