"""The shortcuts exam_score takes on every reply of a new model change nothing: the letter
extraction's prefilters against its patterns run on every tier, the column-built detail against
one built row by row, on fuzzed replies (any Unicode, the case-folding letters IGNORECASE equates)."""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.exams import items, mcq
from sideways.artifacts.schema import EXAM_DETAIL, conform
from sideways.exams.mcq import letters
from sideways.exams.mcq.present import choices_of, offered_letters
from sideways.exams.mcq.score import outcome
from sideways.exams.results import detail_table

#: Pieces the patterns look for, and letters IGNORECASE equates with ASCII ones (ſ ~ s, ı ~ i, K ~ k).
PIECES = ["\\boxed{", "\\text{", "}", "[", "]", "(", ")", "answer", "ANSWER", "anſwer", "optıon", "chOice",
          "final ", "is ", ": ", "**", "\n", " ", "A", "b", "C", "d", "E", "I don't know", "ſ", "ı", "K", "é"]
NOISE = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=6).map("".join)
#: A cue each tier looks for (in any case, or through a letter IGNORECASE equates), then a letter.
CUES = ["\\boxed{", "\\boxed{\\text{", "[", "\n[", "Answer: ", "ANSWER: ", "anſwer : ", "Final answer: **",
        "the answer is ", "ANSWER IS ", "option ", "OPTION (", "optıon ", "chOice ", "(", ""]
CUED = st.builds(lambda a, cue, letter, end, b: a + cue + letter + end + b, NOISE, st.sampled_from(CUES),
                 st.sampled_from(["A", "b", "C", "d", "E", "Z", "é"]), st.sampled_from(["", "}", "]", ")", ".", "}}"]),
                 NOISE)
REPLIES = st.one_of(NOISE, CUED)


def every_tier(text: str | None, offered: str) -> list[str]:
    """extract_letters without its prefilters: every tier's patterns run."""
    if not text:
        return []
    for tier in letters._TIERS:
        found = letters._in_order(tier, text, offered)
        if found:
            return found
    if letters.IDK_LETTER in offered and letters._IDK.search(text):
        return [letters.IDK_LETTER]
    lines = [line for line in text.strip().splitlines() if line.strip()]
    for candidate in (text, lines[-1] if lines else ""):
        m = letters._BARE.match(candidate)
        if m and m.group(1).upper() in offered:
            return [m.group(1).upper()]
    return []


@settings(max_examples=600, deadline=None)
@given(REPLIES, st.sampled_from(["ABCDE", "ABCD", "AB"]))
def test_prefilters_change_no_letter(text: str, offered: str) -> None:
    assert letters.extract_letters(text, offered) == every_tier(text, offered)


def test_a_prefilter_keeps_a_tier_ignorecase_matches_through_a_long_s() -> None:
    # "anſwer" is "answer" under IGNORECASE: a prefilter on str.lower() would have skipped the tier
    assert letters.extract_letters("Anſwer: B", "ABCD") == ["B"]
    assert letters.extract_letters("I pick optıon C", "ABCD") == ["C"]


def row_by_row(table: pd.DataFrame, predictions: pd.DataFrame, grades: pd.DataFrame) -> pd.DataFrame:
    """The detail as it was built before: one dict per row."""
    by_id = {str(r["item_id"]): r for r in table.to_dict("records")}
    rows = []
    for p in predictions.to_dict("records"):
        item = by_id[str(p["item_id"])]
        graded = [g for g in grades.to_dict("records") if (g["model"], g["item_id"]) == (p["model"], p["item_id"])]
        costs = [float(r["cost_usd"]) for r in [p, *graded] if r.get("cost_usd") is not None and not pd.isna(r["cost_usd"])]
        row: dict[str, Any] = {"model": p["model"], "item_id": p["item_id"], "kind": item["kind"], "topic": item["topic"],
                               "points": item["points"], "gold": item["gold"], "status": p["status"],
                               "latency_s": p["latency_s"], "cost_usd": round(math.fsum(costs), 8) if costs else None}
        if item["kind"] == "mcq":
            found = every_tier(p["text"], "".join(choices_of(item))) if p["status"] == "ok" else []
            o = outcome(found, str(item["gold"]))
            row |= {"letters": ",".join(found) or None, "trad": float(o.trad), "idk": float(o.idk),
                    "idk_freq": float(o.idk_freq), "extract_fail": float(o.extract_fail),
                    "earned": float(item["points"]) * o.trad, "judges": 0}
        else:
            ok = [float(g["earned"]) for g in graded if g["status"] == "ok" and g["earned"] is not None]
            row |= {"letters": None, "trad": None, "idk": None, "idk_freq": None, "extract_fail": None,
                    "earned": math.fsum(ok) / len(ok) if ok else 0.0, "judges": len(ok)}
        rows.append(row)
    return pd.DataFrame(rows, columns=EXAM_DETAIL.names).sort_values(["model", "item_id"]).reset_index(drop=True)


def prediction(item_id: str, model: str, text: str, status: str, cost: float | None) -> dict[str, Any]:
    return {"item_id": item_id, "model": model, "provider": "sim", "model_name": model, "kind": "mcq",
            "text": text, "status": status, "error": None, "latency_s": 0.5, "request_hash": None,
            "input_tokens": None, "output_tokens": None, "cost_usd": cost}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(REPLIES, st.sampled_from(["ok", "api_error"]),
                          st.one_of(st.none(), st.floats(0, 1, allow_nan=False))), min_size=1, max_size=8),
       st.sampled_from(["m1", "m2"]))
def test_the_column_built_detail_is_the_row_built_one(replies: list[tuple[str, str, float | None]], model: str) -> None:
    table = items([mcq(f"q{i}", f"Q{i}?", answer="ABCD"[i % 4], topic=f"t{i % 2}") for i in range(len(replies))])
    predictions = pd.DataFrame([prediction(f"q{i}", m, text, status, cost) for i, (text, status, cost)
                                in enumerate(replies) for m in (model, "m0")])
    grades = pd.DataFrame(columns=["model", "item_id", "status", "earned", "cost_usd"])
    got = conform(detail_table(table, predictions, grades), EXAM_DETAIL, "new")
    want = conform(row_by_row(table, predictions, grades), EXAM_DETAIL, "old")
    pd.testing.assert_frame_equal(got, want)


def test_offered_letters_are_the_choices_keys_in_order() -> None:
    item = {"choices": json.dumps({"A": "x", "B": "y", "C": "z", "E": "I don't know"})}
    assert offered_letters(item) == "".join(choices_of(item)) == "ABCE"
