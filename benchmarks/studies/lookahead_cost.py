"""CPU seconds of the annotation app's ``lookahead`` queue: its first gains, and its update after one label.

Usage:
  python benchmarks/studies/lookahead_cost.py [--rows 100,300,1000] [--models 6] [--seed 0]

For each ``--rows`` n: a seeded pool of ``--models`` models of n predictions each (a share of the rows in each
jury-score bin as on a real file: 30% at 0 of 3 votes, 5% at 1/3 and at 2/3, 60% at 3/3; each row started at its
bin's rate), then :class:`sideways.annotation_app.lookahead.Lookahead` as the app builds it (every model's gains)
and one label's update (the labelled model's gains under the rebuilt priors: what the app's background thread does
after each label). Prints the CPU seconds (process time) of each and the load average: what sets
``LOOKAHEAD_MAX_ROWS`` in sideways.commands.annotate.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from sideways.annotation_app.lookahead import Lookahead  # noqa: E402
from sideways.annotation_app.queue import Candidate  # noqa: E402

BINS = ((0, 1), (1, 3), (2, 3), (1, 1))
SHARES = (0.30, 0.05, 0.05, 0.60)
RATES = (0.02, 0.4, 0.7, 0.98)


def pool(rows: int, models: int, seed: int) -> tuple[list[Candidate], dict[tuple[str, str], float]]:
    """``models`` models of ``rows`` predictions each, their bins drawn by SHARES, each started at its bin's rate."""
    rng = np.random.default_rng(seed)
    out, starts = [], {}
    for m in range(models):
        for r, v in enumerate(rng.choice(len(BINS), size=rows, p=SHARES)):
            c = Candidate(f"r{r:06d}", f"model-{m}", f"provider-{m % 4}", BINS[v])
            out.append(c)
            starts[c.key] = RATES[v]
    return out, starts


def cost(rows: int, models: int, seed: int) -> tuple[float, float]:
    """(CPU seconds of the first gains, of one label's update)."""
    candidates, starts = pool(rows, models, seed)
    t0 = time.process_time()
    gains = Lookahead(candidates, starts, "both_correct")
    first = time.process_time() - t0
    c = candidates[0]
    label = pd.DataFrame({"riddle_id": [c.riddle_id], "model": [c.model], "annotator": ["a"],
                          "human_answer_correct": [True], "human_justification_correct": [True]})
    t0 = time.process_time()
    gains(label)
    return first, time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", default="100,300,1000", help="predictions per model, comma-separated")
    p.add_argument("--models", type=int, default=6, help="models (default: 6)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    load = os.getloadavg()[0]
    print("| predictions per model | models | first gains, s CPU | one label's update, s CPU |")
    print("|---|---|---|---|")
    for rows in (int(x) for x in args.rows.split(",")):
        first, update = cost(rows, args.models, args.seed)
        print(f"| {rows:,} | {args.models} | {first:.2f} | {update:.2f} |")
    print(f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
