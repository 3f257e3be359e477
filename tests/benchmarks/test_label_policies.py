"""benchmarks/studies/label_policies.py: labels each annotation queue needs to reach today's mean half-width."""

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
        for policy in ("random", "holes", "width", "uncertain", "latent", "lookahead"):
            assert run[policy] is None or 0 < run[policy] <= 36  # 3 models x 12 riddles


def test_the_policies_label_different_predictions_first():
    from sideways.annotation_app.queue import Candidate

    pool = [Candidate(f"r{i}", m, p, (i % 3, 3) if i % 3 else (0, 1)) for i in range(12)
            for m, p in (("a", "openai"), ("b", "gemini"), ("c", "anthropic"))]
    right = {c.key: c.bin != (0, 1) for c in pool}
    orders = {p: label_policies.order(p, pool, right, 0, "llm", 8) for p in label_policies.POLICIES
              if p != "lookahead"}  # the app's queues and random; lookahead needs the verdicts (below)
    assert all(len(o) == 8 and len({c.key for c in o}) == 8 for o in orders.values())
    assert orders["width"] != orders["holes"] and orders["width"] != orders["random"]


def test_the_latent_order_is_the_apps_latent_queue_and_differs_from_width():
    from lab.coverage import Setting, setting_params, simulate_run, split_riddles
    from sideways.annotation_app.queue import Candidate

    base = label_policies.raw_params(label_policies.REPO / "params.yaml")[0]
    params = setting_params(base, Setting(models=3, riddles=12))
    demo = label_policies.load_demo(label_policies.REPO / base["riddles"]["path"])
    riddles = split_riddles(demo, "llm", 12)
    predictions, judgments, jury = simulate_run(params, riddles, 0)
    pool: list[Candidate] = label_policies.candidates(jury)
    right = {c.key: i % 3 == 0 for i, c in enumerate(pool)}
    latent = label_policies.uncertain_order(pool, jury, judgments, right, 0, "llm", limit=12, policy="latent")
    assert latent == label_policies.uncertain_order(pool, jury, judgments, right, 0, "llm", limit=12, policy="latent")
    assert len({c.key for c in latent}) == 12
    assert latent != label_policies.order("width", pool, right, 0, "llm", 12)


def test_the_lookahead_order_labels_every_prediction_once_the_same_way_twice():
    from lab.coverage import Setting, setting_params, simulate_run, split_riddles

    base = label_policies.raw_params(label_policies.REPO / "params.yaml")[0]
    params = setting_params(base, Setting(models=3, riddles=12))
    demo = label_policies.load_demo(label_policies.REPO / base["riddles"]["path"])
    predictions, judgments, jury = simulate_run(params, split_riddles(demo, "llm", 12), 0)
    pool = label_policies.candidates(jury)
    right = {c.key: i % 3 == 0 for i, c in enumerate(pool)}
    first = label_policies.lookahead_order(pool, jury, judgments, right, 0, "llm")
    assert sorted(c.key for c in first) == sorted(c.key for c in pool)
    assert first == label_policies.lookahead_order(pool, jury, judgments, right, 0, "llm")
    assert first[:12] != label_policies.order("width", pool, right, 0, "llm", 12)
