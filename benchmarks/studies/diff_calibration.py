"""Is `sideways diff` calibrated? Null changes and power, in simulation, in-process (docs/method.md §8).

Usage:
  python benchmarks/studies/diff_calibration.py [--seeds N] [--power-seeds N] [--scale 1 10]
                                                [--points 2 5 10] [--model atlas-mini] [--replicates B] [--json OUT]
                                                [--posterior latent|v1|hierarchical]

(a) Null changes: the same models, predictions and truth; B's judges and annotators draw with
    another seed. Prints, per split and scale, the share of rows called "no detectable change"
    (target >= 95%) and the runs with no row called.
(b) Power: B is A with --model truly better by round(points * n / 100) riddles (at least one);
    prints the share of runs whose diff calls it "up", and the other models' false calls. The
    judges and annotators keep their seeds (a rerun), or with --redraw draw with another seed too.

`--scale S`: S times the demo's riddles (renamed copies, new draws) and so S times the labels
(the label share is params.yaml's). `--posterior`: the posterior the leaderboards rank by (default:
params.yaml's); a latent or hierarchical version is scored as the calibrate stage scores it, its fit
seeded by params' seed, and the paired draws read its prior. Runs from the bundled demo riddles and
params.yaml, without DVC (lab.changes).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab


from lab.changes import null_rate, power  # noqa: E402
from lab.coverage import Setting, resize_riddles, setting_params, split_riddles  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.artifacts.schema import POSTERIORS  # noqa: E402
from sideways.config.params import raw_params  # noqa: E402
from sideways.sources.demo import load_demo  # noqa: E402


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=100, help="null diffs per split and scale (default: 100)")
    p.add_argument("--power-seeds", type=int, default=100, help="diffs per true change and scale (default: 100)")
    p.add_argument("--scale", type=int, nargs="+", default=[1, 10], help="riddle multiples (default: 1 10)")
    p.add_argument("--points", type=float, nargs="+", default=[2, 5, 10], help="true changes (default: 2 5 10)")
    p.add_argument("--model", default="atlas-mini", help="the model that improves (default: atlas-mini)")
    p.add_argument("--power-split", default="llm", help="the split of the power table (default: llm)")
    p.add_argument("--replicates", type=int, default=1000, help="paired draws per diff (default: 1000)")
    p.add_argument("--redraw", action="store_true",
                   help="power with B's judges and annotators drawing with another seed too (default: the same seeds)")
    p.add_argument("--skip-null", action="store_true", help="only the power table")
    p.add_argument("--posterior", choices=POSTERIORS, help="the posterior ranked by (default: params.yaml's)")
    p.add_argument("--json", metavar="OUT", help="also write the results to OUT")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    base = raw_params(REPO / "params.yaml")[0]
    params = setting_params(base, Setting())
    if args.posterior:
        params = replace(params, calibration=replace(params.calibration, posterior=args.posterior))
    print(f"posterior: {params.calibration.posterior}")
    demo = load_demo(REPO / base["riddles"]["path"])
    tables = {s: split_riddles(demo, s) for s in params.splits}
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    out: dict[str, Any] = {"null": [], "power": []}
    print("(a) null changes: rows called 'no detectable change'")
    for scale in [] if args.skip_null else args.scale:
        for split, table in tables.items():
            riddles = resize_riddles(table, len(table) * scale)
            r = null_rate(params, riddles, split, range(args.seeds), replicates=args.replicates)
            out["null"].append({"split": split, "scale": scale, **r})
            print(f"  {split} x{scale:<3} ({len(riddles)} riddles): {100 * r['rate']:5.1f}% of {r['rows']} rows; "
                  f"{r['runs_clean']}/{r['runs']} diffs with no row called")
    print(f"(b) power: {args.model} truly better on {args.power_split}"
          + (" (judges and annotators redrawn too)" if args.redraw else " (the same judges' and annotators' seeds)"))
    table = tables[args.power_split]
    for scale in args.scale:
        riddles = resize_riddles(table, len(table) * scale)
        for points in args.points:
            r = power(params, riddles, args.power_split, range(args.power_seeds), args.model, points,
                      replicates=args.replicates, redraw=args.redraw)
            out["power"].append({"scale": scale, **r})
            print(f"  x{scale:<3} ({len(riddles)} riddles) {points:g} points (k={r['k']}, "
                  f"{r['true_change']:.1f} points): power {100 * r['power']:5.1f}% ({r['detected']}/{r['runs']}); "
                  f"other models called {r['others_called']}/{r['others']}")
    seconds, load1 = time.perf_counter() - t0, os.getloadavg()[0]
    print(f"{seconds:.1f} s wall; load average {load0:.2f} at the start, {load1:.2f} at the end")
    if args.json:
        write_json(args.json, {"setting": vars(args), **out, "seconds": round(seconds, 1)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
