"""benchmarks/studies/real_coverage.py: every interval's coverage on a layton-eval calibration file of any shape."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest
import real_coverage

JUDGES = ("mistral-large-2512", "claude-opus-4-5", "gpt-5.1", "gemini-3-pro-preview", "gpt-4o-mini")


def _write_file(path, *, text: bool, judges=JUDGES, riddles: int = 40) -> None:
    """A layton-eval-ppi file: 4 models of 4 providers, a panel without the model's own provider, half labelled."""
    rng = np.random.default_rng(0)
    rows = []
    for provider, model, skill in (("openai", "o-big", 0.8), ("gemini", "g-mid", 0.6), ("anthropic", "a-low", 0.4),
                                   ("together", "t-mid", 0.7)):
        for r in range(riddles):
            a = bool(rng.random() < skill)
            j = a and bool(rng.random() < 0.9)
            row = {"riddle_id": f"{r:03d}-1", "provider": provider, "model": model, "n_hints": 0}
            if text:
                row |= {"answer": "an answer", "justification": "because"}
            for judge in judges:
                own = judge.startswith({"openai": "gpt-", "gemini": "gemini-", "anthropic": "claude-"}.get(provider, "~"))
                flip = rng.random() < 0.1
                va, vj = (None, None) if own else (a != flip, j != flip)
                row |= {f"is_answer_correct_{judge}": va, f"is_justification_correct_{judge}": vj,
                        f"both_correct_{judge}": None if own else (va and vj)}
            labelled = r % 2 == 0
            row |= {"human_answer_correct": a if labelled else None,
                    "human_justification_correct": j if labelled else None,
                    "human_both_correct": (a and j) if labelled else None}
            rows.append(row)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.parametrize("text", [True, False])
def test_it_runs_on_any_file_of_the_format_and_writes_the_issue_json(tmp_path, capsys, text):
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=text)
    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "2", "--shares", "0.5", "--min-labels", "15",
                               "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["default"] in {"v1", "hierarchical", "latent"}
    assert {r["interval"] for r in data["rows"]} == set(real_coverage.INTERVALS)
    for r in data["rows"]:
        assert set(r) == {"interval", "share", "labels", "coverage", "coverage_se", "half_width", "intervals"}
        assert r["share"] == 0.5
        if r["interval"] != "published":  # it may stop on an empty bin
            assert r["intervals"] == 2 * 4 and 0 <= r["coverage"] <= 1 and r["half_width"] >= 0
            # the per-model figures add up to the row's: 4 models, 2 intervals each
            mine = [m["coverage"] for m in data["models"] if (m["interval"], m["share"]) == (r["interval"], 0.5)]
            assert len(mine) == 4 and np.mean(mine) == pytest.approx(r["coverage"])
    assert "| latent | 0.5 |" in capsys.readouterr().out


def test_the_same_arguments_give_the_same_figures(tmp_path):
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:3])
    outs = []
    for k in range(2):
        out = tmp_path / f"out{k}.json"
        real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.25", "--min-labels", "15",
                            "--intervals", "v1,latent", "--json", str(out)])
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_kept_labels_are_a_share_of_each_models_labels():
    pop = real_coverage.population(str(real_coverage.DEFAULT_FILE), "llm", 50)
    kept = real_coverage.keep_labels(pop.labels, 0.125, np.random.default_rng(0))
    sizes = pop.labels.groupby("model").size()
    assert (kept.groupby("model").size() == (sizes * 0.125).round().clip(lower=1).astype(int)).all()
    assert len(pop.truth) == 7  # the vendored LLM file: 7 models with 50 labels or more


def test_the_field_chooses_the_truth_and_the_verdicts(tmp_path, capsys):
    """--field answer_correct measures the share of right answers: a truth above both-correct's (a right answer
    may be wrongly justified), read from the answer labels; an unknown field is refused by name."""
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False)
    both = real_coverage.population(str(source), "llm", 15)
    answer = real_coverage.population(str(source), "llm", 15, "answer_correct")
    assert answer.field == "answer_correct" and both.field == "both_correct"
    assert all(answer.truth[m] >= both.truth[m] for m in both.truth)
    assert any(answer.truth[m] > both.truth[m] for m in both.truth)
    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.5", "--min-labels", "15",
                               "--intervals", "v1,latent", "--field", "answer_correct", "--json", str(out)]) == 0
    assert "answer_correct: 4 models" in capsys.readouterr().out
    assert {r["intervals"] for r in json.loads(out.read_text())["rows"]} == {4}
    with pytest.raises(SystemExit):
        real_coverage.main(["--file", str(source), "--field", "answer"])
    assert "invalid choice: 'answer'" in capsys.readouterr().err


