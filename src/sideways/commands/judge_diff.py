"""Which judges changed between two versions: ``sideways diff`` names every judge whose rates, as the latent
posterior sees them in each version (:mod:`sideways.scoring.judge_audit`, every graded reply), moved so far that
the two versions' 95% intervals do not overlap on some field and measure (docs/method.md §6, "Raters audited").

Why: a judge's rates moving (a new prompt, a new model behind the same name, a provider's silent update) moves
every score its panels give, and the score's diff alone does not say which judge did it.
"""

from __future__ import annotations

import textwrap
from io import BytesIO
from pathlib import Path
from typing import Any

import pandas as pd

from sideways.artifacts import paths
from sideways.artifacts.schema import SPLITS
from sideways.commands.revisions import read_files
from sideways.core.errors import SidewaysError
from sideways.scoring.judge_audit import audit_judges, posterior_rows


def _frame(data: bytes | str | None) -> pd.DataFrame | None:
    if not isinstance(data, bytes):
        return None
    try:
        return pd.read_parquet(BytesIO(data), use_threads=False, pre_buffer=False)
    except Exception:  # noqa: BLE001 - a damaged table is said by the diff's own reading of the split
        return None


def version_rates(rev: str, split: str, seed: int) -> pd.DataFrame | None:
    """The judges' overall rates (group ``all``) of ``split`` at ``rev``; None when its tables cannot be read."""
    base = read_files(rev, [paths.jury(split), paths.annotations(split)])
    jury, annotations = _frame(base[paths.jury(split)]), _frame(base[paths.annotations(split)])
    if jury is None or annotations is None or jury.empty:
        return None
    files: list[Path] = [paths.judgments(split, str(m)) for m in sorted(jury["model"].unique())]
    frames = [f for f in (_frame(d) for d in read_files(rev, files).values()) if f is not None]
    if not frames:
        return None
    judgments = pd.concat(frames, ignore_index=True)
    try:
        rates = posterior_rows(jury, judgments, annotations, seed=seed, stream=split)
    except (SidewaysError, KeyError, ValueError):
        return None
    audit = audit_judges(rates, jury, judgments)
    return audit[audit["group"] == "all"]


def judge_moves(a: pd.DataFrame, b: pd.DataFrame) -> list[dict[str, Any]]:
    """One record per (judge, field, measure) in both versions whose 95% intervals do not overlap:
    ``{"judge", "field", "measure", "a": [estimate, lo, hi], "b": [...]}``, sorted by judge."""
    keys = ["judge", "field", "measure"]
    both = a.merge(b, on=keys, suffixes=("_a", "_b"))
    apart = both[(both["lo_b"] > both["hi_a"]) | (both["hi_b"] < both["lo_a"])].sort_values(keys, kind="stable")
    return [{"judge": str(r["judge"]), "field": str(r["field"]), "measure": str(r["measure"]),
             "a": [float(r["estimate_a"]), float(r["lo_a"]), float(r["hi_a"])],
             "b": [float(r["estimate_b"]), float(r["lo_b"]), float(r["hi_b"])]} for r in apart.to_dict("records")]


def _phrases(moves: list[dict[str, Any]]) -> list[str]:
    """One phrase per judge: its moves, ``field measure est [lo, hi] -> est [lo, hi]``."""
    out = []
    for judge in sorted({m["judge"] for m in moves}):
        out.append(f"{judge}: " + ", ".join(
            f"{m['field']} {m['measure']} {m['a'][0]:.2f} [{m['a'][1]:.2f}, {m['a'][2]:.2f}] -> "
            f"{m['b'][0]:.2f} [{m['b'][1]:.2f}, {m['b'][2]:.2f}]" for m in moves if m["judge"] == judge))
    return out


def changed_judges(a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    """One phrase per judge in both whose intervals do not overlap on some (field, measure), naming them."""
    return _phrases(judge_moves(a, b))


def judge_changes(a: str, b: str, seed: int) -> dict[str, list[dict[str, Any]]]:
    """Per split whose judges both versions let the audit read: the judges' moves (empty: none moved)."""
    out = {}
    for split in SPLITS:
        ra, rb = version_rates(a, split, seed), version_rates(b, split, seed)
        if ra is not None and rb is not None:
            out[split] = judge_moves(ra, rb)
    return out


def judge_notes(changes: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The diff's sentences about judges: one per (split, changed judge), or one a split saying none changed."""
    notes = []
    for split, moves in changes.items():
        notes += [f"judge changed on {split}: {n}" for n in _phrases(moves)] or [
            f"judges on {split}: no judge's rates moved beyond their 95% intervals"]
    return notes


def judge_lines(changes: dict[str, list[dict[str, Any]]]) -> str:
    """:func:`judge_notes` wrapped at 120 columns, for the terminal."""
    lines = [w for note in judge_notes(changes)
             for w in textwrap.wrap(note, 120, subsequent_indent="    ", break_long_words=False)]
    return "".join(line + "\n" for line in lines)
