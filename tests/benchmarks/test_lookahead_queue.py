"""lab.lookahead and benchmarks/studies/lookahead_queue.py: the research queue over the app's lookahead gain (its
variants, one order without a coin; the gain itself is tested in tests/annotation_app/test_lookahead_app_queue.py)."""

from __future__ import annotations

import json

import lookahead_queue
import pytest
from test_real_coverage import _write_file

from helpers.queue_pools import split_pool
from lab import lookahead


def test_the_queue_labels_the_unsure_bins_first_and_every_row_once():
    pool, truth = split_pool()
    order = lookahead.order(pool, truth, len(truth) + 5)
    assert sorted(order) == list(range(len(truth)))  # every row once, then it stops
    assert all(pool.labels[i] == truth[i] for i in range(len(truth)))
    first = order[:6]
    assert sum(pool.bins[i] == (1, 3) for i in first) >= 4  # 12 of 36 rows, most of the first labels
    again, _ = split_pool()
    assert lookahead.order(again, truth, 10) == order[:10]  # no coin: the same pool gives the same order


def test_the_study_runs_on_any_file_of_the_format(tmp_path, capsys):
    source, out = tmp_path / "ppi.jsonl", tmp_path / "out.json"
    _write_file(source, text=False, riddles=16)
    assert lookahead_queue.main(["--file", str(source), "--shares", "0.25,0.5", "--repeats", "1",
                                 "--min-labels", "4", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "s CPU a label" in text and "| 16 (0.5) |" in text
    rows = json.loads(out.read_text())["rows"]
    assert [r["labels"] for r in rows] == [8, 16]
    assert all(0 <= r["coverage"] <= 1 and r["half_width"] >= 0 and r["intervals"] == 4 for r in rows)


def test_the_gain_named_ranks_first_and_the_other_breaks_ties():
    pool, _ = split_pool()
    cached = {("a", (0, 1)): (0.1, 0.0), ("b", (1, 3)): (0.0, 0.2), ("c", (1, 3)): (0.0, 0.1)}
    assert pool.models[lookahead.next_row(pool, cached)] == "a"
    assert pool.models[lookahead.next_row(pool, cached, "sd")] == "b"
    cached[("a", (0, 1))] = (0.0, 0.0)
    i = lookahead.next_row(pool, cached)
    assert (pool.models[i], pool.bins[i], pool.riddles[i]) == ("b", (1, 3), "r00")  # the sd breaks the tie
    with pytest.raises(ValueError, match="gain"):
        lookahead.next_row(pool, cached, "variance")
