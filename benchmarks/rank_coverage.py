"""How often the rank sets hold the true ranks: the simulated pipeline over many seeds, in-process.

Usage:
  python benchmarks/rank_coverage.py [--seeds N] [--first-seed S0] [--share S] [--models M]
                                     [--judge-quality Q] [--posterior NAME] [--replicates R]
                                     [--correlation C] [--model-spread Z] [--slip S] [--label-noise E]
                                     [--json OUT]

Per run (one seed, one split): every model answers, its panel judges, the annotators label
`share` of each model's predictions; the leaderboard's posterior (`--posterior`, default
params.yaml's) gives every model's score, and its joint draws the rank sets
(sideways.scoring.rank_sets, 95% for all models at once). The true ranks are the competition
ranks of the models' true scores on these riddles. Printed per split: the share of runs in which
every model's true rank is in its set (the stated 95%, with its binomial se), the share of
models whose true rank is in its set, the mean set size in ranks; for the rank set as every view
shows it (widened to agree with the pairwise verdicts, docs/method.md §5), the joint set before
that widening, and the rank spread (best <--> worst from overlapping intervals, §5) beside them. Runs in-process
(lab.coverage), from the bundled demo riddles and params.yaml; no DVC.
"""

from __future__ import annotations

import argparse
import math
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

from lab.coverage import Setting, setting_params, simulate_run, split_riddles  # noqa: E402
from sideways.annotation.labels import seeded_sample, simulate_labels  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.artifacts.schema import POSTERIORS  # noqa: E402
from sideways.config.params import raw_params  # noqa: E402
from sideways.scoring.calibration import score_models  # noqa: E402
from sideways.scoring.paired import evidence, version_draws  # noqa: E402
from sideways.scoring.pairwise import pairwise  # noqa: E402
from sideways.scoring.rank_sets import rank_sets  # noqa: E402
from sideways.scoring.ranking import rank_leaderboard  # noqa: E402
from sideways.simulation.truth import true_scores  # noqa: E402
from sideways.sources.demo import load_demo  # noqa: E402


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=100, help="runs (seeds) per split (default: 100)")
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--share", type=float, help="share of each model's predictions labelled (default: params.yaml's)")
    p.add_argument("--models", type=int, help="simulated models, skills spread over 0.3-0.9 (default: params.yaml's)")
    p.add_argument("--judge-quality", type=float, help="sensitivity = specificity of every judge")
    p.add_argument("--posterior", choices=POSTERIORS, help="the posterior to draw from (default: params.yaml's)")
    p.add_argument("--replicates", type=int, default=1000, help="joint draws per run (default: 1000)")
    p.add_argument("--correlation", type=float)
    p.add_argument("--model-spread", type=float)
    p.add_argument("--slip", type=float)
    p.add_argument("--label-noise", type=float)
    p.add_argument("--json", metavar="OUT")
    return p.parse_args(argv)


def competition(values: dict[str, float]) -> dict[str, int]:
    """1 + the number of models with a strictly higher value."""
    return {m: 1 + sum(w > v for w in values.values()) for m, v in values.items()}


def one_run(params: Any, riddles: pd.DataFrame, split: str, seed: int, share: float, posterior: str,
            replicates: int) -> dict[str, Any]:
    """Whether each model's true rank is in its rank set and in its rank spread, and the sets' sizes."""
    predictions, judgments, jury = simulate_run(params, riddles, seed)  # the latent posterior reads every verdict
    cal = params.calibration
    n = len(riddles)
    true = competition({m: round(s * n) for m, s in true_scores(riddles, predictions, cal.field).items()})
    labels = simulate_labels(seeded_sample(predictions, share, seed, split), riddles, seed, params.annotations.noise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the published interval's empty bins: not measured here
        scores = score_models(jury, labels, field=cal.field, method="exact", bootstrap=0, seed=seed,
                              empty_bin="nearest", interval="posterior", posterior=posterior,
                              judgments=judgments, stream=split)
    ranked = rank_leaderboard(scores)
    ev = evidence(jury, labels, cal.field, sorted(set(jury.loc[jury[f"{cal.field}_judges"] > 0, "riddle_id"])))
    joint = rank_sets(version_draws(ev, ranked, seed=seed, replicates=replicates))
    shown = {m: (lo, hi) for m, (lo, hi) in pairwise(ranked, jury, labels, replicates=replicates)["rank_sets"].items()}
    spread = {str(r.model): (int(r.best_rank), int(r.worst_rank)) for r in ranked.itertuples()}
    return {name: {"in": [lo <= true[m] <= hi for m, (lo, hi) in got.items()],
                   "size": [hi - lo + 1 for lo, hi in got.values()]}
            for name, got in zip(NAMES, (shown, joint, spread), strict=True)}


#: The rank set as every view shows it (widened to agree with the pairs), the joint set before that
#: widening, and layton-eval's rank spread.
NAMES = ("rank set", "joint set", "rank spread")


def summary(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out = {}
    for name in NAMES:
        joint = np.array([all(r[name]["in"]) for r in runs], dtype=float)
        each = np.concatenate([r[name]["in"] for r in runs]).astype(float)
        c = float(joint.mean())
        out[name] = {"joint": c, "joint_se": math.sqrt(c * (1 - c) / len(joint)), "marginal": float(each.mean()),
                     "mean_size": float(np.mean(np.concatenate([r[name]["size"] for r in runs])))}
    return out


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    base = raw_params(REPO / "params.yaml")[0]
    setting = Setting(models=args.models, judge_quality=args.judge_quality, correlation=args.correlation,
                      model_spread=args.model_spread, slip=args.slip, label_noise=args.label_noise)
    params = setting_params(base, setting)
    share = args.share if args.share is not None else params.annotations.share
    posterior = args.posterior or params.calibration.posterior
    demo = load_demo(REPO / base["riddles"]["path"])
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    results = {}
    print(f"{len(params.models)} models, share {share:g}, posterior {posterior}, {args.replicates} joint draws, "
          f"seeds {seeds.start}..{seeds.stop - 1}; {setting}")
    for split in params.splits:
        riddles = split_riddles(demo, split)
        results[split] = summary([one_run(params, riddles, split, s, share, posterior, args.replicates)
                                  for s in seeds])
        for name, s in results[split].items():
            print(f"{split:4} {name:11} every true rank inside: {100 * s['joint']:5.1f}% ± {100 * s['joint_se']:.1f}"
                  f"   each model's: {100 * s['marginal']:5.1f}%   mean size {s['mean_size']:.2f} ranks")
    seconds = time.perf_counter() - t0
    print(f"{seconds:.1f} s wall; load average {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end "
          f"({os.cpu_count()} cores)")
    if args.json:
        write_json(args.json, {"setting": vars(args), "share": share, "posterior": posterior, "results": results,
                               "seconds": round(seconds, 1)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
