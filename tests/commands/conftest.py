"""The default project reproduced once per session (6 models, both splits, the demo exam) and
committed, for the end-to-end command tests; ``project`` is a fresh copy of it per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.harness import commit, new_repo, run


@pytest.fixture(scope="session")
def reproduced(tmp_path_factory) -> Path:
    repo = new_repo(tmp_path_factory.mktemp("diff") / "repo")
    run(repo, "dvc", "repro")
    commit(repo, "reproduced")
    return repo


@pytest.fixture
def project(reproduced, tmp_path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(reproduced, repo, symlinks=True)
    return repo