def test_a_cascade_is_measured_on_exactly_the_verdicts_it_would_have_asked(tmp_path, capsys):
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:4])
    pop = real_coverage.population(str(source), "llm", 15)
    order = real_coverage.judge_orders(pop, "gem,mis", 2)[0]
    assert order == ("gemini-3-pro-preview", "mistral-large-2512")
    seen = real_coverage.cascaded(pop, order, 2)
    full = pop.tables.judgments.set_index(["riddle_id", "model", "judge"])
    kept = seen.tables.judgments.set_index(["riddle_id", "model", "judge"])
    assert set(kept.index) <= set(full.index)
    judges = seen.jury.set_index(["riddle_id", "model"])["both_correct_judges"]
    for model, panel in seen.tables.panels.items():
        assert set(panel) == set(pop.tables.panels[model]) and panel[0] in order  # ordered, never changed
        for rid in pop.jury.loc[pop.jury["model"] == model, "riddle_id"]:
            first = [full.loc[(rid, model, j), ["is_answer_correct", "is_justification_correct"]].tolist()
                     for j in panel[:2]]
            settled = first[0] == first[1]
            for j in panel[2:]:  # the later judges: only where the first two split
                assert ((rid, model, j) in kept.index) == (not settled)
            assert all((rid, model, j) in kept.index for j in panel[:2])
            assert judges[(rid, model)] == (2 if settled else len(panel))
    assert seen.first == 2
    assert real_coverage.cascaded(pop, order, 2, "absent").first == 0  # the naive reading: not told of the cascade

    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.5", "--min-labels", "15",
                               "--intervals", "v1,latent", "--cascade", "gem,mis", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    [c] = data["cascades"]
    assert c["calls"] == len(seen.tables.judgments) and c["full_calls"] == len(pop.tables.judgments)
    assert c["saved"] == pytest.approx(1 - c["calls"] / c["full_calls"]) and c["saved"] > 0
    cascaded_rows = [r for r in data["rows"] if r.get("cascade")]
    assert {r["interval"] for r in cascaded_rows} == {"v1", "latent"} and all(r["width_ratio"] > 0 for r in cascaded_rows)
    assert "judge calls (" in capsys.readouterr().out
def test_the_uncertain_order_keeps_the_least_certain_labels_first(tmp_path, capsys):
    """--order uncertain keeps round(share x labels) labels of all models together, the latent-class fit's least
    certain first (ties by a seeded coin), and measures the same intervals on them."""
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:3])
    pop = real_coverage.population(str(source), "llm", 15)
    scores = {k: float(i % 5) for i, k in enumerate(zip(pop.labels["riddle_id"], pop.labels["model"], strict=True))}
    kept = real_coverage.queue_labels(pop.labels, scores, 0.25, np.random.default_rng(0))
    assert len(kept) == round(0.25 * len(pop.labels)) == real_coverage.kept_count(pop, 0.25, "uncertain")
    kept_keys = set(zip(kept["riddle_id"], kept["model"], strict=True))
    left = [v for k, v in scores.items() if k not in kept_keys]
    assert min(scores[k] for k in kept_keys) >= max(left)  # the highest scores only
    again = real_coverage.queue_labels(pop.labels, scores, 0.25, np.random.default_rng(0))
    assert kept.equals(again)
    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.25", "--min-labels", "15",
                               "--intervals", "latent", "--order", "uncertain", "--json", str(out)]) == 0
    assert "labels kept in uncertain order" in capsys.readouterr().out
    (row,) = json.loads(out.read_text())["rows"]
    assert row["labels"] == len(kept) and row["intervals"] == 4


def test_the_width_order_keeps_the_labels_the_app_serves_first(tmp_path):
    """--order width: the first round(share x labels) labels the app's width queue serves, seeded, each once."""
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:3])
    pop = real_coverage.population(str(source), "llm", 15)
    kept = real_coverage.width_labels(pop, 0.25, 0)
    assert len(kept) == real_coverage.kept_count(pop, 0.25, "width") == round(0.25 * len(pop.labels))
    assert not kept.duplicated(["riddle_id", "model"]).any()
    assert kept.equals(real_coverage.width_labels(pop, 0.25, 0))
    assert set(kept.columns) == set(pop.labels.columns)


