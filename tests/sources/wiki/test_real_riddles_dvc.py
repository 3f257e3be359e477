"""The real sources under the real DVC CLI, on temporary copies of this repository.

hf: ``dvc repro split`` on a local hub-layout copy. wiki: scrape from the fake wiki, rerun
after an edit (only that page is fetched), then ``dvc push`` and a fresh clone that pulls the
raw scrape and reproduces nothing, with the wiki gone.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fake_wiki import Serving, fixture_wiki

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/sources
from hub_layout import write_hub_dir  # noqa: E402

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def run(repo: Path, *cmd: str) -> subprocess.CompletedProcess:
    home = repo.parent / "home"
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(repo / "src"),
        "DVC_NO_ANALYTICS": "1",
        "DVC_GLOBAL_CONFIG_DIR": str(home / "dvc-global"),
        "DVC_SYSTEM_CONFIG_DIR": str(home / "dvc-system"),
        "DVC_SITE_CACHE_DIR": str(home / "dvc-site-cache"),
        "SIDEWAYS_PROGRESS": "0",
        "HF_HOME": str(home / "hf"),
        "HF_DATASETS_CACHE": str(home / "hf" / "datasets"),
        "HF_HUB_OFFLINE": "1",
        "GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
    }
    exe = str(BIN / cmd[0]) if cmd[0] in ("dvc", "python") else cmd[0]
    proc = subprocess.run([exe, *cmd[1:]], cwd=repo, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def repro(repo: Path, *args: str) -> set[str]:
    proc = run(repo, "dvc", "repro", *args)
    return set(re.findall(r"Running stage '([^']+)'", proc.stdout + proc.stderr))


def project(dest: Path, riddles: dict) -> Path:
    """The files git would ship, in a new git repo, with ``riddles`` merged into params.yaml."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    (dest / ".dvc").mkdir(exist_ok=True)
    params = yaml.safe_load((dest / "params.yaml").read_text())
    params["riddles"].update(riddles)
    (dest / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run(dest, "git", "init", "-q", "-b", "main")
    run(dest, "git", "add", "-A")
    run(dest, "git", "commit", "-qm", "start")
    return dest


def test_hf_local_copy_through_dvc(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    write_hub_dir(repo / "hub")
    repo = project(repo, {"source": "hf", "hf_dataset": "hub"})
    assert repro(repo, "split") == {"scrape", "curate", "split"}
    assert repro(repo, "split") == set()
    shown = json.loads(run(repo, "dvc", "metrics", "show", "--json").stdout)
    assert json.dumps(shown).count('"kept": 5') == 1
    counts = {s: int(run(repo, "python", "-c", (
        "from sideways.artifacts import read_table; from sideways.schema import RIDDLES;"
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
        assert repro(repo, "split") == {"scrape", "curate", "split"}
        assert sorted(wiki.content_ids) == [101, 102, 103, 104, 105, 201]  # puzzles and the data module
        assert repro(repo, "split") == set()

        wiki.edit(102, wiki.pages[102].wikitext.replace("five posts", "six posts"))
        wiki.content_ids.clear()
        assert repro(repo, "-f", "-s", "scrape") == {"scrape"}
        assert wiki.content_ids == [102]  # the previous scrape was kept (persist) and reused
        assert repro(repo, "split") == {"curate", "split"}

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
