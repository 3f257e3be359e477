"""A simulated project on disk for the raters' audit (lab.audit_project) from this repository's
params.yaml."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from helpers import ROOT
from lab import audit_project as world
from sideways.artifacts import paths
from sideways.config.params import Params


def sim_params(splits: tuple[str, ...], justification: float | None) -> tuple[dict[str, Any], Params]:
    """This repository's params on ``splits`` (:func:`lab.audit_project.sim_params`)."""
    return world.sim_params(ROOT, splits, justification)


def audit_project(root: Path, **options: Any) -> Path:
    """:func:`lab.audit_project.audit_project` from this repository's params."""
    return world.audit_project(root, ROOT, **options)


def queue_project(root: Path, queue: str, budget: int = 40) -> Path:
    """A 12-riddle :func:`audit_project` without labels whose app serves ``queue`` (no double labels)."""
    project = audit_project(root, riddles=12, share=0.0)
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["annotations"].update({"queue": queue, "budget": budget, "double_share": 0.0})
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return project


def split_verdicts(root: Path, split: str = "llm") -> tuple[Params, pd.DataFrame, pd.DataFrame]:
    """The project's params and the split's jury and judgments tables, as the app reads them."""
    from sideways.annotation_app.audit_field import split_tables
    from sideways.config.params import load_params
    params = load_params(root / "params.yaml")
    jury, judgments = split_tables(split, [m.key for m in params.models_taking(split)], root)
    return params, jury, judgments


def frames(root: Path, split: str = "llm") -> dict[str, pd.DataFrame]:
    """The split's jury and annotations tables as written."""
    return {"jury": pd.read_parquet(root / paths.jury(split)), "annotations": pd.read_parquet(root / paths.annotations(split))}


class CountingFit:
    """A background fit that records the thread of every call (a fit at start only: one thread, the caller's)."""

    def __init__(self, fit: Callable[[pd.DataFrame], Any]) -> None:
        self.fit, self.threads, self.lock = fit, [], threading.Lock()

    def __call__(self, labels: pd.DataFrame) -> Any:
        with self.lock:
            self.threads.append(threading.get_ident())
        return self.fit(labels)


def count_state_rebuilds(monkeypatch: Any) -> list[int]:
    """Counts every rebuild of the queue's state from the label log (``queue.State.of``): ``[n]``, live."""
    from sideways.annotation_app import queue as queue_module
    states = [0]
    real_of = queue_module.State.of.__func__

    def counted_of(cls: Any, events: Any) -> Any:
        states[0] += 1
        return real_of(cls, events)

    monkeypatch.setattr(queue_module.State, "of", classmethod(counted_of))
    return states
