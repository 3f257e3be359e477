"""Curating riddles: which are kept, in which split, and a report of what was dropped and why.

Steps, in order (each riddle is dropped for the first reason that applies):

0. Manual corrections: an override's ``answer``, ``justification`` or ``needs_game_engine``
   replaces what the source or the extract stage gave (manual curation wins) and clears the
   riddle's ``needs_review`` mark.
1. ``override``: the overrides file says ``drop: true`` (a person decided; the reason is theirs).
1b. ``needs_game_engine``: the extract stage found an interactive puzzle (drag, draw, arrange
   on screen) that only the game itself can check.
2. ``no_description`` / ``no_answer``: nothing to ask, or nothing to grade against.
3. ``duplicate``: same normalised title and (known) game as an earlier riddle, or a near-identical
   description (token Jaccard >= ``threshold``, 0.9 by default) *with the same answer*. Sequels
   ("... 2") reuse a description with new numbers and a new answer; those are different riddles.
   The first riddle in input order is kept.
4. The split: an override's ``split``, else the split the source gives (the published dataset
   is already curated), else the extract stage's ``needs_image`` (wiki), else ``vlm`` when the
   description refers to its picture (words such as "picture", "shown", "below", "look at"; see
   :data:`VISUAL_CUES`), else ``llm``.
5. ``no_image``: a visual riddle whose picture is missing or does not open.

The functions are pure: the overrides file is read by :func:`load_overrides`, the report is
returned, and the stage writes it (``metrics/curation.json``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from sideways.artifacts.schema import RIDDLES, SPLITS, conform, records
from sideways.config.riddles import DEFAULT_THRESHOLD
from sideways.core.cells import cell_text
from sideways.core.errors import RiddleError
from sideways.core.textfile import read_text

REASONS = ("override", "needs_game_engine", "no_description", "no_answer", "duplicate", "no_image")
FLAGS = ("needs_game_engine", "needs_image", "needs_review")  # the extract stage's marks, counted in the report
VISUAL_CUES = (
    "picture", "pictured", "image", "shown", "below", "drawn", "drawing", "diagram", "figure",
    "grid", "look at", "looking at", "illustration", "illustrated", "displayed",
)
# "figure out" is the commonest phrase in riddles that have nothing to look at.
_CUE = re.compile(
    r"\b(" + "|".join(re.escape(c) for c in sorted(VISUAL_CUES, key=len, reverse=True)) + r")\b(?!\s+out\b)", re.I
)
_OVERRIDE_KEYS = {"split", "drop", "reason", "answer", "justification", "needs_game_engine"}
_CHANGES = ("split", "answer", "justification", "needs_game_engine")  # what an entry may set instead of drop


@dataclass(frozen=True)
class Override:
    """A person's decision about one riddle, because ``reason``: ``drop`` it, or put it in
    ``split`` and/or set its ``answer``, ``justification`` or ``needs_game_engine``."""

    riddle_id: str
    reason: str
    split: str | None = None
    drop: bool = False
    answer: str | None = None
    justification: str | None = None
    needs_game_engine: bool | None = None


@dataclass
class CurationReport:
    """Counts for ``dvc metrics`` plus the per-riddle detail behind them."""

    source: str
    input: int = 0
    kept_by_split: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SPLITS})
    split_by: dict[str, int] = field(default_factory=lambda: {"override": 0, "source": 0, "extract": 0, "rule": 0})
    dropped: list[dict[str, str]] = field(default_factory=list)
    flags: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FLAGS, 0))
    review: list[dict[str, Any]] = field(default_factory=list)
    unused_overrides: list[str] = field(default_factory=list)
    threshold: float = DEFAULT_THRESHOLD

    def drop(self, riddle_id: str, reason: str, detail: str) -> None:
        self.dropped.append({"riddle_id": riddle_id, "reason": reason, "detail": detail})

    def metrics(self) -> dict[str, Any]:
        """The numbers only: what ``metrics/curation.json`` holds and ``dvc metrics diff`` compares."""
        by_reason = {r: sum(d["reason"] == r for d in self.dropped) for r in REASONS}
        return {
            "source": self.source,
            "input": self.input,
            "kept": sum(self.kept_by_split.values()),
            "kept_by_split": dict(self.kept_by_split),
            "dropped": len(self.dropped),
            "dropped_by_reason": by_reason,
            **self.flags,
            "split_decided_by": dict(self.split_by),
            "duplicate_threshold": self.threshold,
            "unused_overrides": len(self.unused_overrides),
        }


@dataclass(frozen=True)
class Curated:
    riddles: pd.DataFrame
    report: CurationReport


def curate(
    riddles: pd.DataFrame,
    overrides: Mapping[str, Override] | None = None,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    source: str = "",
    dedupe: bool = True,
) -> Curated:
    """Apply the steps above to ``riddles`` (RIDDLES columns; ``split`` may be empty; an
    ``image_error`` column, if present, marks unusable pictures, and the extract stage's
    ``needs_game_engine``, ``needs_image``, ``needs_review`` and ``review`` columns, if present,
    are used and counted). Returns the kept riddles, conformed to RIDDLES in input order, and
    the report. ``dedupe=False`` skips step 3, for a hand-made set (the demo) whose similar
    riddles are on purpose."""
    overrides = dict(overrides or {})
    report = CurationReport(source=source, input=len(riddles), threshold=threshold)
    report.unused_overrides = sorted(set(overrides) - set(riddles["riddle_id"]))
    rows = [_corrected(row, overrides.get(row["riddle_id"])) for row in records(riddles)]
    for name in FLAGS:
        report.flags[name] = sum(bool(_flag(row, name)) for row in rows)
    kept = [row for row in rows if _first_checks(row, overrides.get(row["riddle_id"]), report)]
    if dedupe:
        kept = _drop_duplicates(kept, threshold, report)
    out = []
    for row in kept:
        ov = overrides.get(row["riddle_id"])
        how = _decide_split(row, ov)
        if row["split"] == "vlm" and _image_missing(row):
            why = cell_text(row.get("image_error")) or "a visual riddle without a picture"
            report.drop(row["riddle_id"], "no_image", why)
            continue
        report.split_by[how] += 1
        report.kept_by_split[row["split"]] += 1
        out.append(row)
    _note_reviews(rows, report)
    df = pd.DataFrame(out, columns=list(riddles.columns)) if out else riddles.iloc[0:0]
    return Curated(conform(df, RIDDLES, f"curation ({source or 'riddles'})"), report)


def _corrected(row: dict[str, Any], ov: Override | None) -> dict[str, Any]:
    """The row with a person's corrections applied (manual curation wins; it settles the review)."""
    if ov is None:
        return row
    fields = ("answer", "justification", "needs_game_engine")
    changes = {k: getattr(ov, k) for k in fields if getattr(ov, k) is not None}
    if changes and "needs_review" in row:
        changes["needs_review"] = False
    return {**row, **changes}