def test_the_latent_order_keeps_the_labels_the_apps_latent_queue_serves_first(tmp_path, capsys):
    """--order latent: the first labels the app's latent queue serves on the fit of the file's verdicts alone."""
    from sideways.annotation_app.latent_gain import cell_fit

    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:3])
    pop = real_coverage.population(str(source), "llm", 15)
    fit = cell_fit(pop.jury, pop.tables.judgments, pd.DataFrame(), pop.field, seed=0, split="llm")
    kept = real_coverage.width_labels(pop, 0.25, 0, fit)
    assert len(kept) == real_coverage.kept_count(pop, 0.25, "latent") == round(0.25 * len(pop.labels))
    assert not kept.duplicated(["riddle_id", "model"]).any()
    assert not kept.equals(real_coverage.width_labels(pop, 0.25, 0))  # not the width queue's labels
    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.25", "--min-labels", "15",
                               "--intervals", "latent", "--order", "latent", "--json", str(out)]) == 0
    assert "labels kept in latent order" in capsys.readouterr().out
    (row,) = json.loads(out.read_text())["rows"]
    assert row["labels"] == len(kept)


def test_the_lookahead_order_keeps_prefixes_of_the_order_the_apps_default_queue_serves(tmp_path, capsys):
    """--order lookahead: per repeat one order of the app's lookahead queue (its gains updated after every label),
    each share a prefix of it; the measured rows count those labels."""
    from sideways.annotation_app import lookahead

    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:3])
    pop = real_coverage.population(str(source), "llm", 15)
    orders = real_coverage.lookahead_orders(pop, [0.125, 0.25], 2, 0, "llm")
    k = real_coverage.kept_count(pop, 0.25, "lookahead")
    assert [len(o) for o in orders] == [k, k] == [round(0.25 * len(pop.labels))] * 2
    assert all(len(set(o)) == len(o) for o in orders)
    starts = lookahead.verdict_starts(pop.jury, pop.tables.judgments, pop.field, 0, "llm")
    gains = lookahead.Lookahead(real_coverage.queue_pool(pop), starts, pop.field)(pd.DataFrame())
    best = max(gains.values())
    first = dict(zip(zip(pop.rows["riddle_id"], pop.rows["model"], strict=True),
                     real_coverage.queue_pool(pop), strict=True))[orders[0][0]]
    assert gains[(first.model, first.bin)] == best  # the first label: the cell of the largest gain
    assert orders == real_coverage.lookahead_orders(pop, [0.125, 0.25], 2, 0, "llm")  # seeded
    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.125,0.25", "--min-labels",
                               "15", "--intervals", "latent", "--order", "lookahead", "--json", str(out)]) == 0
    assert "labels kept in lookahead order" in capsys.readouterr().out
    assert [r["labels"] for r in json.loads(out.read_text())["rows"]] == [
        real_coverage.kept_count(pop, 0.125, "lookahead"), k]


def test_the_unsure_rule_escalates_more_and_is_measured_beside_the_plain_cascade(tmp_path, capsys):
    """--unsure LO,HI: the settled rows a verdicts-only fit of the first judges is unsure of go to the later judges
    too; the cascade keeps every verdict the plain one keeps, and a bad band is refused in one line."""
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:4])
    pop = real_coverage.population(str(source), "llm", 15)
    order = real_coverage.judge_orders(pop, "gem,mis", 2)[0]
    plain = real_coverage.cascaded(pop, order, 2)
    wide = real_coverage.cascaded(pop, order, 2, band=(0.0, 1.0))  # every row: the full jury's verdicts
    assert len(wide.tables.judgments) == len(pop.tables.judgments) > len(plain.tables.judgments)
    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.5", "--min-labels", "15",
                               "--intervals", "v1", "--cascade", "gem,mis", "--unsure", "0.2,0.8",
                               "--json", str(out)]) == 0
    [c] = json.loads(out.read_text())["cascades"]
    assert c["unsure"] == "0.2,0.8" and len(plain.tables.judgments) <= c["calls"] <= len(pop.tables.judgments)
    assert "unsure 0.2-0.8 escalated" in capsys.readouterr().out
    for bad in ("0.9,0.1", "x", "0.1,0.5,0.9"):
        with pytest.raises(SystemExit, match="--unsure"):
            real_coverage.main(["--file", str(source), "--min-labels", "15", "--cascade", "gem,mis", "--unsure", bad])


