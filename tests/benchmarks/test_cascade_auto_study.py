"""benchmarks/studies/cascade_auto.py: the first pair chosen on one half of the riddles, measured on the other."""

from __future__ import annotations

import json

import cascade_auto
import real_coverage
from test_real_coverage import JUDGES, _write_file


def test_the_halves_split_the_riddles_in_two_seeded_and_the_measured_half_keeps_only_its_own(tmp_path):
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False)
    pop = real_coverage.population(str(source), "llm", 15)
    a, b = cascade_auto.halves(pop, 0, 3)
    assert a.isdisjoint(b) and a | b == set(pop.tables.predictions["riddle_id"]) and abs(len(a) - len(b)) <= 1
    assert cascade_auto.halves(pop, 0, 3) == (a, b) and cascade_auto.halves(pop, 0, 4) != (a, b)
    half = cascade_auto.restrict(pop, b)
    for t in (half.tables.judgments, half.tables.predictions, half.labels, half.rows, half.jury):
        assert set(t["riddle_id"]) <= b
    assert set(half.truth) == set(pop.truth)


def test_it_measures_each_rules_cascade_beside_the_full_jury_on_the_same_half(tmp_path, capsys):
    source, out = tmp_path / "ppi.jsonl", tmp_path / "auto.json"
    _write_file(source, text=False)
    args = ["--file", str(source), "--min-labels", "15", "--splits", "2", "--repeats", "1", "--shares", "0.5",
            "--json", str(out)]
    assert cascade_auto.main(args) == 0
    data = json.loads(out.read_text())
    assert [s["split"] for s in data["splits"]] == [0, 1]
    for s in data["splits"]:
        for rule in ("splits", "labels", "agree", "outlier"):
            r = s["rules"][rule]
            assert 0 < r["saved"] < 1 and r["rows"][0]["width_ratio"] > 0
            assert r["rows"][0]["intervals"] == s["full"][0]["intervals"]  # the same models and draws
    assert {r["row"] for r in data["rows"]} == {"full", "splits", "labels", "agree", "outlier"}
    assert "splits on the whole file:" in capsys.readouterr().out
    first = out.read_text()
    assert cascade_auto.main(args) == 0 and out.read_text() == first  # seeded


def test_the_width_rule_never_widens_the_choosing_halfs_interval(tmp_path, monkeypatch):
    source = tmp_path / "ppi.jsonl"
    _write_file(source, text=False, judges=JUDGES[:4])
    monkeypatch.setattr(cascade_auto, "WIDTH_DRAWS", 1)  # the study's 2 draws: the same code, twice the time
    pop = real_coverage.population(str(source), "llm", 15)
    half = cascade_auto.restrict(pop, cascade_auto.halves(pop, 0, 0)[0])
    chosen = cascade_auto.choose(half, "width", 0)
    assert all(sorted(chosen[m]) == sorted(p) for m, p in half.tables.panels.items())
    assert cascade_auto.half_width(half, chosen, 0) <= cascade_auto.half_width(half, dict(half.tables.panels), 0)


def test_the_study_measures_the_width_rules_choice_on_half_a_like_the_other_rules(tmp_path, monkeypatch):
    source, out = tmp_path / "ppi.jsonl", tmp_path / "width.json"
    _write_file(source, text=False, judges=JUDGES[:4])
    seen: list[set[str]] = []
    def width(pop, panels, seed):  # a stand-in width: the gpt judge asked first costs one point per model
        seen.append(set(pop.tables.predictions["riddle_id"]))
        return float(sum("gpt-5.1" in p[:2] for p in panels.values()))
    monkeypatch.setattr(cascade_auto, "half_width", width)
    args = ["--file", str(source), "--min-labels", "15", "--splits", "1", "--repeats", "1", "--shares", "0.5",
            "--rules", "width", "--json", str(out)]
    assert cascade_auto.main(args) == 0
    [s] = json.loads(out.read_text())["splits"]
    pop = real_coverage.population(str(source), "llm", 15)
    a, _ = cascade_auto.halves(pop, 0, 0)
    assert seen[-1] == a  # chosen on half A's riddles only
    pairs = s["rules"]["width"]["pairs"]
    assert pairs and not any("gpt-5.1" in p for p in pairs)  # every panel has a pair without it
    assert s["rules"]["width"]["rows"][0]["intervals"] == s["full"][0]["intervals"]
