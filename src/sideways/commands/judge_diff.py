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


def changed_judges(a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    """One phrase per judge in both whose intervals do not overlap on some (field, measure), naming them."""
    keys = ["judge", "field", "measure"]
    both = a.merge(b, on=keys, suffixes=("_a", "_b"))
    apart = both[(both["lo_b"] > both["hi_a"]) | (both["hi_b"] < both["lo_a"])]
    out = []
    for judge, rows in apart.groupby("judge", sort=True):
        moves = ", ".join(f"{r.field} {r.measure} {r.estimate_a:.2f} [{r.lo_a:.2f}, {r.hi_a:.2f}] -> "
                          f"{r.estimate_b:.2f} [{r.lo_b:.2f}, {r.hi_b:.2f}]" for r in rows.itertuples())
        out.append(f"{judge}: {moves}")
    return out


def judge_lines(a: str, b: str, seed: int) -> str:
    """The diff's lines about judges: one per (split, changed judge), or one saying none changed."""
    lines = []
    for split in SPLITS:
        ra, rb = version_rates(a, split, seed), version_rates(b, split, seed)
        if ra is None or rb is None:
            continue
        named = changed_judges(ra, rb)
        lines += [w for n in named for w in textwrap.wrap(f"judge changed on {split}: {n}", 120,
                                                          subsequent_indent="    ", break_long_words=False)] or [
            f"judges on {split}: no judge's rates moved beyond their 95% intervals"]
    return "".join(line + "\n" for line in lines)
