"""A project whose model and two judges live on the fake OpenAI-compatible server: the predict and
judge stages run against it for real (requests, retries, cache, cost), with its key in ``.env``."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from helpers import ROOT
from helpers.harness import env, no_exam
from helpers.request_layer import make_riddles
from sideways.artifacts.io import write_table
from sideways.artifacts.schema import RIDDLES

KEY = "sk-fake-7c1e5d0b9a4f-do-not-leak"
N = 30


def params(base_url: str, **requests) -> dict:
    local = {"backend": "openai-compatible", "base_url": base_url, "api_key_env": "LOCAL_LLM_KEY", "concurrency": 3}
    return {
        "seed": 0,
        "splits": ["llm"],
        "models": {"local-m": {**local, "provider": "local", "name": "local-model-1", "n_hints": 1}},
        "jury": {"judges": 2, "pool": {
            "judge-a": {**local, "provider": "judgeco-a", "name": "judge-a-1"},
            "judge-b": {**local, "provider": "judgeco-b", "name": "judge-b-1"},
        }},
        "requests": {"backoff_s": 0.01, "max_backoff_s": 0.05, "timeout_s": 0.5, "max_attempts": 4,
                     "max_failure_share": 0.1, **requests},
        "exams": {},  # the riddles alone (the judge stage lists exams: it must be there)
        "prices": {"local-model-1": {"input_per_mtok": 1.0, "output_per_mtok": 4.0},
                   "judge-a-1": {"input_per_mtok": 0.5, "output_per_mtok": 1.0}},
    }


def make_project(tmp_path: Path, base_url: str, **requests) -> Path:
    repo = tmp_path / "repo"
    for name in ("src", "stages"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "dvc.yaml", repo / "dvc.yaml")
    no_exam(repo, None)
    (repo / "data/replay").mkdir(parents=True)  # predict and judge depend on it (replay files live there)
    shutil.copytree(ROOT / "data/retry", repo / "data/retry")  # and on their retry markers
    data = params(base_url, **requests)  # the models in models.yaml, as the default project keeps them
    (repo / "models.yaml").write_text(yaml.safe_dump({"models": data.pop("models")}))
    (repo / "params.yaml").write_text(yaml.safe_dump({**data, "models": "models.yaml"}))
    (repo / ".env").write_text(f"LOCAL_LLM_KEY={KEY}\n")
    write_table(make_riddles(N), RIDDLES, repo / "data/split/llm.parquet")
    return repo


def env_for(repo: Path) -> dict[str, str]:
    """The harness's environment without LOCAL_LLM_KEY: the stages must read the key from ``.env``."""
    return {k: v for k, v in env(repo).items() if k != "LOCAL_LLM_KEY"}
