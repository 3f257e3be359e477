"""benchmarks/studies/cascade_auto.py: the first pair chosen on one half of the riddles, measured on the other."""

from __future__ import annotations

import json

import cascade_auto
import real_coverage
from test_real_coverage import _write_file


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
