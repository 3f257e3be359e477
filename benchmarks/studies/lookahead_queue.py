"""Does a label queue whose gain is the latent posterior's own expected half-width drop beat ``width`` on a real file?

Usage:
  python benchmarks/studies/lookahead_queue.py [--file F] [--split llm] [--shares 0.375,0.4375,0.5] [--repeats 10]
                                               [--seed 0] [--min-labels 50] [--gain half_width|sd] [--json OUT]

The queue (lab.lookahead): the latent-class model fitted once on the file's verdicts alone (no label, as the app
has it at the start; the sampler's stream is the app's queue stream), each labelled prediction started at its
P(right); then, greedily, the (model, jury-score bin) whose next label is expected to narrow the model's latent
95% interval most (the latent posterior's step 3 with those starts held fixed, the labels so far taken as the
truth; docs/method.md §6) gives its unlabelled row of the lowest riddle id, answered by the file's label.
``--gain sd`` ranks by the expected drop of the count's posterior sd instead (the smooth proxy).

Measured in real_coverage.py's ``--order`` protocol: the population is the file's labelled predictions, each share
keeps the queue's first round(share x labels) labels (one deterministic order: the queue has no coin), and each of
``--repeats`` repeats computes the latent interval (real_coverage.latent_intervals, its sampler's stream per
repeat) of every measured model. Prints the time of each decision, the labels each model and bin received, and the
coverage and mean half-width per share; ``--json OUT`` writes {"default", "rows": [{"interval", "share", "labels",
"coverage", "coverage_se", "half_width", "intervals"}], "seconds_per_label"}. Seeded: the same arguments give the
same output (but the timings).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab
sys.path.insert(0, str(REPO / "benchmarks" / "studies"))  # real_coverage: its population and latent intervals

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import real_coverage  # noqa: E402

from lab import lookahead  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.config.params import CalibrationParams  # noqa: E402
from sideways.scoring.calibration import jury_bins  # noqa: E402


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--file", default=str(real_coverage.DEFAULT_FILE), help="a layton-eval-ppi file")
    p.add_argument("--split", default="llm", help="the split to read when the file has a split column")
    p.add_argument("--shares", default="0.375,0.4375,0.5", help="label shares kept, comma-separated")
    p.add_argument("--repeats", type=int, default=10, help="repeats of the latent interval per share (default: 10)")
    p.add_argument("--seed", type=int, default=0, help="the seed of the fit and the samplers")
    p.add_argument("--min-labels", type=int, default=50, help="models with at least this many labels are measured")
    p.add_argument("--gain", default="half_width", choices=lookahead.GAINS,
                   help="what ranks first: the expected drop of the half-width after one label (default), after up "
                   "to 8 in the cell, per label (steps), or of the count's sd (sd)")
    p.add_argument("--json", metavar="OUT", help="also write the figures to OUT")
    return p.parse_args(argv)


def starts(pop: real_coverage.Population, seed: int, split: str) -> np.ndarray:
    """Each population row's P(right) by the latent-class model fitted on the file's verdicts alone."""
    start = lookahead.verdict_starts(pop.jury, pop.tables.judgments, pop.field, seed, split)
    keys = zip(pop.rows["riddle_id"].astype(str), pop.rows["model"].astype(str), strict=True)
    got = [start.get(key) for key in keys]
    if any(p is None for p in got):
        raise SystemExit("a labelled prediction has no latent-class prediction")
    return np.array(got, dtype=float)


def pool_of(pop: real_coverage.Population, predicted: np.ndarray) -> tuple[lookahead.Pool, list[bool]]:
    """The queue's pool (the population rows, unlabelled) and each row's label on the field."""
    rows = pop.rows
    bins = jury_bins(rows[f"{pop.field}_votes"].to_numpy(), rows[f"{pop.field}_judges"].to_numpy())
    truth = rows[["riddle_id", "model"]].merge(pop.labels[["riddle_id", "model", f"human_{pop.field}"]],
                                               on=["riddle_id", "model"], how="left")[f"human_{pop.field}"]
    pool = lookahead.Pool(rows["model"].astype(str).tolist(), rows["provider"].astype(str).tolist(),
                          [(int(v), int(j)) for v, j in bins], [float(p) for p in predicted],
                          rows["riddle_id"].astype(str).tolist())
    return pool, [bool(x) for x in truth]


def timed_order(pool: lookahead.Pool, truth: list[bool], k: int, gain: str = "half_width",
                ) -> tuple[list[int], list[float]]:
    """The first ``k`` rows of :func:`lab.lookahead.queue`, with the CPU seconds before each (the first: the
    first ranking of every cell; then one label's update and decision)."""
    chosen: list[int] = []
    seconds: list[float] = []
    t0 = time.process_time()
    for i in lookahead.queue(pool, truth, gain):
        seconds.append(time.process_time() - t0)
        chosen.append(i)
        if len(chosen) >= k:
            break
        t0 = time.process_time()
    return chosen, seconds


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    shares = [float(s) for s in args.shares.split(",")]
    pop = real_coverage.population(args.file, args.split, args.min_labels)
    k_max = max(max(1, round(s * len(pop.labels))) for s in shares)
    pool, truth = pool_of(pop, starts(pop, args.seed, args.split))
    chosen, seconds = timed_order(pool, truth, k_max, args.gain)
    print(f"{args.file}: {len(pop.labels)} labelled predictions, {len(pop.truth)} models measured; "
          f"lookahead order ({args.gain} gain) of {len(chosen)} labels: first ranking {seconds[0]:.2f} s CPU, then "
          f"{np.mean(seconds[1:]):.3f} s CPU a label (max {max(seconds[1:]):.3f})")
    rows: list[dict[str, Any]] = []
    for share in shares:
        k = max(1, round(share * len(pop.labels)))
        picked = chosen[:k]
        got = Counter((pool.models[i], pool.bins[i]) for i in picked)
        split = {key: n for key, n in got.items() if 0 < key[1][0] < key[1][1]}
        print(f"share {share:g} ({k} labels): {sum(split.values())} in split bins; labels per model and bin:")
        for model in sorted({m for m, _ in got}):
            print(f"  {model}: " + ", ".join(f"{b[0]}/{b[1]} {n}" for (m, b), n in sorted(got.items()) if m == model))
        keys = pd.DataFrame({"riddle_id": [pool.riddles[i] for i in picked], "model": [pool.models[i] for i in picked]})
        kept = pop.labels.merge(keys, on=["riddle_id", "model"]).reset_index(drop=True)
        tally = real_coverage.Tally()
        for r in range(args.repeats):
            by_model = real_coverage.latent_intervals(pop, kept, args.seed, f"{share}/{r}", ["latent"])["latent"]
            for model, (lo, hi) in by_model.items():
                tally.add(model, lo <= pop.truth[model] <= hi, (hi - lo) / 2)
        rows.append(tally.row("latent", share) | {"labels": k})
    print("| labels kept (share) | coverage % ± se | mean half-width (points) | intervals |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['labels']} ({r['share']:g}) | {100 * r['coverage']:.1f} ± {100 * r['coverage_se']:.1f} | "
              f"{r['half_width']:.2f} | {r['intervals']} |")
    low = {r["share"]: {m: c for m, c in r["models"].items() if c < 0.94} for r in rows}
    for share, models in low.items():
        if models:
            print(f"  covered less than 94% at {share:g}: "
                  + ", ".join(f"{m} {100 * c:.0f}%" for m, c in models.items()))
    if args.json:
        keep = ("interval", "share", "labels", "coverage", "coverage_se", "half_width", "intervals")
        write_json(args.json, {"default": CalibrationParams().posterior,
                               "rows": [{k: r[k] for k in keep} for r in rows],
                               "gain": args.gain, "seconds_per_label": float(np.mean(seconds[1:]))})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
