"""Exams on a sample: do the intervals of a k-question sample cover each model's whole-exam score?

Usage:
  python benchmarks/subset_coverage.py (--matrix FILE | --layton FILE | --csv FILE | --world 2pl|misspecified
                                       [--models M] [--items N]) [--k 25,50,100,200] [--repeats R] [--seed S]
                                       [--json OUT] [--write-matrix FILE]

FILE is a response matrix in py-irt's JSONL layout, one line per model:
{"subject_id": "model-a", "responses": {"q1": 1, "q2": 0, ...}} (items answered by every model are
kept). --layton reads real per-item results from a layton-eval calibration file instead (each model's riddles
graded right when most of its judges said both answer and justification were right: lab.real_matrix, the reading
benchmarks/studies/exam_diff_power.py uses), --csv a wide CSV of per-item results (item,model-a,model-b,... then
one row of 0/1 per item, as benchmarks/data/chembench-all-correct.csv). --world draws a seeded matrix instead
(lab.response_worlds: a 2PL IRT world, or a misspecified one with two skills, guessing and noise items);
--write-matrix saves the matrix read or drawn.

Each model is held out in turn: the others' results give every item its ease, the held-out
model is asked k questions R times (seeded), and each estimator's 95% interval is checked against
the model's true score on the whole exam. Estimators:
  stratified_ppi  the default (sideways.exams.sample): a stratified design on ease, the
                  prediction-powered, cross-fitted estimate with the finite-population interval
  random          a simple random sample of k, its mean, the finite-population t interval
Printed and written (--json): per estimator and k, coverage (with its binomial se), mean
half-width and RMSE in points, and the number of intervals; the default's half-width against
random's at the same k. --by-model also prints the default's coverage per held-out model and k, and the share of
its intervals lying above the model's true score.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

import numpy as np  # noqa: E402

from lab import real_matrix  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.core.errors import SidewaysError  # noqa: E402
from sideways.exams.matrix import ResponseMatrix, matrix_lines  # noqa: E402
from sideways.exams.sample import Estimate, design, ease, estimate, random_estimate, strata, strata_count  # noqa: E402

DEFAULT = "stratified_ppi"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    real_matrix.add_sources(p)
    p.add_argument("--k", default="25,50,100,200", help="sample sizes, comma-separated (default: 25,50,100,200)")
    p.add_argument("--repeats", type=int, default=200, help="samples per held-out model and k (default: 200)")
    p.add_argument("--json", help="write the rows here")
    p.add_argument("--write-matrix", help="save the drawn matrix (py-irt JSONL)")
    p.add_argument("--by-model", action="store_true",
                   help="also print the default's coverage per held-out model and k (and the share above the truth)")
    return p.parse_args(argv)


def _row(name: str, k: int, estimates: list[Estimate], truths: list[float]) -> dict[str, Any]:
    covered = np.array([e.lo <= t <= e.hi for e, t in zip(estimates, truths, strict=True)])
    error = np.array([e.score - t for e, t in zip(estimates, truths, strict=True)])
    coverage = float(covered.mean())
    return {"estimator": name, "k": k, "coverage": round(coverage, 4),
            "coverage_se": round(float(np.sqrt(coverage * (1 - coverage) / len(covered))), 4),
            "half_width": round(100 * float(np.mean([e.half_width for e in estimates])), 3),
            "rmse": round(100 * float(np.sqrt(np.mean(error**2))), 3), "intervals": len(estimates)}


def measure(matrix: ResponseMatrix, ks: list[int], repeats: int, seed: int,
            by_model: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Rows per estimator and k, each model held out in turn, ``repeats`` samples each; ``by_model``, when given,
    receives the default's coverage per held-out model and k (and the share of its intervals above the truth)."""
    y = matrix.y.astype(float)
    models, items = y.shape
    rows: list[dict[str, Any]] = []
    for k in ks:
        found: dict[str, list[Estimate]] = {DEFAULT: [], "random": []}
        truths: list[float] = []
        for m in range(models):
            others = np.delete(y, m, axis=0)
            item_ease = ease(others.sum(axis=0), np.full(items, models - 1))
            for r in range(repeats):
                run_seed = int(np.random.default_rng([seed, m, r]).integers(2**31))
                stratum = strata(item_ease, strata_count(k), run_seed)
                chosen = design(item_ease, k, run_seed)
                found[DEFAULT].append(estimate(y[m, chosen], chosen, item_ease, stratum))
                drawn = np.random.default_rng([run_seed, 3]).choice(items, k, replace=False)
                found["random"].append(random_estimate(y[m, drawn], items))
                truths.append(float(y[m].mean()))
            if by_model is not None:
                mine = found[DEFAULT][-repeats:]
                by_model.append({"model": matrix.models[m], "k": k, "score": round(100 * float(y[m].mean()), 2),
                                 "coverage": round(float(np.mean([e.lo <= truths[-1] <= e.hi for e in mine])), 4),
                                 "above": round(float(np.mean([e.lo > truths[-1] for e in mine])), 4)})
        rows += [_row(name, k, found[name], truths) for name in found]
    return rows


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    except ValueError:
        print(f"--k: expected comma-separated integers, got {args.k!r}", file=sys.stderr)
        return 2
    if args.repeats < 1 or args.models < 2 or args.items < 2:
        print("--repeats must be at least 1, --models and --items at least 2", file=sys.stderr)
        return 2
    try:
        matrix, source = real_matrix.load(args)
    except (SidewaysError, OSError) as exc:
        print(exc, file=sys.stderr)
        return 2
    items = len(matrix.items)
    if not ks or ks[0] < 2 or ks[-1] > items:
        print(f"--k: each sample size must be 2 to {items} (the items every model answered)", file=sys.stderr)
        return 2
    if args.write_matrix:
        Path(args.write_matrix).write_text(matrix_lines(matrix), encoding="utf-8")
    print(f"{source}: {len(matrix.models)} models x {items} items; {args.repeats} samples per model and k")
    start = time.perf_counter()
    per_model: list[dict[str, Any]] | None = [] if args.by_model else None
    rows = measure(matrix, ks, args.repeats, args.seed, per_model)
    by = {(r["estimator"], r["k"]): r for r in rows}
    print(f"{'estimator':<16}{'k':>5}{'coverage':>10}{'se':>7}{'half-width':>12}{'rmse':>8}{'vs random':>11}")
    for r in rows:
        ratio = r["half_width"] / by[("random", r["k"])]["half_width"] if by[("random", r["k"])]["half_width"] else 0
        print(f"{r['estimator']:<16}{r['k']:>5}{100 * r['coverage']:>9.1f}%{100 * r['coverage_se']:>7.1f}"
              f"{r['half_width']:>12.2f}{r['rmse']:>8.2f}{ratio:>10.2f}x")
    print(f"({time.perf_counter() - start:.1f} s; half-width and rmse in points of the exam score)")
    for r in per_model or []:
        print(f"  {r['model'][:40]:<40}{r['k']:>5}  score {r['score']:6.2f}  covered {100 * r['coverage']:5.1f}%"
              f"  above the truth {100 * r['above']:5.1f}%")
    if args.json:
        write_json(args.json, {"default": DEFAULT, "source": source, "models": len(matrix.models), "items": items,
                               "repeats": args.repeats, "seed": args.seed, "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