def _first_checks(row: dict[str, Any], ov: Override | None, report: CurationReport) -> bool:
    """Steps 1 and 2: False (and the drop recorded) for an overridden, interactive, empty riddle."""
    rid = row["riddle_id"]
    if ov is not None and ov.drop:
        report.drop(rid, "override", ov.reason)
    elif _flag(row, "needs_game_engine"):
        report.drop(rid, "needs_game_engine", "an interactive puzzle: only the game can check it")
    elif not cell_text(row.get("description")):
        report.drop(rid, "no_description", "the description is empty")
    elif not cell_text(row.get("answer")):
        report.drop(rid, "no_answer", cell_text(row.get("review")) or "the answer is empty")
    else:
        return True
    return False


def _decide_split(row: dict[str, Any], ov: Override | None) -> str:
    """Set the row's split (step 4) and return what decided it."""
    if ov is not None and ov.split:
        row["split"] = ov.split
        return "override"
    if row.get("split") in SPLITS:
        return "source"
    flag = _flag(row, "needs_image")
    if flag is not None:
        row["split"] = "vlm" if flag else "llm"
        return "extract"
    row["split"] = "vlm" if visual_cue(row["description"]) else "llm"
    return "rule"


def _note_reviews(rows: list[dict[str, Any]], report: CurationReport) -> None:
    """The riddles marked for review, each with why and what curation did with it."""
    outcome = {d["riddle_id"]: d["reason"] for d in report.dropped}
    for row in rows:
        if _flag(row, "needs_review"):
            report.review.append({
                "riddle_id": row["riddle_id"], "title": cell_text(row.get("title")), "url": cell_text(row.get("url")),
                "review": cell_text(row.get("review")), "answer": cell_text(row.get("answer")),
                "outcome": f"dropped: {outcome[row['riddle_id']]}" if row["riddle_id"] in outcome else "kept",
            })


def _flag(row: Mapping[str, Any], name: str) -> bool | None:
    """A boolean column of the extract stage, or None when the row has none (demo, hf)."""
    value = row.get(name)
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    return bool(value)


def visual_cue(description: str) -> str | None:
    """The first word or phrase in ``description`` that refers to a picture, if any."""
    m = _CUE.search(description or "")
    return m.group(1).lower() if m else None


def tokens(text: str) -> frozenset[str]:
    """Lower-case word and number tokens, accents folded: what near-duplicate detection compares."""
    text = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode().lower()
    return frozenset(re.findall(r"[a-z0-9]+", text))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def normal_title(title: str) -> str:
    """Case, punctuation and a trailing qualifier such as " (UK)" or " (UF)" do not matter."""
    title = re.sub(r"\s*\([^)]*\)\s*$", "", title or "")
    return " ".join(re.findall(r"[a-z0-9]+", title.lower()))


