"""The replay backend: our layout, layton-eval's raw layout, and clear errors for missing riddles."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from helpers.request_layer import context, make_riddles
from sideways.artifacts.schema import JUDGMENTS, PREDICTIONS, conform
from sideways.backends.replay import ReplayJudge, ReplayPredictor
from sideways.config.options import ReplayOptions
from sideways.config.params import JudgeSpec, ModelSpec
from sideways.core.errors import ReplayError


def spec(path, **o) -> ModelSpec:
    return ModelSpec("mine", "replay", "acme", "acme-1", 0, ReplayOptions(path=str(path), **o))


def test_our_layout_from_parquet_and_jsonl(tmp_path):
    riddles = make_riddles(3)
    table = pd.DataFrame({"riddle_id": ["R002", "R000", "R001", "X9"], "answer": ["2", "0", "1", "9"],
                          "justification": ["b", "z", "a", "n"]})
    table.to_parquet(tmp_path / "p.parquet")
    table.to_json(tmp_path / "p.jsonl", orient="records", lines=True)
    for name in ("p.parquet", "p.jsonl"):
        df = conform(ReplayPredictor().predict(riddles, spec(tmp_path / name), context(tmp_path)), PREDICTIONS, "t")
        assert df["riddle_id"].tolist() == ["R000", "R001", "R002"]
        assert df["answer"].tolist() == ["0", "1", "2"] and (df["status"] == "ok").all()
        assert df["cost_usd"].isna().all()


def test_layton_eval_raw_layout_with_a_broken_answer(tmp_path):
    riddles = make_riddles(2)
    lines = [{"custom_id": "R000", "answer": json.dumps({"answer": "0", "justification": "zero"}), "model": "acme-1"},
             {"custom_id": "R001", "answer": "not json at all", "model": "acme-1"},
             {"custom_id": "R001", "answer": json.dumps({"answer": "7", "justification": "x"}), "model": "other"}]
    (tmp_path / "raw.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    df = ReplayPredictor().predict(riddles, spec(tmp_path / "raw.jsonl"), context(tmp_path))
    assert df["status"].tolist() == ["ok", "parse_error"]
    assert df.loc[1, "raw"] == "not json at all"


def test_missing_riddles_are_named(tmp_path):
    pd.DataFrame({"riddle_id": ["R000"], "answer": ["0"], "justification": ["z"]}).to_parquet(tmp_path / "p.parquet")
    with pytest.raises(ReplayError, match=r"2 riddle\(s\).*R001, R002"):
        ReplayPredictor().predict(make_riddles(3), spec(tmp_path / "p.parquet"), context(tmp_path))
    with pytest.raises(ReplayError, match="not found"):
        ReplayPredictor().predict(make_riddles(1), spec(tmp_path / "nope.jsonl"), context(tmp_path))


def test_replayed_verdicts_in_both_layouts(tmp_path):
    riddles = make_riddles(2)
    preds = pd.DataFrame({"riddle_id": ["R000", "R001"], "model": ["m1", "m1"], "status": ["ok", "ok"]})
    lines = [{"custom_id": "R000", "model": "m1", "answer": '{"is_answer_correct": true, "is_justification_correct": false}'},
             {"custom_id": "R001", "model": "m1", "answer": '{"is_answer_correct": true, "is_justification_correct": true}'}]
    (tmp_path / "v.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    judge = JudgeSpec("j1", "replay", "other", "judge-1", ReplayOptions(path=str(tmp_path / "v.jsonl")))
    df = conform(ReplayJudge().judge(riddles, preds, judge, context(tmp_path)), JUDGMENTS, "t")
    assert df["both_correct"].tolist() == [False, True] and (df["status"] == "ok").all()
    pd.DataFrame({"riddle_id": ["R000"], "model": ["m1"], "is_answer_correct": [True],
                  "is_justification_correct": [True]}).to_parquet(tmp_path / "v.parquet")
    judge = JudgeSpec("j1", "replay", "other", "judge-1", ReplayOptions(path=str(tmp_path / "v.parquet")))
    with pytest.raises(ReplayError, match="R001"):
        ReplayJudge().judge(riddles, preds, judge, context(tmp_path))


def test_one_rule_for_replayed_answers_and_verdicts(tmp_path):
    """Replayed values are read as the fields of a live reply: an answer that is not text (an object,
    true) was stored as its Python repr; verdicts 0 and 1 as JSON numbers were parse errors while
    "0", "1" and "no" were accepted."""
    riddles = make_riddles(6)
    answers = [{"nested": [1, 2]}, True, 42, "  seven ", None, [1]]
    rows = [{"riddle_id": f"R00{i}", "answer": a, "justification": {"why": i}} for i, a in enumerate(answers)]
    (tmp_path / "p.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    df = ReplayPredictor().predict(riddles, spec(tmp_path / "p.jsonl"), context(tmp_path))
    assert df["status"].tolist() == ["parse_error", "parse_error", "ok", "ok", "parse_error", "parse_error"]
    assert df["answer"].tolist()[2:4] == ["42", "seven"] and df["answer"].isna().tolist() == [True, True, False,
                                                                                            False, True, True]
    assert df.loc[2, "justification"] == '{"why": 2}'
    assert df.loc[0, "error"] == "replayed answer is not text or a number (a JSON object)"
    assert df.loc[1, "error"] == "replayed answer is not text or a number (a JSON boolean)"
    assert df.loc[4, "error"] == "replayed row has no answer"
    assert "{'nested'" not in " ".join(df["raw"])  # JSON text, never a Python repr

    preds = pd.DataFrame({"riddle_id": [f"R00{i}" for i in range(6)], "model": ["m1"] * 6, "status": ["ok"] * 6})
    values = [(1, 0), ("1", "0"), (True, "no"), (0.0, 1.0), (2, 1), ("maybe", True)]
    lines = [{"riddle_id": f"R00{i}", "model": "m1", "is_answer_correct": a, "is_justification_correct": j}
             for i, (a, j) in enumerate(values)]
    (tmp_path / "v.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    judge = JudgeSpec("j1", "replay", "other", "judge-1", ReplayOptions(path=str(tmp_path / "v.jsonl")))
    out = ReplayJudge().judge(riddles, preds, judge, context(tmp_path))
    assert out["status"].tolist() == ["ok"] * 4 + ["parse_error"] * 2
    assert out["is_answer_correct"].tolist()[:4] == [True, True, True, False]
    assert out["is_justification_correct"].tolist()[:4] == [False, False, False, True]


def test_a_json_file_of_rows_or_of_columns_reads_and_any_other_shape_is_named(tmp_path):
    """A .json replay file is a list of row objects or an object of equal-length columns; a row that is not an
    object, columns of different lengths, or a bare value get an error naming the file (pandas would pad them with
    NaN, and refuse them in a later version)."""
    riddles = make_riddles(2)
    rows = [{"riddle_id": "R000", "answer": "0", "justification": "z"},
            {"riddle_id": "R001", "answer": "1", "justification": "a"}]
    columns = {"riddle_id": ["R000", "R001"], "answer": ["0", "1"], "justification": ["z", "a"]}
    for name, data in (("rows.json", rows), ("columns.json", columns)):
        (tmp_path / name).write_text(json.dumps(data))
        df = ReplayPredictor().predict(riddles, spec(tmp_path / name), context(tmp_path))
        assert df["answer"].tolist() == ["0", "1"], name
    for data, why in (([rows[0], ["R001", "1"]], r"bad\.json: row 1 is a JSON list, not an object"),
                      ({"riddle_id": ["R000", "R001"], "answer": ["0"]}, r"bad\.json: an object of columns needs"),
                      ({"riddle_id": "R000"}, r"bad\.json: an object of columns needs"),
                      ("R000", r"bad\.json: a JSON str, not a list of rows")):
        (tmp_path / "bad.json").write_text(json.dumps(data))
        with pytest.raises(ReplayError, match=why):
            ReplayPredictor().predict(riddles, spec(tmp_path / "bad.json"), context(tmp_path))