def test_the_random_rule_escalates_a_share_of_the_settled_rows_and_a_bad_share_is_refused(tmp_path, capsys):
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:4])
    pop = real_coverage.population(str(source), "llm", 15)
    order = real_coverage.judge_orders(pop, "gem,mis", 2)[0]
    plain = real_coverage.cascaded(pop, order, 2)
    assert len(real_coverage.cascaded(pop, order, 2, random=1.0).tables.judgments) == len(pop.tables.judgments)
    some = real_coverage.cascaded(pop, order, 2, random=0.5)
    assert len(plain.tables.judgments) < len(some.tables.judgments) < len(pop.tables.judgments)
    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.5", "--min-labels", "15",
                               "--intervals", "v1", "--cascade", "gem,mis", "--random", "0.5",
                               "--json", str(out)]) == 0
    [c] = json.loads(out.read_text())["cascades"]
    assert c["random"] == 0.5 and c["calls"] == len(some.tables.judgments)
    assert "a random 0.5 of the settled escalated" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="--random"):
        real_coverage.main(["--file", str(source), "--min-labels", "15", "--cascade", "gem,mis", "--random", "1.5"])


def test_a_cascade_counts_the_labelled_rows_it_settled_against_their_label(tmp_path):
    """contradicted: the labelled rows whose verdicts are unanimous and the label says otherwise, counted by hand."""
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:4])
    pop = real_coverage.population(str(source), "llm", 15)
    seen = real_coverage.cascaded(pop, real_coverage.judge_orders(pop, "gem,mis", 2)[0], 2)
    for p, judges in ((pop, 3), (seen, 2)):
        rows = p.rows.merge(p.labels, on=["riddle_id", "model"])
        by_hand = sum(1 for v, n, lab in zip(rows["both_correct_votes"], rows["both_correct_judges"],
                                             rows["human_both_correct"], strict=True)
                      if n == judges and v in (0, n) and (v == n) != bool(lab))
        assert real_coverage.contradicted(p, judges) == by_hand
    rows = seen.rows[seen.rows["both_correct_judges"] == 2]  # a settled labelled row, its label turned over
    rid, model = rows["riddle_id"].iloc[0], rows["model"].iloc[0]
    at = (seen.labels["riddle_id"] == rid) & (seen.labels["model"] == model)
    turned = seen.labels.assign(human_both_correct=np.where(at, ~seen.labels["human_both_correct"].astype(bool),
                                                            seen.labels["human_both_correct"].astype(bool)))
    before = real_coverage.contradicted(seen, 2)
    after = real_coverage.contradicted(dataclasses.replace(seen, labels=turned), 2)
    assert abs(after - before) == 1


def test_latent_known_starts_every_repeat_from_one_fit_on_every_label(tmp_path, monkeypatch):
    """latent-known fits the latent-class model once per population (every label, held fixed), not once a repeat,
    and its interval is the latent posterior's binning of those starts."""
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:4])
    pop = real_coverage.population(str(source), "llm", 15)
    calls = []
    fit = real_coverage.latent_prior.predictions
    monkeypatch.setattr(real_coverage.latent_prior, "predictions",
                        lambda *a, **k: calls.append(len(a[2])) or fit(*a, **k))
    rows = real_coverage.measure(pop, [0.5], 3, 0, ["latent-known"])
    assert calls == [len(pop.labels)] and rows[0]["intervals"] == 3 * len(pop.truth)
    seen = real_coverage.cascaded(pop, real_coverage.judge_orders(pop, "gem,mis", 2)[0], 2)
    real_coverage.measure(seen, [0.5], 2, 0, ["latent", "latent-known"])
    kept = real_coverage.kept_count(seen, 0.5, "random")
    assert calls[1:] == [kept, len(pop.labels), kept]  # the fitted one per repeat, the known one once
    assert list(seen.known) == [(0, "both_correct")]


def test_each_judges_agreement_with_the_labels_is_counted_on_the_field_scored(tmp_path):
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:4])
    for field in ("both_correct", "answer_correct"):
        pop = real_coverage.population(str(source), "llm", 15, field)
        got = real_coverage.judge_agreement(pop)
        rows = pop.tables.judgments[pop.tables.judgments["status"] == "ok"].merge(pop.labels, on=["riddle_id", "model"])
        for judge, own in rows.groupby("judge"):
            said = [bool(a) and (field == "answer_correct" or bool(j))
                    for a, j in zip(own["is_answer_correct"], own["is_justification_correct"], strict=True)]
            agree = [s == bool(lab) for s, lab in zip(said, own[f"human_{field}"], strict=True)]
            assert got[judge] == pytest.approx(sum(agree) / len(agree))
        assert len(got) == 4 and all(0.5 < a < 1.0 for a in got.values())  # 10% of verdicts flipped