def find_duplicates(
    rows: Iterable[Mapping[str, Any]], threshold: float = DEFAULT_THRESHOLD
) -> dict[str, tuple[str, str]]:
    """riddle id -> (id of the earlier riddle it duplicates, why), for every duplicate in ``rows``."""
    if not 0 < threshold <= 1:
        raise RiddleError(f"curation: duplicate threshold must be in (0, 1], got {threshold}")
    by_title: dict[tuple[str, str], str] = {}
    by_answer: dict[str, list[tuple[str, frozenset[str]]]] = {}
    dups: dict[str, tuple[str, str]] = {}
    for row in rows:
        rid = row["riddle_id"]
        key = (normal_title(cell_text(row.get("title"))), cell_text(row.get("game")).lower())
        answer = " ".join(sorted(tokens(cell_text(row.get("answer")))))
        toks = tokens(cell_text(row.get("description")))
        known = bool(key[0] and key[1])  # without a game, "X" and "X (UF)" may be two games' puzzles
        if known and key in by_title:
            dups[rid] = (by_title[key], "same title and game")
            continue
        candidates = by_answer.get(answer, [])
        near = next(((other, s) for other, t in candidates if (s := jaccard(toks, t)) >= threshold), None)
        if near:
            dups[rid] = (near[0], f"description {near[1]:.2f} similar (Jaccard), same answer")
            continue
        if known:
            by_title[key] = rid
        by_answer.setdefault(answer, []).append((rid, toks))
    return dups


def parse_overrides(text: str, source: str = "overrides.yaml") -> dict[str, Override]:
    """Validate an overrides file's text; errors name the file, line, riddle id and key."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        raise RiddleError(f"{source}: not valid YAML ({' '.join(str(exc).split())[:200]})") from exc
    except RecursionError as exc:
        raise RiddleError(f"{source}: nested too deep to read") from exc
    if root is None:
        return {}
    if not isinstance(root, yaml.MappingNode):
        raise RiddleError(f"{source}: expected a mapping of riddle id -> {{split or drop, reason}}")
    out: dict[str, Override] = {}
    for key_node, value_node in root.value:
        rid = str(key_node.value)
        at = f"{source}:{key_node.start_mark.line + 1}: riddle {rid}"
        if rid in out:
            raise RiddleError(f"{at}: listed twice")
        value = yaml.safe_load(yaml.serialize(value_node))
        if not isinstance(value, dict):
            raise RiddleError(f"{at}: expected a mapping with 'split' or 'drop', and 'reason'")
        unknown = sorted(set(map(str, value)) - _OVERRIDE_KEYS)
        if unknown:
            raise RiddleError(f"{at}: unknown key(s) {', '.join(unknown)} (allowed: drop, reason, split)")
        reason = value.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise RiddleError(f"{at}: key 'reason' must say why, as non-empty text")
        out[rid] = _override(rid, reason.strip(), value, at)
    return out


def _override(rid: str, reason: str, value: Mapping[str, Any], at: str) -> Override:
    """One checked entry: ``drop: true`` alone, or at least one of :data:`_CHANGES`."""
    split, drop = value.get("split"), value.get("drop", False)
    if drop not in (True, False):
        raise RiddleError(f"{at}: key 'drop' must be true or false, got {drop!r}")
    if split is not None and split not in SPLITS:
        raise RiddleError(f"{at}: key 'split' must be one of {', '.join(SPLITS)}, got {split!r}")
    for key in ("answer", "justification"):
        if key in value and (not isinstance(value[key], (str, int, float)) or not str(value[key]).strip()):
            raise RiddleError(f"{at}: key '{key}' must be non-empty text, got {value[key]!r}")
    engine = value.get("needs_game_engine")
    if engine not in (None, True, False):
        raise RiddleError(f"{at}: key 'needs_game_engine' must be true or false, got {engine!r}")
    changes = [k for k in _CHANGES if value.get(k) is not None]
    if drop == bool(changes):
        raise RiddleError(f"{at}: give either 'drop: true' or at least one of {', '.join(_CHANGES)} (not both)")
    text = {k: str(value[k]).strip() for k in ("answer", "justification") if k in value}
    return Override(rid, reason, split, bool(drop), text.get("answer"), text.get("justification"), engine)


def load_overrides(path: str | Path) -> dict[str, Override]:
    """Read and validate the overrides file; a missing file means no overrides."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return {}
    return parse_overrides(read_text(path, "overrides file", RiddleError), str(path))


def _drop_duplicates(rows: list[dict[str, Any]], threshold: float, report: CurationReport) -> list[dict[str, Any]]:
    dups = find_duplicates(rows, threshold)
    for rid, (first, why) in dups.items():
        report.drop(rid, "duplicate", f"duplicate of {first}: {why}")
    return [r for r in rows if r["riddle_id"] not in dups]


def _image_missing(row: Mapping[str, Any]) -> bool:
    image = row.get("image")
    return not isinstance(image, (bytes, bytearray)) or not image or bool(cell_text(row.get("image_error")))

