"""The README's own example, labelled from nothing: a text-only model on a local OpenAI-compatible
server (``takes: [llm, demo]``) beside simulated ones, ``annotations.source: file`` and no label yet.
`dvc repro` runs (no label file is zero labels: wide intervals), both splits are labelled in the
annotation app in headless Chromium (the vlm queue without the text-only model), and after `dvc repro`
every split's intervals are narrower (docs/calibration.md, "Labelling a project from nothing")."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from helpers.harness import commit, new_repo, run
from helpers.label_project import Served
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import RIDDLES
from sideways.simulation.truth import truth
from sideways.testing.openai_server import FakeServer

DVC = shutil.which("dvc", path=str(Path(sys.executable).parent)) or shutil.which("dvc")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(DVC is None, reason="dvc is not installed")]
MODELS = ("atlas-large", "nimbus-pro", "tide-open")


def half_widths(repo: Path, split: str) -> dict[str, float]:
    rows = json.loads((repo / f"metrics/leaderboard_{split}.json").read_text())
    return {m: r["posterior"]["ci"] for m, r in rows.items()}  # the half-width, in points


def label_in_the_app(browser, repo: Path, split: str) -> set[str]:
    """Label the split's budget with the keyboard, each prediction with its truth; the models revealed."""
    riddles = {(r["title"], r["description"]): r for r in read_table(repo / f"data/split/{split}.parquet",
                                                                      RIDDLES).to_dict("records")}
    revealed = set()
    with Served(repo, "ana", split=split) as server:
        page = browser.new_page()
        page.goto(server.url)
        expect(page.locator("#totals")).to_contain_text(" 0 yours")
        done = 0
        while page.locator("#done").is_hidden():
            riddle = riddles[(page.locator("#title").text_content(), page.locator("#description").text_content())]
            shown = [page.locator(f"#{f}").text_content() for f in ("answer", "justification")]
            answer, justification = truth(riddle, *(None if s.startswith("(no ") else s for s in shown))
            page.keyboard.press("1" if answer else "2")
            page.keyboard.press("3" if justification else "4")
            page.keyboard.press("Enter")
            done += 1
            expect(page.locator("#totals")).to_contain_text(f" {done} yours")
            revealed.add(page.locator("#status").text_content().split("key ")[-1].rstrip(")"))
        assert done >= 20
        page.close()
    return revealed


def test_the_readme_example_labelled_from_nothing_in_the_app(browser, tmp_path):
    with FakeServer() as server:
        qwen = {"backend": "openai-compatible", "provider": "qwen", "name": "Qwen/Qwen3-8B",
                "base_url": server.base_url, "takes": ["llm", "demo"]}

        def project(p: dict) -> None:
            p["models"] = {k: p["models"][k] for k in MODELS} | {"qwen-local": qwen}
            p["calibration"]["bootstrap"] = 500
            p["annotations"]["source"] = "file"

        repo = new_repo(tmp_path / "repo", project)
        first = run(repo, "dvc", "repro")
        for split in ("llm", "vlm"):
            assert f"annotate@{split}: no labels yet (data/labels/{split}.jsonl)" in first.stdout + first.stderr
        before = {s: half_widths(repo, s) for s in ("llm", "vlm")}
        assert "qwen-local" in before["llm"] and "qwen-local" not in before["vlm"]
        commit(repo, "from nothing")

        revealed = {s: label_in_the_app(browser, repo, s) for s in ("llm", "vlm")}
        assert "qwen-local" in revealed["llm"] and "qwen-local" not in revealed["vlm"]
        run(repo, "dvc", "repro")
        after = {s: half_widths(repo, s) for s in ("llm", "vlm")}
    for split in ("llm", "vlm"):
        mean = {k: sum(v[split].values()) / len(v[split]) for k, v in (("before", before), ("after", after))}
        print(f"{split}: mean half-width {mean['before']:.1f} with no label, {mean['after']:.1f} after the app")
        assert mean["after"] < 0.8 * mean["before"], (split, before[split], after[split])
