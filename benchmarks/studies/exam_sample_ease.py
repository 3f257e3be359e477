"""How much of a held-out model's per-item results does the ease learned from the other models explain?

Usage:
  python benchmarks/studies/exam_sample_ease.py (--matrix FILE | --layton FILE | --csv FILE
                                                 | --world 2pl|misspecified [--models M] [--items N]) [--seed S]

The exam sample's width (benchmarks/subset_coverage.py) depends on it. Each model in turn: every item's ease from
the other models (sideways.exams.sample.ease), the Rasch predictor f_i = sigmoid(theta + ease_i) with the ability
fitted on all of the model's items (the best the sample's predictor can do: its ability is fitted on the sample
alone). Printed, averaged over the models: the share of items the other models answered alike (all right or all
wrong) and how often the held-out model agreed with them there; R^2 = 1 - var(y - f) / var(y); and the variance
ratio the stratified prediction-powered estimate reaches with that predictor (5 strata on ease, proportional
allocation): sum_h W_h var_h(y - f) / var(y), whose square root is the width against a simple random sample's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab

import numpy as np  # noqa: E402

from lab import real_matrix  # noqa: E402
from sideways.core.errors import SidewaysError  # noqa: E402
from sideways.exams.matrix import ResponseMatrix  # noqa: E402
from sideways.exams.sample import STRATA, ability, ease, strata  # noqa: E402


def explained(matrix: ResponseMatrix, seed: int) -> dict[str, float]:
    """The figures of the module docstring, averaged over the held-out models."""
    y = matrix.y.astype(float)
    models, items = y.shape
    alike, agree, r2, ratio = [], [], [], []
    for m in range(models):
        right = np.delete(y, m, axis=0).sum(axis=0)
        same = (right == 0) | (right == models - 1)
        alike.append(float(same.mean()))
        if same.any():
            agree.append(float((y[m, same] == (right[same] > 0)).mean()))
        item_ease = ease(right, np.full(items, models - 1))
        f = 1 / (1 + np.exp(-(ability(y[m], item_ease) + item_ease)))
        total = float(np.var(y[m]))
        if total == 0:
            continue
        stratum = strata(item_ease, STRATA, seed)
        within = sum(float(np.mean(stratum == h)) * float(np.var((y[m] - f)[stratum == h])) for h in range(STRATA))
        r2.append(1 - float(np.var(y[m] - f)) / total)
        ratio.append(within / total)
    variance_ratio = float(np.mean(ratio))
    return {"alike": float(np.mean(alike)), "agree": float(np.mean(agree)) if agree else float("nan"),
            "r2": float(np.mean(r2)), "variance_ratio": variance_ratio, "width_ratio": float(np.sqrt(variance_ratio))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    real_matrix.add_sources(p)
    args = p.parse_args(argv)
    try:
        matrix, source_name = real_matrix.load(args)
    except (SidewaysError, OSError) as exc:
        print(exc, file=sys.stderr)
        return 2
    got = explained(matrix, args.seed)
    print(f"{source_name}: {len(matrix.models)} models x {len(matrix.items)} items, each held out")
    print(f"items the other models answered alike: {100 * got['alike']:.0f}% (the held-out model agreed on "
          f"{100 * got['agree']:.1f}% of them)")
    print(f"R^2 of the Rasch predictor on the ease: {got['r2']:.2f}; variance ratio with 5 strata: "
          f"{got['variance_ratio']:.2f} (width {got['width_ratio']:.2f}x a simple random sample's)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
