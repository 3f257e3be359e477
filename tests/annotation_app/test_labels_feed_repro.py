"""End to end: labels written by the annotation app feed `dvc repro`, and the leaderboard follows.

A copy of this repository (3 models, the llm split) is reproduced with simulated labels, and
with no label file at all (data/labels holds only its README, as on a fresh clone). The app then
labels every prediction "answer and justification correct" over its API; the label file alone
makes `annotate@llm` stale, and with `annotations.source: file` the next `dvc repro` calibrates
on those labels: under the v1 posterior every bin's positive rate is 1, so every score becomes 100.0.
The latent posterior (the default) reads a label as one more rater that can err: labels that every
judge contradicts are partly doubted, so its scores rise toward 100 without all reaching it.
"""

from __future__ import annotations

import json

import httpx
import pytest

from helpers.harness import edit_params, new_repo, repro, run
from helpers.label_project import Served

pytestmark = pytest.mark.slow

SMALL_MODELS = ("atlas-large", "nimbus-pro", "tide-open")


def _board(repo):
    return json.loads((repo / "metrics/leaderboard_llm.json").read_text())


def _label_everything_correct(url: str) -> int:
    done = 0
    with httpx.Client(base_url=url, timeout=30) as client:
        token = None
        while (r := client.get("/api/next", headers={"X-CSRF-Token": token} if token else {})).status_code == 200:
            token = r.json()["token"]
            body = {"item_id": r.json()["item_id"], "answer_correct": True, "justification_correct": True}
            assert client.post("/api/labels", json=body, headers={"X-CSRF-Token": token}).status_code == 200
            done += 1
    return done


def test_a_label_file_written_by_the_app_feeds_dvc_repro(tmp_path):
    def small(p):
        p["splits"] = ["llm"]
        p["models"] = {k: p["models"][k] for k in SMALL_MODELS}
        p["calibration"].update(bootstrap=2000, posterior="v1")  # v1: every score 100.0, a readable outcome
        p["annotations"].update(budget=100000, double_share=0.0)  # label everything: a readable outcome

    repo = new_repo(tmp_path / "repo", small)
    assert sorted(p.name for p in (repo / "data/labels").iterdir()) == ["README.md"]
    assert "annotate@llm" in repro(repo)
    before = _board(repo)
    assert any(entry["score"] < 100 for entry in before.values())

    with Served(repo, "ana") as server:
        labelled = _label_everything_correct(server.url)
    assert labelled > 0
    assert "annotate@llm" in run(repo, "dvc", "status", "annotate@llm").stdout  # data/labels is a dep

    edit_params(repo, lambda p: p["annotations"].update(source="file"))
    assert {"annotate@llm", "calibrate@llm", "rank@llm"} <= repro(repo)
    after = _board(repo)
    assert set(after) == set(before)
    assert {m: e["score"] for m, e in after.items()} == dict.fromkeys(SMALL_MODELS, 100.0)
    annotations = run(repo, "python", "-c", "import pandas as pd; print(len(pd.read_parquet('data/annotations/llm.parquet')))")
    assert int(annotations.stdout) == labelled

    edit_params(repo, lambda p: p["calibration"].update(posterior="latent"))
    assert {"calibrate@llm", "rank@llm"} <= repro(repo)
    latent = {m: e["score"] for m, e in _board(repo).items()}
    assert all(before[m]["score"] < latent[m] <= 100.0 for m in SMALL_MODELS), (before, latent)
    assert max(latent.values()) == 100.0
