"""Per kind, what a model is asked and how the simulation answers: the one place exam code
branches on an item's kind (each kind's code lives in its own package)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from sideways.config.params import ModelSpec
from sideways.exams.mcq.prompt import prompt as mcq_prompt
from sideways.exams.mcq.sim import sim_mcq_reply
from sideways.exams.short_answer.prompts import answer_prompt
from sideways.exams.short_answer.sim import sim_short_answer
from sideways.llm.prompts import Prompt

Item = dict[str, object]

PROMPTS: dict[str, Callable[[Item], Prompt]] = {"mcq": mcq_prompt, "short_answer": answer_prompt}
SIMULATED: dict[str, Callable[[Item, ModelSpec, int], str]] = {"mcq": sim_mcq_reply,
                                                              "short_answer": sim_short_answer}
NEEDS_JUDGE = frozenset({"short_answer"})


def needs_judges(items: pd.DataFrame) -> bool:
    """Whether judges grade any item of an exam's items table: an exam of multiple choice only
    has no ``exam_judge`` job (nothing to grade) and no grades files."""
    return bool(items["kind"].isin(NEEDS_JUDGE).any())
