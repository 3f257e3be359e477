"""The one place a job's name is made: reuse, the dry run and ``sideways status`` must agree on it.

A job is one model on one benchmark of a paid stage: a riddle split (``predict@atlas-large+llm``,
``judge@atlas-large+vlm``) or an exam by its key (``exam_predict@atlas-large+demo``,
``exam_judge@atlas-large+demo``). The name is what messages, journals, progress bars and the
stage's summary say; it is not a path. ``+`` separates the model from the benchmark because no
key may contain it (model keys and exam keys are slugs of letters, digits, ``-`` and ``_``): with
``-``, models ``m`` and ``m-x`` taking exams ``x-y`` and ``y`` made two jobs ``exam_predict@m-x-y``.
"""

from __future__ import annotations

from dataclasses import replace

from sideways.config.params import ModelSpec


def job_name(kind: str, model: str, benchmark: str) -> str:
    """The name of the job of ``kind`` (predict, judge, exam_predict, exam_judge) for ``model`` on
    ``benchmark`` (a riddle split or an exam key)."""
    return f"{kind}@{model}+{benchmark}"


def as_fingerprinted(model: ModelSpec) -> ModelSpec:
    """``model`` as a job's inputs fingerprint sees it: without ``takes``, so adding a benchmark to a
    model runs only that benchmark's jobs and reuses the others'."""
    return replace(model, takes=None)
