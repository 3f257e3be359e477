"""Shared fixtures: a small synthetic riddle table, the default params mapping, the fake OpenAI server,
the default project reproduced once per session.

Plain helpers (paths, builders, harnesses) are in the ``helpers`` package next to this file."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pandas as pd
import pytest

from helpers import project_params
from helpers.browser import INSTALL_HINT, find_chromium, launched_chromium
from sideways.artifacts.schema import RIDDLES, conform
from sideways.testing.openai_server import Behaviour, FakeServer


def make_riddles(n: int = 40, split: str = "llm") -> pd.DataFrame:
    """``n`` synthetic riddles: numeric answers for even ids, word answers for odd ones."""
    rows = []
    for i in range(n):
        rows.append(
            {
                "riddle_id": f"t-{split}-{i:03d}",
                "split": split,
                "category": "arithmetic" if i % 2 == 0 else "wordplay",
                "title": f"Test riddle {i}",
                "description": f"What is the answer to test riddle {i}?",
                "answer": str(i + 3) if i % 2 == 0 else f"word{i}",
                "solution": f"The answer is {i + 3 if i % 2 == 0 else f'word{i}'}.",
                "justification": f"Because of rule {i}.",
                "first_hint": "Think.",
                "second_hint": "Think harder.",
                "third_hint": None,
                "special_hint": None,
                "image": None,
                "picarats": 10 + (i * 7) % 71,
                "game": None,
                "source": "test",
                "url": None,
                "license": "CC0-1.0",
            }
        )
    return conform(pd.DataFrame(rows), RIDDLES, "test riddles")


@pytest.fixture
def riddles() -> pd.DataFrame:
    return make_riddles()


@pytest.fixture
def default_params() -> dict:
    return copy.deepcopy(project_params())


@pytest.fixture
def server():
    """The fake OpenAI-compatible server (sideways.testing.openai_server), default behaviour."""
    with FakeServer(Behaviour()) as s:
        yield s


@pytest.fixture(scope="module")
def browser():
    """A real headless Chromium (OS package) through Playwright; skips with the install hint without one.

    Per module, not per session: while Playwright's sync API is open, the main thread has a running
    event loop, so every later test calling ``asyncio.run`` (the request layer's) would fail.
    """
    executable = find_chromium()
    if executable is None:
        pytest.skip(INSTALL_HINT)
    with launched_chromium(executable) as launched:
        yield launched


@pytest.fixture(scope="session")
def reproduced(tmp_path_factory) -> Path:
    """The default project (6 models, both splits, the demo exam) reproduced once and committed."""
    from helpers.harness import commit, new_repo, run

    repo = new_repo(tmp_path_factory.mktemp("reproduced") / "repo")
    run(repo, "dvc", "repro")
    commit(repo, "reproduced")
    return repo


@pytest.fixture
def reproduced_copy(reproduced, tmp_path) -> Path:
    """A fresh copy of :func:`reproduced` for one test to change."""
    repo = tmp_path / "repo"
    shutil.copytree(reproduced, repo, symlinks=True)
    return repo
