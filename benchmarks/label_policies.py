"""How many human labels each annotation queue needs to reach today's mean half-width (issue 30).

Usage:
  python benchmarks/label_policies.py [--seeds N] [--first-seed S0] [--splits llm vlm] [--json OUT] [--quick]

One simulated run per seed and split (params.yaml's 6 models and judges, the demo riddles, the
in-process pipeline of sideways.testing.coverage). Three policies order the predictions to label:

- `random`: a seeded shuffle (what labelling a random sample does);
- `holes`: the annotation app's queue before issue 30 (empty jury-score bins first, then spread);
- `width`: the app's queue now: the label expected to narrow the posterior intervals most.

The queues are the app's own (`sideways.annotation_app.queue.next_item`, one annotator, labels = the
simulated truth). The target is today's mean half-width: the v1 posterior interval with the
pipeline's default labels (`annotations.share` 0.5, the seeded sample), averaged over the models.
For each policy the script finds the fewest labels after which the leaderboard's mean half-width,
by the hierarchical posterior interval (the narrower one), is at or under that target (checked every
`step` labels), and prints the mean over seeds and the saving against random.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402

from sideways.annotation.labels import seeded_sample, simulate_labels  # noqa: E402
from sideways.annotation.log import Event  # noqa: E402
from sideways.annotation_app.queue import Candidate, Plan, next_item  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.config.params import Params  # noqa: E402
from sideways.scoring.calibration import jury_bins, score_models  # noqa: E402
from sideways.simulation.truth import truth  # noqa: E402
from sideways.sources.demo import load_demo  # noqa: E402
from sideways.testing.coverage import Setting, resize_riddles, setting_params, simulate_split, slim_riddles  # noqa: E402

POLICIES = ("random", "holes", "width")
FIELD = "both_correct"


def candidates(jury: pd.DataFrame) -> list[Candidate]:
    """Every prediction with a jury score for the field, as the app's queue sees it."""
    scored = jury[jury[f"{FIELD}_judges"] > 0]
    bins = jury_bins(scored[f"{FIELD}_votes"].to_numpy(), scored[f"{FIELD}_judges"].to_numpy())
    return [Candidate(r, m, p, b) for r, m, p, b in
            zip(scored["riddle_id"], scored["model"], scored["provider"], bins, strict=True)]


def order(policy: str, pool: list[Candidate], right: dict[tuple[str, str], bool], seed: int, split: str,
          limit: int) -> list[Candidate]:
    """The first ``limit`` predictions ``policy`` has labelled, in order."""
    if policy == "random":
        return [pool[i] for i in np.random.default_rng(seed).permutation(len(pool))[:limit]]
    plan = Plan(seed, split, len(pool), 0.0, policy=policy, field=FIELD)
    events: list[Event] = []
    chosen: list[Candidate] = []
    while len(chosen) < limit:
        c = next_item(plan, pool, events, "sim")
        if c is None:
            break
        chosen.append(c)
        ok = right[c.key]
        events.append(Event("label", c.riddle_id, c.model, "sim", len(events) + 1,
                            {"human_answer_correct": ok, "human_justification_correct": ok}))
    return chosen


def mean_half_width(jury: pd.DataFrame, labels: pd.DataFrame, seed: int, posterior: str) -> float:
    """The leaderboard's mean posterior half-width in points."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = score_models(jury, labels, field=FIELD, method="exact", bootstrap=1, seed=seed,
                              empty_bin="nearest", interval="posterior", posterior=posterior)
    return 100 * float(scores["posterior_half_width"].mean())


def labels_needed(chosen: list[Candidate], predictions: pd.DataFrame, riddles: pd.DataFrame, jury: pd.DataFrame,
                  seed: int, target: float, step: int) -> int | None:
    """The fewest labels (a multiple of ``step``) of ``chosen`` whose mean half-width is <= ``target``."""
    index = predictions.set_index(["riddle_id", "model"])
    for n in range(step, len(chosen) + step, step):
        keys = [c.key for c in chosen[:n]]
        sample = index.loc[keys].reset_index()
        if mean_half_width(jury, simulate_labels(sample, riddles, seed), seed, "hierarchical") <= target:
            return min(n, len(chosen))
    return None


def one_run(params: Params, riddles: pd.DataFrame, split: str, seed: int, step: int) -> dict[str, Any]:
    """Target and labels needed per policy, for one seed and split."""
    predictions, jury = simulate_split(params, riddles, seed)
    by_id = riddles.set_index("riddle_id").to_dict("index")
    right = {(r, m): all(truth(by_id[r], a, j)) for r, m, a, j in
             zip(predictions["riddle_id"], predictions["model"], predictions["answer"], predictions["justification"],
                 strict=True)}
    today = simulate_labels(seeded_sample(predictions, params.annotations.share, seed, split), riddles, seed)
    target = mean_half_width(jury, today, seed, "v1")
    pool = candidates(jury)
    out: dict[str, Any] = {"split": split, "seed": seed, "target": target, "today_labels": len(today)}
    for policy in POLICIES:
        chosen = order(policy, pool, right, seed, split, len(pool))
        out[policy] = labels_needed(chosen, predictions, riddles, jury, seed, target, step)
    return out


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--splits", nargs="+", default=["llm", "vlm"])
    p.add_argument("--step", type=int, default=3, help="check the half-width every STEP labels (default 3)")
    p.add_argument("--quick", action="store_true", help="3 models, 12 riddles, 2 seeds: a smoke run for the tests")
    p.add_argument("--json", metavar="OUT")
    return p.parse_args(argv)


def _summary(runs: list[dict[str, Any]], split: str) -> str:
    mine = [r for r in runs if r["split"] == split]
    done = {p: [r[p] for r in mine if r[p] is not None] for p in POLICIES}
    mean = {p: (sum(v) / len(v) if v else float("nan")) for p, v in done.items()}
    cells = " | ".join(f"{mean[p]:.1f} ({len(done[p])}/{len(mine)})" for p in POLICIES)
    saving = 1 - mean["width"] / mean["random"] if mean["random"] else float("nan")
    today = sum(r["today_labels"] for r in mine) / len(mine)
    target = sum(r["target"] for r in mine) / len(mine)
    return f"| {split} | {target:.2f} | {today:.1f} | {cells} | {100 * saving:.0f}% |"


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    base = yaml.safe_load((REPO / "params.yaml").read_text())
    setting = Setting(models=3, riddles=12) if args.quick else Setting()
    params = setting_params(base, setting)
    demo = load_demo(REPO / base["riddles"]["path"])
    seeds = range(args.first_seed, args.first_seed + (2 if args.quick else args.seeds))
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    runs = []
    for split in args.splits:
        riddles = resize_riddles(slim_riddles(demo[demo["split"] == split].sort_values("riddle_id")), setting.riddles)
        runs += [one_run(params, riddles, split, seed, args.step) for seed in seeds]
    print(f"{len(params.models)} models, seeds {seeds.start}..{seeds.stop - 1}, "
          f"half-width checked every {args.step} labels")
    print("| split | target: today's mean half-width (v1, share 0.5) | today's labels | labels to reach it: random "
          "| holes (the old queue) | width (the new queue) | width saves vs random |")
    print("|---|---|---|---|---|---|---|")
    for split in args.splits:
        print(_summary(runs, split))
    seconds = time.perf_counter() - t0
    print(f"\n{seconds:.1f} s wall; load average {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
    if args.json:
        write_json(args.json, {"runs": runs, "seconds": round(seconds, 1)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
