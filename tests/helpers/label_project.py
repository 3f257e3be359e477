"""A project the annotation app can serve, built without DVC, and the app run as a real server.

``label_project`` writes params.yaml (this repository's, with three models and the llm split),
``data/split/llm.parquet``, each model's predictions, ``data/jury/llm.parquet`` with the jury
votes given (or a spread of them) and the judges' verdicts behind them in ``data/judgments/llm/``
(what the default queue's latent-class fit reads, as after ``dvc repro``). ``Served`` runs ``sideways annotate serve`` as a subprocess on
127.0.0.1 (so a test can ``kill -9`` it) and waits until it answers.
"""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import yaml
from PIL import Image

from helpers import ROOT, project_params
from sideways.artifacts.io import write_table
from sideways.artifacts.schema import JUDGMENTS, JURY, PREDICTIONS, RIDDLES, conform

MODELS = {"atlas-large": "openai", "nimbus-pro": "gemini", "quill-max": "anthropic"}


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (60, 30), (40, 120, 200)).save(out, format="PNG")
    return out.getvalue()


def riddle_rows(n: int, split: str = "llm") -> pd.DataFrame:
    rows = [{
        "riddle_id": f"r-{i:02d}" if split == "llm" else f"{split}-{i:02d}", "split": split, "category": "test",
        "title": f"Riddle {i}",
        "description": f"How many sides has shape {i}? <b>not bold</b>", "answer": str(i + 3),
        "solution": f"It has {i + 3} sides.", "justification": f"Count the {i + 3} edges.",
        "first_hint": None, "second_hint": None, "third_hint": None, "special_hint": None,
        "image": _png() if i == 0 or split == "vlm" else None, "picarats": 20, "game": None, "source": "test",
        "url": None, "license": "CC0-1.0",
    } for i in range(n)]
    return conform(pd.DataFrame(rows), RIDDLES, "label project riddles")


def default_votes(riddle: int, model: str) -> int:
    """Votes of 3 for both fields: a spread over 0..3 that depends on riddle and model."""
    return (riddle + list(MODELS).index(model)) % 4


def label_project(root: Path, n_riddles: int = 6, votes: Callable[[int, str], int] = default_votes,
                  annotations: dict[str, Any] | None = None, splits: tuple[str, ...] = ("llm",),
                  takes: dict[str, list[str]] | None = None) -> Path:
    """The project directory (``root``), ready for ``sideways annotate serve --split <split>``: every
    split of ``splits``, each model's predictions on the splits it takes (``takes``: model -> its
    ``takes:``; absent: every split)."""
    params = project_params()
    params["splits"] = list(splits)
    params["models"] = {k: v for k, v in params["models"].items() if k in MODELS}
    for model, benchmarks in (takes or {}).items():
        params["models"][model] = {**params["models"][model], "takes": benchmarks}
    params["annotations"] = {**params["annotations"], "source": "file", **(annotations or {})}
    root.mkdir(parents=True, exist_ok=True)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    for split in splits:
        riddles = riddle_rows(n_riddles, split)
        write_table(riddles, RIDDLES, root / f"data/split/{split}.parquet")
        models = {m: p for m, p in MODELS.items() if takes is None or m not in takes or split in takes[m]}
        _predictions_and_jury(root, split, list(riddles["riddle_id"]), models, votes)
    return root


def _predictions_and_jury(root: Path, split: str, ids: list[str], models: dict[str, str],
                          votes: Callable[[int, str], int]) -> None:
    jury = []
    for model, provider in models.items():
        preds = [{
            "riddle_id": r, "model": model, "provider": provider, "model_name": f"{model}-v1",
            "n_hints": 0, "answer": f"it is {i + 3 + list(MODELS).index(model) % 2}",
            "justification": f"<img src=x onerror=alert(1)> {i}",
            "raw": None, "status": "ok", "error": None, "request_hash": None, "input_tokens": None,
            "output_tokens": None, "cost_usd": None,
        } for i, r in enumerate(ids)]
        write_table(pd.DataFrame(preds), PREDICTIONS, root / f"data/predictions/{split}/{model}.parquet")
        verdicts = []
        for i, r in enumerate(ids):
            v = votes(i, model)
            verdicts += [{"riddle_id": r, "model": model, "judge": judge, "judge_provider": f"judge-{judge}",
                          "is_answer_correct": j < v, "is_justification_correct": j < v, "both_correct": j < v,
                          "score": None, "status": "ok", "error": None, "raw": None, "request_hash": None,
                          "input_tokens": None, "output_tokens": None, "cost_usd": None}
                         for j, judge in enumerate("abc")]
            row = {"riddle_id": r, "model": model, "provider": provider, "model_name": f"{model}-v1",
                   "n_hints": 0, "panel": "a,b,c"}
            for f in ("answer_correct", "justification_correct", "both_correct"):
                row.update({f"{f}_votes": v, f"{f}_judges": 3, f"{f}_score": v / 3})
            jury.append(row)
        write_table(pd.DataFrame(verdicts), JUDGMENTS, root / f"data/judgments/{split}/{model}.parquet")
    write_table(pd.DataFrame(jury), JURY, root / f"data/jury/{split}.parquet")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """``sideways annotate serve`` in ``project`` for ``annotator``, as a subprocess."""

    def __init__(self, project: Path, annotator: str, port: int | None = None, split: str = "llm",
                 extra: tuple[str, ...] = ()) -> None:
        self.project, self.annotator, self.port, self.split = project, annotator, port or free_port(), split
        self.url = f"http://[::1]:{self.port}" if "::1" in extra else f"http://127.0.0.1:{self.port}"
        self.extra, self.banner = extra, ""
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> Served:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sideways.commands.annotate", "serve", "--split", self.split,
             "--annotator", self.annotator, "--port", str(self.port), *self.extra],
            cwd=self.project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if self.extra and self.proc.stdout is not None:
            self.banner = self.proc.stdout.readline()  # the URL it prints (with its ?key= on a wildcard bind)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server stopped: {self.proc.stdout.read() if self.proc.stdout else ''}")
            try:
                if httpx.get(f"{self.url}/api/progress", timeout=1).status_code in (200, 403):
                    return self
            except httpx.TransportError:
                time.sleep(0.1)
        raise AssertionError("the server did not answer within 30 s")

    def kill(self) -> None:
        """``kill -9``: no shutdown code runs."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def __enter__(self) -> Served:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()


def finished_audit(url: str, wait_s: float = 180.0) -> dict[str, Any]:
    """The app's ``/api/progress`` audit once its background fit has finished (it has labels); fails after ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        audit: dict[str, Any] = httpx.get(f"{url}/api/progress", timeout=10).json()["audit"]
        if audit["labels"] is not None:
            return audit
        time.sleep(1)
    raise AssertionError(f"the audit did not finish within {wait_s:g} s")
