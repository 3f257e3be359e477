"""The real sources under the real DVC CLI, on temporary copies of this repository.

hf: ``dvc repro split`` on a local hub-layout copy. wiki: scrape from the fake wiki, rerun
after an edit (only that page is fetched), then ``dvc push`` and a fresh clone that pulls the
raw scrape and reproduces nothing, with the wiki gone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.fake_wiki import Serving, fixture_wiki
from helpers.harness import new_repo, repro, run
from helpers.hub_layout import write_hub_dir

pytestmark = pytest.mark.slow


def project(dest: Path, riddles: dict) -> Path:
    """A committed copy of the project with ``riddles`` merged into params.yaml."""
    return new_repo(dest, lambda p: p["riddles"].update(riddles))


def test_hf_local_copy_through_dvc(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    write_hub_dir(repo / "hub")
    repo = project(repo, {"source": "hf", "hf_dataset": "hub"})
    assert repro(repo, "split") == {"check", "scrape", "extract", "curate", "split"}
    assert repro(repo, "split") == set()
    shown = json.loads(run(repo, "dvc", "metrics", "show", "--json").stdout)
    assert json.dumps(shown).count('"kept": 5') == 1
    counts = {s: int(run(repo, "python", "-c", (
        "from sideways.artifacts.io import read_table; from sideways.artifacts.schema import RIDDLES;"
        f"print(len(read_table('data/split/{s}.parquet', RIDDLES)))")).stdout) for s in ("llm", "vlm")}
    assert counts == {"llm": 3, "vlm": 2}
    overrides = repo / "data/curation/overrides.yaml"
    overrides.write_text('"001-1":\n  drop: true\n  reason: test\n')
    assert repro(repo, "split") == {"curate", "split"}  # the overrides file is a dependency


def test_wiki_scrape_resumes_and_is_shared_with_dvc_push(tmp_path: Path) -> None:
    wiki = fixture_wiki()
    with Serving(wiki) as srv:
        repo = project(tmp_path / "repo", {"source": "wiki", "wiki": {
            "api_url": srv.api_url, "min_interval": 0.0, "contact": "https://example.org/test"}})
        assert repro(repo, "split") == {"check", "scrape", "extract", "curate", "split"}
        assert sorted(wiki.content_ids) == [101, 102, 103, 104, 105, 201]  # puzzles and the data module
        assert repro(repo, "split") == set()

        wiki.edit(102, wiki.pages[102].wikitext.replace("five posts", "six posts"))
        wiki.content_ids.clear()
        assert repro(repo, "-f", "-s", "scrape") == {"scrape"}
        assert wiki.content_ids == [102]  # the previous scrape was kept (persist) and reused
        assert repro(repo, "split") == {"extract", "curate", "split"}

        remote = tmp_path / "remote"
        run(repo, "dvc", "remote", "add", "-d", "store", str(remote))
        run(repo, "git", "add", "-A")
        run(repo, "git", "commit", "-qm", "scraped")
        run(repo, "dvc", "push", "--with-deps", "split")
    # The wiki is gone: a fresh clone pulls the raw scrape and reproduces nothing.
    clone = tmp_path / "clone"
    run(tmp_path, "git", "clone", "-q", str(repo), str(clone))
    run(clone, "dvc", "pull", "--with-deps", "split")
    assert json.loads((clone / "data/raw/wiki/manifest.json").read_text())["pages"][1]["revid"] == 1103
    assert repro(clone, "split") == set()
    assert "six posts" in (clone / "data/raw/wiki/pages/102.json").read_text()
