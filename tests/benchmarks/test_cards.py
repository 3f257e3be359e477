"""Judge cards (lab.cards): rates measured on labelled rows, carried to other rows."""

from __future__ import annotations

import json
from pathlib import Path

import card_coverage
import numpy as np
import pandas as pd
import pytest

from helpers import PPI_LLM_FILE, ROOT, project_params
from lab.cards import card_predictions, estimate_card, previous_round_card, rates
from lab.coverage import Setting, setting_params, simulate_run, split_riddles
from sideways.artifacts.schema import records_by
from sideways.simulation.truth import truth
from sideways.sources.demo import load_demo


def _verdict(riddle, model, judge, provider, answer, justification, status="ok"):
    return {"riddle_id": riddle, "model": model, "judge": judge, "judge_provider": provider, "status": status,
            "is_answer_correct": answer, "is_justification_correct": justification}


def test_a_card_counts_each_field_against_its_label_own_models_apart():
    judgments = pd.DataFrame([
        _verdict("r1", "m", "j", "other", True, True),
        _verdict("r2", "m", "j", "other", True, None),      # no justification verdict
        _verdict("r3", "m", "j", "other", False, False),
        _verdict("r4", "m", "j", "other", True, True, "error"),  # not ok: not read
        _verdict("r1", "mine", "j", "other", True, True),
    ])
    labels = pd.DataFrame({"riddle_id": ["r1", "r2", "r3", "r4", "r1"], "model": ["m", "m", "m", "m", "mine"],
                           "human_answer_correct": [True, False, False, False, True],
                           "human_justification_correct": [True, False, True, False, True]})
    card = estimate_card(judgments, labels, {"m": "p", "mine": "other"})
    # answer: right r1 (said right); wrong r2 (said right), r3 (said wrong) -> (1+1)/(1+2), (1+1)/(2+2)
    assert card[("j", False, "answer")] == pytest.approx((2 / 3, 2 / 4))
    # justification: right r1 (said right), r3 (said wrong); wrong: none read (r2 has no verdict)
    assert card[("j", False, "justification")] == pytest.approx((2 / 4, 1 / 2))
    assert card[("j", True, "answer")] == pytest.approx((2 / 3, 1 / 2))
    assert rates({("k", False, "answer"): (0.9, 0.1)}, "k", True, "answer") == (0.9, 0.1)
    with pytest.raises(KeyError, match="judge 'z'"):
        rates(card, "z", False, "answer")


def _world(setting: Setting, seed: int = 2):
    base = project_params()
    params = setting_params(base, setting)
    riddles = split_riddles(load_demo(Path(ROOT / base["riddles"]["path"])), "llm")
    return params, riddles, seed


def test_a_previous_rounds_card_finds_the_simulators_judges():
    params, riddles, seed = _world(Setting(judge_quality=0.9))
    card = previous_round_card(params, riddles, seed, share=1.0)
    others = [v for (_, own, _), v in card.items() if not own]
    assert len(others) == 8  # 4 judges x 2 fields; each rate from a few dozen to a hundred verdicts
    assert np.mean([r for r, _ in others]) == pytest.approx(0.9, abs=0.03)
    assert np.mean([w for _, w in others]) == pytest.approx(0.1, abs=0.04)
    assert card != previous_round_card(params, riddles, seed + 1, share=1.0)  # another round, another card


def test_rows_started_from_a_good_card_sort_right_answers_from_wrong():
    params, riddles, seed = _world(Setting(judge_quality=0.97))
    predictions, judgments, _ = simulate_run(params, riddles, seed)
    card = previous_round_card(params, riddles, seed, share=1.0)
    providers = dict(zip(predictions["model"], predictions["provider"], strict=True))
    got = card_predictions(judgments, providers, card)
    by_id = records_by(riddles, "riddle_id")
    right = {(p["riddle_id"], p["model"]): all(truth(by_id[p["riddle_id"]], p["answer"], p["justification"]))
             for p in predictions.to_dict("records")}
    p = got["predicted"].to_numpy()
    is_right = np.array([right[(r, m)] for r, m in zip(got["riddle_id"], got["model"], strict=True)])
    assert ((p > 0.5) == is_right).mean() > 0.9 and np.all((p >= 0) & (p <= 1))
    assert len(got) == len(judgments[judgments["status"] == "ok"][["riddle_id", "model"]].drop_duplicates())


def test_the_real_file_script_measures_every_interval_on_the_same_repeats(tmp_path, capsys):
    out = tmp_path / "cards.json"
    assert card_coverage.main(["--repeats", "1", "--shares", "0.5", "--json", str(out)]) == 0
    assert "card from 137 labelled predictions" in capsys.readouterr().out
    rows = {r["interval"]: r for r in json.loads(out.read_text())["rows"]}
    assert set(rows) == set(card_coverage.INTERVALS) and all(r["intervals"] == 7 for r in rows.values())
    # the rows trusted one by one are narrower than the same rows binned: the bins' doubt is what they give up
    assert rows["card-rows"]["half_width"] < rows["card"]["half_width"]


def test_a_card_from_another_file_is_measured_on_every_labelled_prediction_of_this_one(tmp_path, capsys):
    out = tmp_path / "cards.json"
    assert card_coverage.main(["--repeats", "1", "--shares", "0.5", "--card-file", str(PPI_LLM_FILE),
                               "--json", str(out)]) == 0
    assert "card from 614 labelled predictions of" in capsys.readouterr().out
    rows = {r["interval"]: r for r in json.loads(out.read_text())["rows"]}
    assert set(rows) == set(card_coverage.INTERVALS) and all(r["intervals"] == 7 for r in rows.values())


def test_card_rows_from_the_whole_file_are_every_judged_row_and_from_a_set_only_the_others():
    whole = card_coverage.real_coverage.population(str(PPI_LLM_FILE), "llm", 1)
    card = card_coverage.card_of(whole.tables, whole.labels)
    every = card_coverage.card_rows(whole, card, None)
    weekly = card_coverage.card_rows(whole, card, "W")
    judged = whole.tables.judgments[whole.tables.judgments["status"] == "ok"][["riddle_id", "model"]]
    assert len(every) == len(judged.drop_duplicates())
    assert len(weekly) < len(every) and not weekly["riddle_id"].str.startswith("W").any()
