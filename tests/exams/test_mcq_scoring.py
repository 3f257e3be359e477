"""Multiple choice with "I don't know": presentation, extraction, the four metrics, and the seed's
GPQA-Diamond row reproduced digit for digit through the real extraction and scoring."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from helpers.exams import items, mcq
from sideways.artifacts.schema import EXAM_PREDICTIONS
from sideways.exams.mcq.letters import extract_letters
from sideways.exams.mcq.prompt import prompt
from sideways.exams.mcq.score import mean_se, outcome, summarize, table_cell
from sideways.exams.results import detail_table, model_metrics

GPQA_N, GPQA_RIGHT, GPQA_WRONG_LETTER, GPQA_NO_LETTER = 198, 166, 28, 4


def gpqa_replies(table: pd.DataFrame) -> list[str]:
    """166 right letters, 28 wrong letters, 4 replies without a letter, in reply formats that vary."""
    formats = ["Answer: {x}", "Final answer: {x}", "\\boxed{{{x}}}", "Reasoning first.\n\n**Answer:** ({x})"]
    replies = []
    for i, gold in enumerate(table["gold"]):
        wrong = "ABCD"[("ABCD".index(gold) + 1) % 4]
        letter = gold if i < GPQA_RIGHT else wrong
        reply = formats[i % len(formats)].format(x=letter)
        replies.append(reply if i < GPQA_RIGHT + GPQA_WRONG_LETTER else "Too close to call between two of them.")
    return replies


def test_gpqa_diamond_gemini_row_digit_for_digit():
    table = items([mcq(f"g{i:03d}", f"Question {i}?", answer="ABCD"[i % 4]) for i in range(GPQA_N)])
    replies = gpqa_replies(table)
    predictions = pd.DataFrame([{"item_id": r["item_id"], "model": "gemini-2-5-pro", "provider": "gemini",
                                 "model_name": "gemini-2.5-pro", "kind": "mcq", "text": text, "status": "ok",
                                 "error": None, "latency_s": None, "request_hash": None, "input_tokens": None,
                                 "output_tokens": None, "cost_usd": None}
                                for r, text in zip(table.to_dict("records"), replies, strict=True)],
                               columns=EXAM_PREDICTIONS.names)
    detail = detail_table(table, predictions, pd.DataFrame(columns=["model", "item_id", "status", "earned"]))
    assert (detail["trad"].sum(), (detail["idk"] == -1).sum(), detail["extract_fail"].sum()) == (166, 32, 4)
    m = model_metrics(detail)["gemini-2-5-pro"]
    cells = [f"{m[k]:.2f} ± {m[k + '_se']:.2f}" for k in ("trad_score", "idk_score", "idk_freq", "extract_fail")]
    assert cells == ["83.84 ± 2.62", "67.68 ± 5.25", "0.00 ± 0.00", "2.02 ± 1.00"]
    # and the same through the scoring module's own table cell
    outs = [outcome(extract_letters(t, "ABCDE"), g) for t, g in zip(replies, table["gold"], strict=True)]
    assert [table_cell(v) for v in summarize(outs).values()] == cells


def test_standard_error_is_the_sample_std_over_sqrt_n():
    values = [1.0, -1.0, 0.0, 1.0, 1.0, -1.0, 1.0]
    got = mean_se(values)
    assert got.mean == pytest.approx(np.mean(values))
    assert got.se == pytest.approx(np.std(values, ddof=1) / np.sqrt(len(values)))
    assert mean_se([1.0]).se == 0.0


@pytest.mark.parametrize(("letters", "gold", "expected"), [
    (["B"], "B", (1, 1, 0, 0)),
    (["C"], "B", (0, -1, 0, 0)),
    (["E"], "B", (0, 0, 1, 0)),
    ([], "B", (0, -1, 0, 1)),  # an extraction failure counts as wrong
    (["C", "B"], "B", (1, 1, 0, 0)),  # several letters: each metric's best outcome
    (["C", "E"], "B", (0, 0, 0, 0)),  # E counts as chosen only when it is all the reply chose
])
def test_each_metric_takes_its_best_outcome(letters, gold, expected):
    o = outcome(letters, gold)
    assert (o.trad, o.idk, o.idk_freq, o.extract_fail) == expected


@pytest.mark.parametrize(("reply", "letters"), [
    ("Answer: C", ["C"]),
    ("answer: c", ["C"]),
    ("Final answer: D", ["D"]),
    ("The final answer is $\\boxed{B}$.", ["B"]),
    ("\\boxed{\\text{a}}", ["A"]),
    ("I pick option D.", ["D"]),
    ("b)", ["B"]),
    ("Long reasoning here.\nC", ["C"]),
    ("I don't know.", ["E"]),
    ("Honestly, I do not know the answer.", ["E"]),
    ("I am unsure between the last two.", []),  # unsure is not "I don't know"
    ("Answer: B. On reflection, Answer: D", ["B", "D"]),
    ("The answer is a tricky one and I will not say.", []),
    ("Answer: F", []),  # not offered
    ("", []),
])
def test_extraction(reply, letters):
    assert extract_letters(reply, "ABCDE") == letters


def test_no_idk_letter_without_idk():
    assert extract_letters("I don't know.", "ABCD") == []


def test_choices_are_shuffled_per_question_with_e_last_and_the_gold_letter_tracked():
    questions = [mcq(f"q{i}", f"Q{i}?", answer="B") for i in range(12)]
    table = items(questions, seed=3)
    assert table.equals(items(questions, seed=3))  # same seed, same presentation
    for row in table.to_dict("records"):
        shown = json.loads(row["choices"])
        assert list(shown) == ["A", "B", "C", "D", "E"] and shown["E"] == "I don't know"
        assert shown[row["gold"]] == f"{row['item_id']} second"  # the original B, wherever it went
    assert len(set(table["gold"])) > 1  # the right answer is no longer always B: shuffled per question
    assert not items(questions, seed=4).equals(table)
    assert "E" not in json.loads(items(questions, idk=False)["choices"][0])


def test_the_prompt_states_the_payoffs_only_with_idk():
    with_idk = prompt(items([mcq("q1", "Which?")]).to_dict("records")[0]).text
    without = prompt(items([mcq("q1", "Which?")], idk=False).to_dict("records")[0]).text
    assert "-1 point" in with_idk and "E) I don't know" in with_idk and "0 points" in with_idk
    assert "-1" not in without and "E)" not in without
