"""benchmarks/studies/exam_sample_ease.py: how much of a held-out model's results the other models' ease explains."""

from __future__ import annotations

import exam_sample_ease
import numpy as np

from helpers import PPI_LLM_FILE
from sideways.exams.matrix import ResponseMatrix


def _matrix(y: np.ndarray) -> ResponseMatrix:
    return ResponseMatrix(tuple(f"m{m}" for m in range(y.shape[0])), tuple(f"q{i:03d}" for i in range(y.shape[1])),
                          y.astype(np.int8))


def test_ease_explains_an_ordered_matrix_and_not_coin_flips() -> None:
    models, items = 12, 240
    rng = np.random.default_rng(3)
    ordered = np.array([[rng.random() < (0.95 if i < 20 * (m + 1) else 0.05) for i in range(items)]
                        for m in range(models)])  # model m mostly right on its first 20 (m + 1) items
    coins = rng.random((models, items)) < 0.5
    sorted_by_ease = exam_sample_ease.explained(_matrix(ordered), seed=0)
    noise = exam_sample_ease.explained(_matrix(coins), seed=0)
    assert sorted_by_ease["r2"] > 0.25 and sorted_by_ease["width_ratio"] < 0.85
    assert noise["r2"] < 0.05 and noise["width_ratio"] > 0.95
    assert 0 <= noise["alike"] < 0.01


def test_the_study_reads_the_real_file(capsys) -> None:
    assert exam_sample_ease.main(["--layton", str(PPI_LLM_FILE)]) == 0
    out = capsys.readouterr().out
    assert "9 models x 186 items" in out and "R^2 of the Rasch predictor" in out
    assert max(len(line) for line in out.splitlines()) <= 120
