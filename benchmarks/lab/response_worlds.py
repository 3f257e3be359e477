"""Seeded response matrices (models x items, 0/1) for measuring exams on a sample.

Two worlds: ``2pl``, where the sample's Rasch-style predictor is nearly right (one ability per
model, items with a difficulty and a discrimination), and ``misspecified``, where it is wrong in
three ways at once (two skills the models mix differently, a guessing floor of 1/4 as on
four-choice questions, and a tenth of the items whose result is a coin flip unrelated to skill).
An honest interval covers in both; only its width may differ.
"""

from __future__ import annotations

import numpy as np

from sideways.exams.matrix import ResponseMatrix

WORLDS = ("2pl", "misspecified")


def response_matrix(world: str, models: int, items: int, seed: int) -> ResponseMatrix:
    """A seeded ``models`` x ``items`` matrix of ``world`` (one of :data:`WORLDS`)."""
    rng = np.random.default_rng([seed, WORLDS.index(world)])
    theta = rng.normal(0.0, 1.0, models)
    b = rng.normal(0.0, 1.5, items)
    a = rng.lognormal(0.0, 0.3, items)
    if world == "2pl":
        p = 1 / (1 + np.exp(-a[None, :] * (theta[:, None] - b[None, :])))
    else:
        second = 0.4 * theta + np.sqrt(1 - 0.4**2) * rng.normal(0.0, 1.0, models)
        loads_second = rng.random(items) < 0.5
        skill = np.where(loads_second[None, :], second[:, None], theta[:, None])
        p = 0.25 + 0.75 / (1 + np.exp(-a[None, :] * (skill - b[None, :])))
        noise = rng.random(items) < 0.1
        p[:, noise] = rng.random((models, int(noise.sum())))
    y = (rng.random((models, items)) < p).astype(np.int8)
    width = len(str(models - 1))
    names = tuple(f"model-{m:0{width}d}" for m in range(models))
    width = len(str(items - 1))
    return ResponseMatrix(names, tuple(f"q{i:0{width}d}" for i in range(items)), y)
