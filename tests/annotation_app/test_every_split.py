"""Labelling a split some model does not take (the README's text-only model, ``takes: [llm, demo]``):
the app and `sideways annotate stats` cover the models that take it and say once which are skipped."""

from __future__ import annotations

import httpx

from helpers.label_project import MODELS, Served, label_project
from sideways.cli import main

TEXT_ONLY = {"quill-max": ["llm", "demo"]}


def test_stats_on_a_split_a_text_only_model_does_not_take(tmp_path, monkeypatch, capsys):
    project = label_project(tmp_path / "p", n_riddles=4, splits=("llm", "vlm"), takes=TEXT_ONLY)
    assert not (project / "data/predictions/vlm/quill-max.parquet").exists()
    monkeypatch.chdir(project)
    assert main(["annotate", "stats", "--split", "vlm"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("vlm: 0 of 4 predictions labelled (budget), 0 labels")  # 2 models x 4 riddles, share 0.5
    assert out.count("quill-max") == 1 and "quill-max: not labelled on vlm (their `takes:` leaves vlm out)" in out
    assert "with few real labels the intervals are wider than with simulated ones (expected)" in out
    assert main(["annotate", "stats", "--split", "llm"]) == 0
    assert "quill-max" not in capsys.readouterr().out.split("\n\n")[0]  # it takes llm: nothing skipped


def test_serve_a_split_a_text_only_model_does_not_take(tmp_path):
    project = label_project(tmp_path / "p", n_riddles=3, splits=("llm", "vlm"), takes=TEXT_ONLY,
                            annotations={"budget": 6, "double_share": 0.0})
    models = set()
    with Served(project, "ana", split="vlm") as s, httpx.Client(base_url=s.url) as c:
        token = None
        while (r := c.get("/api/next", headers={"X-CSRF-Token": token} if token else {})).status_code == 200:
            token = r.json()["token"]
            done = c.post("/api/labels", headers={"X-CSRF-Token": token}, json={
                "item_id": r.json()["item_id"], "answer_correct": True, "justification_correct": False})
            assert done.status_code == 200, done.text
            models.add(done.json()["model"])
        assert r.status_code == 204
    assert models == set(MODELS) - {"quill-max"}
    assert (project / "data/labels/vlm.jsonl").read_text().count("\n") == 6
