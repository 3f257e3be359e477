"""One exam of ``exams:`` read from where its spec says: the notebook's JSON or a Hugging Face dataset
(an imported exam, whose questions come with its runs' answers, is read by :mod:`sideways.imports.exam`).

The one place that branches on ``source``, so the stage that builds an exam's items table
calls :func:`load_exam_spec` and never knows which it was. Relative paths (a JSON file, a local
dataset directory) are read from ``root``, the project's directory; a dataset that is not a
directory under ``root`` is a hub id.
"""

from __future__ import annotations

from pathlib import Path

from sideways.config.exam import ExamSpec
from sideways.exams.format import Exam, load_exam
from sideways.exams.hub import load_hub_exam


def load_exam_spec(spec: ExamSpec, root: str | Path = ".", cache_dir: str | Path | None = None) -> Exam:
    """The exam ``spec`` describes; ``cache_dir`` is where ``datasets`` caches (its default if None)."""
    root = Path(root)
    if spec.source == "json":
        assert spec.path is not None  # parse_exams requires it for source json
        return load_exam(root / spec.path)
    assert spec.source == "hf"  # an imported exam's tables come from its runs (sideways.imports.exam)
    assert spec.dataset is not None and spec.split is not None and spec.columns is not None  # parse_exams
    local = root / spec.dataset
    dataset = str(local) if local.is_dir() else spec.dataset
    return load_hub_exam(dataset, spec.split, spec.columns, config=spec.config, revision=spec.revision,
                         cache_dir=cache_dir)


def describe(spec: ExamSpec) -> str:
    """How messages name where exam ``spec`` comes from: its file, or its dataset, config and split."""
    if spec.source == "json":
        return str(spec.path)
    if spec.source == "imported":
        return f"imported runs {', '.join(path for _, path in spec.runs)}"
    return f"hf dataset {spec.dataset} ({spec.config or 'default'}, split {spec.split})"
