"""The one place a job's name is made: reuse, the dry run and ``sideways status`` must agree on it.

A riddle job is one model on one split of a paid stage (``predict@atlas-large-llm``,
``judge@atlas-large-vlm``); an exam job is one model on the exam (``exam_predict@atlas-large``,
``exam_judge@atlas-large``). The name is what messages, journals, progress bars and the
stage's summary say; it is not a path.
"""

from __future__ import annotations

from sideways.artifacts import paths


def job_name(kind: str, model: str, split: str) -> str:
    """The name of the job of ``kind`` (predict, judge, exam_predict, exam_judge) for ``model`` on
    ``split`` (a riddle split, or :data:`~sideways.artifacts.paths.EXAM_SPLIT` for the exam)."""
    if split == paths.EXAM_SPLIT:
        return f"{kind}@{model}"
    return f"{kind}@{model}-{split}"
