"""Which columns of a Hugging Face dataset make a multiple-choice question: ``columns:`` and ``preset:``.

Three ways to give the choices, exactly one per exam:

- ``choices``: one list column (MMLU's ``choices``), with ``answer`` the correct one;
- ``options``: several columns, lettered A, B, ... in the order given (``[A, B, C, D]``), with ``answer``;
- ``correct`` and ``incorrect``: the correct answer's text in one column and the wrong ones in
  others (GPQA's ``Correct Answer``, ``Incorrect Answer 1`` to ``3``); no ``answer`` column.

``answer_format`` says how ``answer`` is written: ``index`` (0, 1, ...; a ClassLabel reads as its
index), ``letter`` (A, B, ...) or ``text`` (the correct choice's text). ``id`` and ``topic`` are
optional columns (absent: ``<split>-<row index>`` and the dataset's name).

Presets, from the dataset cards (read for issue 28):

- ``gpqa``: ``Idavidrein/gpqa`` (gated; configs ``gpqa_diamond``, ``gpqa_main``, ``gpqa_extended``,
  one split ``train``): ``Question``, ``Correct Answer``, ``Incorrect Answer 1`` to ``3``; the full
  files also hold ``Record ID`` and ``High-level domain`` (Physics, Chemistry, Biology), used as id
  and topic when present.
- ``mmlu``: ``cais/mmlu`` (configs ``all`` or one subject; splits ``test``, ``validation``, ``dev``):
  ``question``, ``subject``, ``choices`` (a list of four strings), ``answer`` (a ClassLabel A-D,
  read as its index 0-3). ``subject`` is the topic when present.
- ``lettered``: one column per choice, ``A`` to ``D``, and ``answer`` a letter (the layout of many
  exports); ``id`` and ``subject`` used when present.

A preset's ``id`` and ``topic`` are *soft*: used when the dataset has them. ``columns:`` given
beside a preset overrides its keys, and a column named there must exist.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from sideways.config import checks
from sideways.core.errors import ParamsError

AnswerFormat = Literal["index", "letter", "text"]
ANSWER_FORMATS: tuple[AnswerFormat, ...] = ("index", "letter", "text")
COLUMN_KEYS = ("question", "choices", "options", "correct", "incorrect", "answer", "answer_format", "id", "topic")


@dataclass(frozen=True)
class HubColumns:
    """The column mapping, resolved (preset and overrides merged)."""

    question: str = "question"
    choices: str | None = None
    options: tuple[str, ...] = ()
    correct: str | None = None
    incorrect: tuple[str, ...] = ()
    answer: str | None = None
    answer_format: AnswerFormat = "index"
    id: str | None = None
    topic: str | None = None
    soft: frozenset[str] = frozenset()  # of id and topic: used only when the dataset has the column


PRESETS: dict[str, HubColumns] = {
    "gpqa": HubColumns(question="Question", correct="Correct Answer",
                       incorrect=("Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3"),
                       id="Record ID", topic="High-level domain", soft=frozenset({"id", "topic"})),
    "mmlu": HubColumns(question="question", choices="choices", answer="answer", answer_format="index",
                       topic="subject", soft=frozenset({"topic"})),
    "lettered": HubColumns(question="question", options=("A", "B", "C", "D"), answer="answer",
                           answer_format="letter", id="id", topic="subject", soft=frozenset({"id", "topic"})),
}


def parse_columns(preset: Any, columns: Any, where: str) -> HubColumns:
    """The mapping of ``preset`` (a name of :data:`PRESETS`, or None) with ``columns`` over it."""
    base = HubColumns()
    if preset is not None:
        base = PRESETS[checks.choice(preset, tuple(PRESETS), f"{where}.preset")]
    given = checks.mapping(columns, f"{where}.columns", optional=True)
    checks.known_keys(given, COLUMN_KEYS, f"{where}.columns")
    if preset is None and not given:
        raise ParamsError(f"{where}: source hf needs a preset ({', '.join(PRESETS)}) or a columns mapping")
    merged = replace(base, **{k: _value(k, v, f"{where}.columns.{k}") for k, v in given.items()},
                     soft=base.soft - set(given))
    _check_layout(merged, f"{where}.columns")
    return merged


def _value(key: str, value: Any, where: str) -> Any:
    if key in ("options", "incorrect"):
        if not isinstance(value, list) or not value:
            raise ParamsError(f"{where}: expected a non-empty list of column names, got {value!r}")
        return tuple(checks.string(v, f"{where}[{i}]") for i, v in enumerate(value))
    if key == "answer_format":
        return checks.choice(value, ANSWER_FORMATS, where)
    return checks.optional_string(value, where)


def _check_layout(c: HubColumns, where: str) -> None:
    """Exactly one way to give the choices, with the answer column it needs."""
    ways = [name for name, given in (("choices", c.choices), ("options", c.options), ("correct", c.correct))
            if given]
    if len(ways) != 1:
        raise ParamsError(f"{where}: give the choices one way, as choices (a list column), options (several "
                          f"columns) or correct with incorrect; got {', '.join(ways) or 'none'}")
    if c.correct is not None:
        if not c.incorrect:
            raise ParamsError(f"{where}.incorrect: correct needs the incorrect answers' columns")
        if c.answer is not None:
            raise ParamsError(f"{where}.answer: with correct and incorrect the answer is the correct column; "
                              "leave answer out")
    elif c.incorrect:
        raise ParamsError(f"{where}.incorrect: incorrect goes with correct (GPQA's layout), not with {ways[0]}")
    elif c.answer is None:
        raise ParamsError(f"{where}.answer: {ways[0]} needs the column holding the answer")
    if c.options and len(c.options) < 2:
        raise ParamsError(f"{where}.options: at least two choice columns, got {list(c.options)}")
