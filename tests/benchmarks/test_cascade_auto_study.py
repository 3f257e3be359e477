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


def test_the_width_rule_never_widens_the_choosing_halfs_interval_and_is_measured_like_the_others(tmp_path):
    source, out = tmp_path / "ppi.jsonl", tmp_path / "width.json"
    _write_file(source, text=False)
    pop = real_coverage.population(str(source), "llm", 15)
    a, _ = cascade_auto.halves(pop, 0, 0)
    half = cascade_auto.restrict(pop, a)
    chosen = cascade_auto.choose(half, "width", 0)
    assert all(sorted(chosen[m]) == sorted(p) for m, p in half.tables.panels.items())
    assert cascade_auto.half_width(half, chosen, 0) <= cascade_auto.half_width(half, dict(half.tables.panels), 0)
    args = ["--file", str(source), "--min-labels", "15", "--splits", "1", "--repeats", "1", "--shares", "0.5",
            "--rules", "width", "--json", str(out)]
    assert cascade_auto.main(args) == 0
    [s] = json.loads(out.read_text())["splits"]
    seen = cascade_auto.cascaded(cascade_auto.restrict(pop, cascade_auto.halves(pop, 0, 0)[1]), chosen)
    assert s["rules"]["width"]["pairs"] == [list(p) for p in sorted({p[:2] for p in chosen.values()})]
    assert s["rules"]["width"]["rows"][0]["intervals"] == s["full"][0]["intervals"] and len(seen.rows)