def test_cascade_auto_asks_first_each_panels_pair_hiding_the_fewest_of_the_files_splits(tmp_path):
    from lab import cascade_auto
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:4])
    pop = real_coverage.population(str(source), "llm", 15)
    [order] = real_coverage.judge_orders(pop, "auto", 2)
    seen = real_coverage.cascaded(pop, order, 2)
    counts = cascade_auto.pair_counts(pop.tables.judgments, pop.tables.panels, pop.labels.iloc[:0])
    for model, panel in seen.tables.panels.items():
        assert sorted(panel) == sorted(pop.tables.panels[model])
        mine = counts[tuple(sorted(panel))]
        assert {c.pair: c.hidden for c in mine}[panel[:2]] == min(c.hidden for c in mine)
    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.5", "--min-labels", "15",
                               "--intervals", "v1", "--cascade", "auto", "--json", str(out)]) == 0
    [c] = json.loads(out.read_text())["cascades"]
    assert c["order"] == ["auto"] and c["calls"] == len(seen.tables.judgments)
    with pytest.raises(SystemExit, match="--first 2"):
        real_coverage.main(["--file", str(source), "--min-labels", "15", "--cascade", "auto", "--first", "3"])


def test_cascade_auto_rule_asks_first_the_pairs_that_rule_of_lab_cascade_auto_chooses(tmp_path):
    from lab import cascade_auto
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:4])
    pop = real_coverage.population(str(source), "llm", 15)
    for rule in ("agree", "outlier"):
        [order] = real_coverage.judge_orders(pop, f"auto:{rule}", 2)
        assert order == ("auto", rule)
        want = cascade_auto.chosen_panels(pop.tables.judgments, pop.tables.panels, pop.labels.iloc[:0], rule)
        assert real_coverage.cascaded_panels(pop, order) == want
    assert real_coverage.judge_orders(pop, "auto:splits", 2) == real_coverage.judge_orders(pop, "auto", 2)
    with pytest.raises(SystemExit, match="RULE is one of"):
        real_coverage.judge_orders(pop, "auto:cheapest", 2)
    with pytest.raises(SystemExit, match="--first 2"):
        real_coverage.main(["--file", str(source), "--min-labels", "15", "--cascade", "auto:agree", "--first", "3"])


def test_cascade_rotate_asks_each_predictions_own_drawn_pair_first_and_the_third_only_where_they_split(tmp_path):
    from lab import cascade_rotate
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:4])
    pop = real_coverage.population(str(source), "llm", 15)
    [order] = real_coverage.judge_orders(pop, "rotate", 2)
    seen = real_coverage.cascaded(pop, order, 2, rotate_seed=3)
    assert seen.heads == cascade_rotate.row_panels(pop.tables.judgments[["riddle_id", "model"]].drop_duplicates(),
                                                   pop.tables.panels, 3)
    assert seen.first == 2 and seen.tables.panels == pop.tables.panels  # the panels themselves are not reordered
    full = pop.tables.judgments.set_index(["riddle_id", "model", "judge"])
    kept = set(seen.tables.judgments.set_index(["riddle_id", "model", "judge"]).index)
    firsts = set()
    for (rid, model), panel in seen.heads.items():
        first = [full.loc[(rid, model, j), ["is_answer_correct", "is_justification_correct"]].tolist()
                 for j in panel[:2]]
        firsts.add((model, panel[:2]))
        assert all((rid, model, j) in kept for j in panel[:2])
        assert all(((rid, model, j) in kept) == (first[0] != first[1]) for j in panel[2:])
    assert all(len({p for m, p in firsts if m == model}) == math.comb(len(panel), 2)  # every pair first somewhere
               for model, panel in pop.tables.panels.items())
    assert real_coverage.cascaded(pop, order, 2, rotate_seed=4).heads != seen.heads
    out = tmp_path / "out.json"
    assert real_coverage.main(["--file", str(source), "--repeats", "1", "--shares", "0.5", "--min-labels", "15",
                               "--intervals", "latent", "--cascade", "rotate", "--rotate-seed", "3",
                               "--json", str(out)]) == 0
    [c] = json.loads(out.read_text())["cascades"]
    assert c["order"] == ["rotate"] and c["rotate_seed"] == 3 and c["calls"] == len(seen.tables.judgments)
    with pytest.raises(SystemExit, match="--cascade rotate: no --unsure"):
        real_coverage.main(["--file", str(source), "--min-labels", "15", "--cascade", "rotate", "--random", "0.5"])
