"""What happens to the intervals as human labels arrive: the leaderboard's mean half-width against the
number of labels, from none, beside the simulated labels the project starts with.

Usage:
  python benchmarks/studies/label_widths.py [--seeds 3] [--splits llm vlm] [--counts 0 10 20 40 80 160 320]
                                            [--posterior latent] [--queue POLICY] [--quick]

One simulated run per seed and split (params.yaml's 6 models and judges, the demo riddles, the
in-process pipeline of lab.coverage, as benchmarks/studies/label_policies.py). First the mean
half-width, in points, with the default simulated labels (``annotations.share`` of each model's
predictions, a seeded sample): what a project shows before anyone labels. Then with real labels
only (``annotations.source: file``), taken in the order the annotation app's default queue
(``annotations.queue``; ``--queue`` another) gives them, each label the truth (careful annotators), at each
count of ``--counts``: what the project shows as labelling goes. Means over seeds; a few minutes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))

import pandas as pd  # noqa: E402
from label_policies import (  # noqa: E402
    FIELD,
    candidates,
    lookahead_order,
    mean_half_width,
    order,
    uncertain_order,
)

from lab.coverage import Setting, setting_params, simulate_run, split_riddles  # noqa: E402
from sideways.annotation.labels import seeded_sample, simulate_labels  # noqa: E402
from sideways.artifacts.schema import ANNOTATIONS, conform  # noqa: E402
from sideways.config.params import raw_params  # noqa: E402
from sideways.simulation.truth import truth  # noqa: E402
from sideways.sources.demo import load_demo  # noqa: E402


def widths(params, riddles: pd.DataFrame, split: str, seed: int, counts: list[int], posterior: str,
           queue: str = "lookahead") -> tuple[int, float, list[float]]:
    """(simulated labels, their mean half-width, the mean half-width at each count of real labels)."""
    predictions, judgments, jury = simulate_run(params, riddles, seed)
    by_id = riddles.set_index("riddle_id").to_dict("index")
    right = {(r, m): all(truth(by_id[r], a, j)) for r, m, a, j in
             zip(predictions["riddle_id"], predictions["model"], predictions["answer"], predictions["justification"],
                 strict=True)}
    simulated = simulate_labels(seeded_sample(predictions, params.annotations.share, seed, split), riddles, seed)
    start = mean_half_width(jury, simulated, seed, posterior, judgments, split)
    pool = candidates(jury)
    limit = min(max(counts), len(pool))
    if queue == "lookahead":
        chosen = lookahead_order(pool, jury, judgments, right, seed, split, limit)
    elif queue in ("uncertain", "latent"):
        chosen = uncertain_order(pool, jury, judgments, right, seed, split, limit=limit, policy=queue)
    else:
        chosen = order(queue, pool, right, seed, split, limit)
    index = predictions.set_index(["riddle_id", "model"])
    out = []
    for n in counts:
        sample = index.loc[[c.key for c in chosen[:n]]].reset_index()
        labels = (simulate_labels(sample, riddles, seed) if n else
                  conform(pd.DataFrame(columns=ANNOTATIONS.names), ANNOTATIONS, "no labels"))
        out.append(mean_half_width(jury, labels, seed, posterior, judgments, split))
    return len(simulated), start, out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--splits", nargs="+", default=["llm", "vlm"])
    p.add_argument("--counts", type=int, nargs="+", default=[0, 10, 20, 40, 80, 160, 320])
    p.add_argument("--posterior", default="latent")
    p.add_argument("--queue", help="the annotation app's order (default: params.yaml's annotations.queue)")
    p.add_argument("--quick", action="store_true", help="3 models, 12 riddles, 1 seed: a smoke run")
    args = p.parse_args(argv)
    base = raw_params(REPO / "params.yaml")[0]
    setting = Setting(models=3, riddles=12) if args.quick else Setting()
    params = setting_params(base, setting)
    demo = load_demo(REPO / base["riddles"]["path"])
    seeds = range(1 if args.quick else args.seeds)
    queue = args.queue or params.annotations.queue
    t0 = time.perf_counter()
    print(f"{len(params.models)} models, seeds 0..{seeds.stop - 1}, field {FIELD}, the {args.posterior} posterior's "
          f"mean half-width in points; real labels in the {queue} queue's order")
    print("| split | predictions | simulated labels (share) | " + " | ".join(f"{n} real" for n in args.counts) + " |")
    print("|---|---|---|" + "---|" * len(args.counts))
    for split in args.splits:
        riddles = split_riddles(demo, split, setting.riddles)
        runs = [widths(params, riddles, split, seed, args.counts, args.posterior, queue) for seed in seeds]
        n_sim = sum(r[0] for r in runs) / len(runs)
        sim = sum(r[1] for r in runs) / len(runs)
        real = [sum(r[2][i] for r in runs) / len(runs) for i in range(len(args.counts))]
        n_pred = len(riddles) * len(params.models)
        print(f"| {split} | {n_pred} | {sim:.1f} ({n_sim:.0f} labels) | " + " | ".join(f"{w:.1f}" for w in real) + " |")
    print(f"\n{time.perf_counter() - t0:.1f} s wall; load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
