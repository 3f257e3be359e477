"""What the extract stage adds to each wiki riddle, and the offline heuristic that does it.

Real puzzle pages have no answer field: the answer sits inside the solution text (the
"Correct" section), which opens with the game's win line ("You did it!", "Correct!"). For
each riddle the extract stage produces the final answer, a gold justification and two flags:
``needs_game_engine`` (an interactive puzzle: drag, draw, arrange on screen; the game checks
it, so there is no answer to grade) and ``needs_image``. A model can do this
(:mod:`sideways.llm.extract_requests`); this module is the deterministic default, which finds an
answer only where the text states it ("the answer is X", "X is the answer", "the number is
X") and otherwise leaves it empty and marks the riddle for review, never inventing one.
Pure functions: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from sideways.artifacts.schema import EXTRACTED, records
from sideways.core.cells import cell_text
from sideways.sources.curation import visual_cue

HEURISTIC = "heuristic"

# Puzzle types (the wiki's, lower case) that the game itself verifies, and types with an answer to write down.
ENGINE_TYPES = frozenset({
    "arrange", "slide", "sliding", "move", "touch", "draw line", "draw", "line", "maze", "rotate",
    "place", "placement", "tile", "tiles", "weigh", "sort", "path",
})
ANSWER_TYPES = frozenset({
    "write answer", "input", "multiple choice", "select", "select and submit", "circle answer",
    "number input", "select answer", "choose",
})
_ENGINE_CUE = re.compile(
    r"\b(touch screen|drag|slide (?:the|them|it)|draw (?:a|one|two|three|the)? ?lines?|tap|"
    r"move (?:the|all|each) (?:pieces|tiles|blocks|cards|coins)|rotate the|place the (?:pieces|tiles))\b", re.I)
# The game's win line opening a solution: short, one exclamation on a line of its own ("Correct!",
# "You did it!"); a line with a full stop in it is already the explanation.
_WIN_LINE = re.compile(r"^[^\n.?]{1,60}!\s*$")
_ANSWER = (
    re.compile(r"\b(?:the )?(?:correct |right |final )?answer (?:is|was)\s*:?\s*(?P<a>[^\n.!?;]+)", re.I),
    re.compile(r"(?:^|[.!?]\s+)(?P<a>[^\n.!?;]{1,60}?) (?:is|was) the (?:correct |right )?answer\b", re.I),
    re.compile(r"\bthe (?:number|total|result|sum|word|letter|culprit|correct one|right one|one you want) "
               r"(?:you're looking for |you need |you want )?is\s*:?\s*(?P<a>[^\n.!?;]+)", re.I),
)
MAX_ANSWER = 80  # characters: anything longer is a sentence, not an answer


@dataclass(frozen=True)
class Extraction:
    """What an extractor says about one riddle; an empty answer means none was found."""

    answer: str
    justification: str
    needs_game_engine: bool
    needs_image: bool
    needs_review: bool
    review: str | None


def win_line_removed(solution: str) -> str:
    """The solution without the game's win line that opens it (a gold justification)."""
    text = (solution or "").strip()
    first, _, rest = text.partition("\n")
    return rest.strip() if _WIN_LINE.match(first.strip()) else text


def needs_game_engine(category: str | None, description: str | None) -> bool:
    """Interactive by its type, or (type unknown) by what the description asks the player to do."""
    kind = (category or "").strip().lower()
    if kind in ENGINE_TYPES:
        return True
    if kind in ANSWER_TYPES:
        return False
    return bool(_ENGINE_CUE.search(description or ""))


def stated_answer(text: str) -> str | None:
    """The answer where ``text`` states it in so many words, else None."""
    for pattern in _ANSWER:
        m = pattern.search(text)
        if m:
            answer = m.group("a").strip(" :\"'“”")
            if answer and len(answer) <= MAX_ANSWER:
                return answer
    return None


def heuristic(row: Mapping[str, Any]) -> Extraction:
    """The offline extractor: the page's own answer if it has one, else one stated in the solution."""
    justification = win_line_removed(cell_text(row.get("solution")))
    engine = needs_game_engine(cell_text(row.get("category")), cell_text(row.get("description")))
    answer = cell_text(row.get("answer")) or stated_answer(justification) or ""
    problems = []
    if not answer:
        problems.append("no answer stated in the solution text")
    if not justification:
        problems.append("the page has no solution text")
    review = "; ".join(problems) if problems and not engine else None
    return Extraction(answer, justification, engine, visual_cue(cell_text(row.get("description"))) is not None,
                      review is not None, review)


def extracted_table(riddles: pd.DataFrame, extractions: Sequence[Extraction], extracted_by: str,
                    usage: Sequence[Mapping[str, Any]] | None = None) -> pd.DataFrame:
    """The EXTRACTED table: each riddle row with its extraction (answer, justification, flags) and
    the request behind it (``usage``: request_hash, tokens, cost; none for the heuristic)."""
    rows = []
    for k, (row, ex) in enumerate(zip(records(riddles), extractions, strict=True)):
        fields = asdict(ex)
        rows.append({**row, **fields, "extracted_by": extracted_by, **(usage[k] if usage else {})})
    return pd.DataFrame(rows, columns=EXTRACTED.names) if rows else pd.DataFrame(columns=EXTRACTED.names)


def summary(table: pd.DataFrame) -> str:
    """One line on an EXTRACTED table: who extracted, answers found, flags, marked for review."""
    by = str(table["extracted_by"].iloc[0]) if len(table) else "-"
    return (f"{len(table)} riddles by {by}: {int((table['answer'] != '').sum())} with an answer, "
            f"{int(table['needs_game_engine'].sum())} need the game engine, {int(table['needs_image'].sum())} "
            f"need the picture, {int(table['needs_review'].sum())} marked for review")


def no_riddles() -> pd.DataFrame:
    """An empty EXTRACTED table (what the extract stage writes when the source is not the wiki)."""
    return pd.DataFrame(columns=EXTRACTED.names)

