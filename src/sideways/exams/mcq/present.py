"""How a multiple-choice question is shown: choices shuffled (seeded per question), E last.

The substantive choices are shuffled with ``rng_for(seed, "exam-shuffle", item_id)``, so the
order depends on nothing but the seed and the question, and are relettered A, B, ...; with
``idk`` the option E) "I don't know" is added last. The gold letter is always a substantive one.
"""

from __future__ import annotations

import json

from sideways.core.errors import SchemaError
from sideways.core.seeding import rng_for
from sideways.exams.format import Question
from sideways.exams.mcq import IDK_LETTER, IDK_TEXT

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def present(q: Question, seed: int, idk: bool, source: str = "exam") -> tuple[list[tuple[str, str]], str]:
    """The choices as presented, ``[(letter, text), ...]``, and the gold letter among them."""
    if idk and len(q.choices) > 4:
        raise SchemaError(f"{source}: question {q.id!r}: field 'choices' has {len(q.choices)} choices; "
                          f"with exam.idk at most 4 (A-D), since {IDK_LETTER} is \"{IDK_TEXT}\"")
    order = rng_for(seed, "exam-shuffle", q.id).permutation(len(q.choices))
    shown = [(LETTERS[i], q.choices[int(j)][1]) for i, j in enumerate(order)]
    gold_index = [q.choices[int(j)][0] for j in order].index(q.answer)
    if idk:
        shown.append((IDK_LETTER, IDK_TEXT))
    return shown, LETTERS[gold_index]


def choices_of(item: dict[str, object]) -> dict[str, str]:
    """A multiple-choice item's presented choices, ``{letter: text}``."""
    value = json.loads(str(item["choices"]))
    return {str(k): str(v) for k, v in value.items()}


def offered_letters(item: dict[str, object]) -> str:
    """The letters a multiple-choice item offers, in order (``"ABCDE"``): :func:`choices_of`'s keys,
    without building the texts."""
    return "".join(str(k) for k in json.loads(str(item["choices"])))
