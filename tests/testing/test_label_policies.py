"""benchmarks/label_policies.py: labels each annotation queue needs to reach today's mean half-width."""

from __future__ import annotations

import json

import label_policies


def test_the_quick_run_counts_labels_for_every_policy(tmp_path, capsys):
    out = tmp_path / "policies.json"
    assert label_policies.main(["--quick", "--splits", "llm", "--step", "2", "--posterior", "v1", "--json", str(out)]) == 0
    assert "| llm |" in capsys.readouterr().out
    runs = json.loads(out.read_text())["runs"]
    assert len(runs) == 2
    for run in runs:
        assert run["target"] > 0 and run["today_labels"] > 0
        for policy in ("random", "holes", "width", "uncertain"):
            assert run[policy] is None or 0 < run[policy] <= 36  # 3 models x 12 riddles


def test_the_policies_label_different_predictions_first():
    from sideways.annotation_app.queue import Candidate

    pool = [Candidate(f"r{i}", m, p, (i % 3, 3) if i % 3 else (0, 1)) for i in range(12)
            for m, p in (("a", "openai"), ("b", "gemini"), ("c", "anthropic"))]
    right = {c.key: c.bin != (0, 1) for c in pool}
    orders = {p: label_policies.order(p, pool, right, 0, "llm", 8) for p in label_policies.POLICIES}
    assert all(len(o) == 8 and len({c.key for c in o}) == 8 for o in orders.values())
    assert orders["width"] != orders["holes"] and orders["width"] != orders["random"]
