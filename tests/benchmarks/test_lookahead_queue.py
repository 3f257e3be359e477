"""lab.lookahead and benchmarks/studies/lookahead_queue.py: the queue whose gain is the latent posterior's own
expected half-width drop."""

from __future__ import annotations

import json

import lookahead_queue
import pytest
from test_real_coverage import _write_file

from lab import lookahead
from sideways.scoring.hierarchy import prior_counts


def _pool() -> tuple[lookahead.Pool, list[bool]]:
    """Three models of three providers, 12 rows each: 8 unanimous-wrong rows the fit is sure of (0/1), 4 split rows
    (1/3) it is not."""
    models, providers, bins, predicted, riddles, truth = [], [], [], [], [], []
    for m, p in (("a", "openai"), ("b", "gemini"), ("c", "anthropic")):
        for i in range(12):
            split = i % 3 == 0
            models.append(m)
            providers.append(p)
            bins.append((1, 3) if split else (0, 1))
            predicted.append(0.5 if split else 0.01)
            riddles.append(f"r{i:02d}")
            truth.append(split and i % 2 == 0)
    return lookahead.Pool(models, providers, bins, predicted, riddles), truth


def test_a_gain_is_the_expected_drop_of_the_model_s_own_half_width():
    pool, truth = _pool()
    prior = lookahead.priors(pool)["a"]
    bins, counts, own = lookahead.cells(pool, "a")
    got = lookahead.gains(pool, "a", prior)
    p = dict(zip(bins, lookahead.rates(own, prior, bins), strict=True))
    n = sum(counts)

    def hw(tallies):
        lo, hi = prior_counts(counts, tallies, prior, bins)
        return (hi - lo) / 2 / n

    for v, b in enumerate(bins):
        right, wrong = list(own), list(own)
        right[v], wrong[v] = (1, 1), (0, 1)
        assert abs(got[b][0] - (hw(own) - p[b] * hw(right) - (1 - p[b]) * hw(wrong))) < 1e-12
    assert 0.3 < p[(1, 3)] < 0.7 and p[(0, 1)] < 0.1  # the next label's chances are the posterior's rates


def test_the_queue_labels_the_unsure_bins_first_and_every_row_once():
    pool, truth = _pool()
    order = lookahead.order(pool, truth, len(truth) + 5)
    assert sorted(order) == list(range(len(truth)))  # every row once, then it stops
    assert all(pool.labels[i] == truth[i] for i in range(len(truth)))
    first = order[:6]
    assert sum(pool.bins[i] == (1, 3) for i in first) >= 4  # 12 of 36 rows, most of the first labels
    again, _ = _pool()
    assert lookahead.order(again, truth, 10) == order[:10]  # no coin: the same pool gives the same order


def test_a_full_cell_gets_no_gain():
    pool, truth = _pool()
    for i, (m, b) in enumerate(zip(pool.models, pool.bins, strict=True)):
        if m == "a" and b == (1, 3):
            pool.labels[i] = truth[i]
    assert (1, 3) not in lookahead.gains(pool, "a", lookahead.priors(pool)["a"])


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
    pool, _ = _pool()
    cached = {("a", (0, 1)): (0.1, 0.0), ("b", (1, 3)): (0.0, 0.2), ("c", (1, 3)): (0.0, 0.1)}
    assert pool.models[lookahead.next_row(pool, cached)] == "a"
    assert pool.models[lookahead.next_row(pool, cached, "sd")] == "b"
    cached[("a", (0, 1))] = (0.0, 0.0)
    i = lookahead.next_row(pool, cached)
    assert (pool.models[i], pool.bins[i], pool.riddles[i]) == ("b", (1, 3), "r00")  # the sd breaks the tie
    with pytest.raises(ValueError, match="gain"):
        lookahead.next_row(pool, cached, "variance")


def test_looking_further_ahead_never_sees_less_gain_per_label():
    pool, truth = _pool()
    for i in range(0, len(truth), 4):  # a few labels, so that the mixture has own labels to weigh
        pool.labels[i] = truth[i]
    prior = lookahead.priors(pool)
    for m in ("a", "b", "c"):
        one = lookahead.gains(pool, m, prior[m])
        far = lookahead.gains(pool, m, prior[m], lookahead.STEPS)
        assert one.keys() == far.keys() and one
        assert all(far[b][0] >= one[b][0] and far[b][1] == one[b][1] for b in one)
