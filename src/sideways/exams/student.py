"""Student's t, two-sided, computed numerically (no SciPy): the exams' intervals and comparisons."""

from __future__ import annotations

import functools
import math

import numpy as np


def t_sf2(t: float, df: int) -> float:
    """Two-sided p-value P(|T| >= |t|) of Student's t with ``df`` degrees of freedom (numerical)."""
    if not math.isfinite(t):
        return 0.0 if abs(t) == math.inf else 1.0
    x = np.linspace(0.0, abs(t), 4001)
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    pdf = np.exp(log_c - (df + 1) / 2 * np.log1p(x * x / df))
    inner = float(np.sum((pdf[1:] + pdf[:-1]) / 2 * np.diff(x)))
    return float(min(1.0, max(0.0, 1.0 - 2.0 * inner)))


@functools.cache
def t_quantile(level: float, df: int) -> float:
    """The two-sided critical value: |t| with P(|T| >= |t|) = 1 - level (bisection on :func:`t_sf2`;
    cached: every pair of an exam with the same number of clusters shares it)."""
    lo, hi = 0.0, 1000.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_sf2(mid, df) > 1 - level else (lo, mid)
    return (lo + hi) / 2
