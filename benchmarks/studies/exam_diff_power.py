"""The paired exam diff (`sideways diff`, `sideways diff-runs`): how often it calls a change between two runs of
an identical model, and how often it sees a real one of 2, 5 and 10 points.

Usage:
  python benchmarks/studies/exam_diff_power.py (--matrix FILE | --layton FILE | --world 2pl|misspecified)
                                               [--models M] [--items N] [--deltas 2,5,10] [--repeats R] [--seed S]
                                               [--json OUT]

The per-item results are real when they come from a file: --matrix reads a response matrix in py-irt's
JSONL layout (as benchmarks/subset_coverage.py), --layton a layton-eval calibration file (each model's
riddles graded right when most of its judges said both answer and justification were right). --world draws
a seeded simulated matrix instead (lab.response_worlds).

Settings fixed before the run. Each model in turn: every item's ease from the other models' results
(sideways.exams.sample.ease), the model's ability fitted on its own results (sideways.exams.sample.ability),
so each item has a probability p_i of being right under a Rasch model. A run is one Bernoulli draw per item:
  null     runs A and B both drawn from p_i (an identical model run twice, each answer drawn anew: the
           noisiest rerun; a rerun at temperature 0 changes fewer answers);
  +D       B drawn with the ability moved so that the mean of p_i rises by D points.
Each pair goes through the diff's own estimator (sideways.exams.changes.paired_values: the paired change,
clustered by question, Student's t), and a change is called when its 95% interval excludes 0. Printed and
written (--json): per row, the share of pairs called (with its binomial se), the share called up, the mean
MDE, and the number of pairs.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from lab import real_matrix  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.core.errors import SidewaysError  # noqa: E402
from sideways.exams.changes import paired_values  # noqa: E402
from sideways.exams.matrix import ResponseMatrix  # noqa: E402
from sideways.exams.sample import ability, ease  # noqa: E402

FloatArray = np.ndarray


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    real_matrix.add_sources(p, csv_too=False)
    p.add_argument("--deltas", default="2,5,10", help="true changes in points, comma-separated (default: 2,5,10)")
    p.add_argument("--repeats", type=int, default=200, help="pairs of runs per model and row (default: 200)")
    p.add_argument("--json", help="write the rows here")
    return p.parse_args(argv)


def _sigmoid(x: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(x, -30, 30))), dtype=float)


def shifted(theta: float, item_ease: FloatArray, delta: float) -> FloatArray:
    """Each item's probability when the ability moves so that their mean rises by ``delta`` (a share)."""
    target = float(np.mean(_sigmoid(theta + item_ease))) + delta
    lo, hi = theta, theta + 40.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if float(np.mean(_sigmoid(mid + item_ease))) < target else (lo, mid)
    return _sigmoid((lo + hi) / 2 + item_ease)


def _frame(x: FloatArray, ids: pd.Index) -> pd.DataFrame:
    return pd.DataFrame({"x": x, "w": 1.0, "topic": "", "right": x >= 0.5}, index=ids)


def measure(matrix: ResponseMatrix, deltas: list[float], repeats: int, seed: int) -> list[dict[str, Any]]:
    """One row for the null and one per delta (points), each over every model and ``repeats`` pairs of runs."""
    y = matrix.y.astype(float)
    models, items = y.shape
    ids = pd.Index(list(matrix.items))
    rows = []
    for delta in [0.0, *deltas]:
        called = up = 0
        mdes: list[float] = []
        skipped = 0
        for m in range(models):
            item_ease = ease(np.delete(y, m, axis=0).sum(axis=0), np.full(items, models - 1))
            theta = ability(y[m], item_ease)
            p_a = _sigmoid(theta + item_ease)
            if float(np.mean(p_a)) + delta / 100 >= 1.0:
                skipped += 1
                continue
            p_b = p_a if delta == 0 else shifted(theta, item_ease, delta / 100)
            rng = np.random.default_rng([seed, m, int(round(100 * delta))])
            for _ in range(repeats):
                a = (rng.random(items) < p_a).astype(float)
                b = (rng.random(items) < p_b).astype(float)
                got = paired_values(_frame(a, ids), _frame(b, ids))
                if got is None or not math.isfinite(got["se"]):
                    continue
                called += got["lo"] > 0 or got["hi"] < 0
                up += got["lo"] > 0
                mdes.append(got["mde"])
        n = len(mdes)
        share = called / n if n else math.nan
        rows.append({"delta": delta, "pairs": n, "called": round(share, 4),
                     "called_se": round(math.sqrt(share * (1 - share) / n), 4) if n else None,
                     "called_up": round(up / n, 4) if n else None,
                     "mde": round(float(np.mean(mdes)), 2) if n else None, "models_skipped": skipped})
    return rows


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        deltas = [float(d) for d in args.deltas.split(",") if d.strip()]
    except ValueError:
        print(f"--deltas: expected comma-separated numbers, got {args.deltas!r}", file=sys.stderr)
        return 2
    if args.repeats < 1 or any(not 0 < d < 100 for d in deltas):
        print("--repeats must be at least 1 and each delta within (0, 100) points", file=sys.stderr)
        return 2
    try:
        matrix, source = real_matrix.load(args)
    except (SidewaysError, OSError) as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"{source}: {len(matrix.models)} models x {len(matrix.items)} items; {args.repeats} pairs of runs a model")
    start = time.perf_counter()
    rows = measure(matrix, deltas, args.repeats, args.seed)
    print(f"{'true change':<13}{'pairs':>7}{'called':>9}{'se':>7}{'called up':>11}{'mean MDE':>10}")
    for r in rows:
        name = "null" if r["delta"] == 0 else f"+{r['delta']:g} points"
        print(f"{name:<13}{r['pairs']:>7}{100 * r['called']:>8.1f}%{100 * (r['called_se'] or 0):>7.1f}"
              f"{100 * (r['called_up'] or 0):>10.1f}%{r['mde'] or 0:>10.2f}")
    print(f"({time.perf_counter() - start:.1f} s; MDE in points: the smallest change seen with 80% power)")
    if args.json:
        write_json(args.json, {"source": source, "models": len(matrix.models), "items": len(matrix.items),
                               "repeats": args.repeats, "seed": args.seed, "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
