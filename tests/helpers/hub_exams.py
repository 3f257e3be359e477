"""Small local datasets in the layouts of multiple-choice benchmarks on the hub (our own invented
questions, written here, never downloaded): GPQA's columns as a CSV file, MMLU's as Parquet with a
ClassLabel answer, lettered columns saved with ``save_to_disk``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import datasets

GPQA_FULL = ("Question", "Correct Answer", "Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3",
             "Explanation", "Record ID", "High-level domain")


def gpqa_rows(n: int, full: bool = True) -> dict[str, list[Any]]:
    """``n`` questions in GPQA's columns; with ``full`` also its id and domain columns."""
    cols: dict[str, list[Any]] = {c: [] for c in (GPQA_FULL if full else GPQA_FULL[:6])}
    for i in range(n):
        cols["Question"].append(f"Invented question {i}: which value is right?")
        cols["Correct Answer"].append(f" right {i}\n")  # the published CSV has stray whitespace
        for k in (1, 2, 3):
            cols[f"Incorrect Answer {k}"].append(f"wrong {i}.{k}")
        cols["Explanation"].append(f"Because {i}.")
        if full:
            cols["Record ID"].append(f"rec{i:03d}")
            cols["High-level domain"].append(("Physics", "Chemistry", "Biology")[i % 3])
    return cols


def write_gpqa_csv(root: Path, n: int = 12, full: bool = True, **over: list[Any]) -> Path:
    """A directory holding one CSV in GPQA's layout (read as split ``train``, as the hub's is)."""
    root.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_dict(gpqa_rows(n, full) | over).to_csv(root / "gpqa_diamond.csv", index=False)
    return root


def mmlu_rows(n: int) -> dict[str, list[Any]]:
    return {"question": [f"Invented MMLU-style question {i}?" for i in range(n)],
            "subject": [("astronomy", "virology")[i % 2] for i in range(n)],
            "choices": [[f"c{i}-{k}" for k in range(4)] for i in range(n)],
            "answer": [i % 4 for i in range(n)]}


MMLU_FEATURES = datasets.Features({"question": datasets.Value("string"), "subject": datasets.Value("string"),
                                   "choices": datasets.Sequence(datasets.Value("string")),
                                   "answer": datasets.ClassLabel(names=["A", "B", "C", "D"])})


def write_mmlu_parquet(root: Path, n: int = 8, split: str = "test") -> Path:
    """A directory laid out as the hub's Parquet conversion: ``data/<split>-00000-of-00001.parquet``."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    ds = datasets.Dataset.from_dict(mmlu_rows(n), features=MMLU_FEATURES)
    ds.to_parquet(root / "data" / f"{split}-00000-of-00001.parquet")
    return root


def lettered_rows(n: int) -> dict[str, list[Any]]:
    return {"id": [f"L{i}" for i in range(n)], "question": [f"Lettered question {i}?" for i in range(n)],
            **{letter: [f"{letter.lower()}{i}" for i in range(n)] for letter in "ABCD"},
            "answer": ["ABCD"[(i * 3) % 4] for i in range(n)]}


def write_lettered_saved(root: Path, n: int = 6, split: str = "test", as_dict: bool = True) -> Path:
    """A ``save_to_disk`` directory: a DatasetDict with ``split``, or one Dataset."""
    ds = datasets.Dataset.from_dict(lettered_rows(n))
    (datasets.DatasetDict({split: ds}) if as_dict else ds).save_to_disk(str(root))
    return root
