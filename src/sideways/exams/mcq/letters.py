"""The letter(s) a reply chose, robustly (evaluate-idk's extraction, with fallbacks).

Patterns are tried in tiers, most explicit first; the first tier that finds anything gives the
letters (all of its matches, deduplicated, in order of appearance):

1. boxed forms: ``\\boxed{C}``, ``\\boxed{\\text{C}}``, ``[C]`` on a line of its own;
2. ``Final answer: X`` / ``Answer: X`` (any case, with ``**``, ``(X)``, ``X)``), and
   ``the answer is X`` (capital letter only: "the answer is a trick" is no answer);
3. ``Option X`` / ``Choice X`` / ``(X)``;
4. "I don't know" written out (E, when E is offered);
5. a bare letter: the whole reply (or its last line) is one letter, maybe with ``)`` or ``.``.

Only the letters offered count. No letter at all is an extraction failure.
"""

from __future__ import annotations

import re

from sideways.exams.mcq import IDK_LETTER

_L = r"([A-Za-z])"
_TIERS: tuple[tuple[re.Pattern[str], ...], ...] = (
    (re.compile(r"\\boxed\s*\{\s*(?:\\text(?:bf)?\s*\{\s*)?\(?" + _L + r"\)?\s*\}"),
     re.compile(r"^\s*\[\s*" + _L + r"\s*\]\s*$", re.M)),
    (re.compile(r"(?:final\s+)?answer\s*\**\s*[:：]\s*\**\s*[\(\[]?\s*" + _L + r"(?![A-Za-z])", re.I),
     re.compile(r"(?:final\s+)?answer\s+is\s*:?\s*\**\s*[\(\[]?([A-Z])(?![A-Za-z])")),
    (re.compile(r"\b(?:option|choice)\s*[\(\[]?([A-Z])(?![A-Za-z])", re.I),
     re.compile(r"\(([A-Z])\)")),
)
#: What each tier's patterns cannot match without (the same flags, so the same Unicode case
#: rules: under IGNORECASE "ſ" is an "s" and "ı" an "i"): a tier whose prefilter finds nothing is
#: skipped without running its patterns. The letters found are the same; on short replies, in a
#: third of the time (``exam_score`` extracts every reply of a model added to a 14,042-question exam).
_NEEDS: tuple[re.Pattern[str], ...] = (re.compile(r"\\boxed|\["), re.compile(r"answer", re.I),
                                       re.compile(r"option|choice|\(", re.I))
_IDK = re.compile(r"\bI\s+(?:do\s+not|don['’]?t)\s+know\b", re.I)  # not "unsure": that names no choice
_BARE = re.compile(r"^\s*\**\s*[\(\[]?" + _L + r"[\)\].:]?\s*\**\s*$")


def extract_letters(text: str | None, offered: str) -> list[str]:
    """The offered letters (e.g. ``"ABCDE"``) the reply ``text`` chose; [] when none."""
    if not text:
        return []
    for tier, needs in zip(_TIERS, _NEEDS, strict=True):
        if not needs.search(text):
            continue
        found = _in_order(tier, text, offered)
        if found:
            return found
    if IDK_LETTER in offered and _IDK.search(text):
        return [IDK_LETTER]
    lines = [line for line in text.strip().splitlines() if line.strip()]
    for candidate in (text, lines[-1] if lines else ""):
        m = _BARE.match(candidate)
        if m and m.group(1).upper() in offered:
            return [m.group(1).upper()]
    return []


def _in_order(tier: tuple[re.Pattern[str], ...], text: str, offered: str) -> list[str]:
    """The offered letters a tier's patterns match, deduplicated, in order of appearance."""
    hits = [(m.start(), m.group(1).upper()) for p in tier for m in p.finditer(text)]
    hits.sort()
    out: list[str] = []
    for _, letter in hits:
        if letter in offered and letter not in out:
            out.append(letter)
    return out
