"""A simulated project on disk for the raters' audit (sideways.testing.audit_project) from this repository's
params.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from helpers import ROOT
from sideways.artifacts import paths
from sideways.config.params import Params
from sideways.testing import audit_project as world


def sim_params(splits: tuple[str, ...], justification: float | None) -> tuple[dict[str, Any], Params]:
    """This repository's params on ``splits`` (:func:`sideways.testing.audit_project.sim_params`)."""
    return world.sim_params(ROOT, splits, justification)


def audit_project(root: Path, **options: Any) -> Path:
    """:func:`sideways.testing.audit_project.audit_project` from this repository's params."""
    return world.audit_project(root, ROOT, **options)


def frames(root: Path, split: str = "llm") -> dict[str, pd.DataFrame]:
    """The split's jury and annotations tables as written."""
    return {"jury": pd.read_parquet(root / paths.jury(split)), "annotations": pd.read_parquet(root / paths.annotations(split))}
