"""`sideways prune` finds the exam files of a removed model, of a model that no longer takes the
exam, and of a removed exam (exam_score depends on their folders)."""

from __future__ import annotations

from helpers import project_params
from sideways.artifacts import paths
from sideways.artifacts.orphans import orphans


def test_exam_files_no_model_takes_are_orphans(tmp_path):
    files = [paths.exam_predictions("demo", "gone"), paths.exam_grades("demo", "gone"),
             paths.exam_predictions("demo", "kept"), paths.exam_predictions("gpqa", "kept"),
             paths.exam_predictions("removed", "kept"),
             paths.answers("exam_predict", "demo", "gone"), paths.answers("exam_judge", "demo", "gone"),
             paths.answers("exam_judge", "demo", "kept"), paths.answers("exam_judge", "gpqa", "llm-only"),
             paths.cost("exam_predict", "demo", "gone"), paths.cost("exam_judge", "demo", "kept"),
             paths.cost("exam_judge", "gpqa", "llm-only"), paths.cost("predict", "llm", "llm-only")]
    for f in files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("x")
    taken = {"llm": ["kept", "llm-only"], "demo": ["kept"], "gpqa": ["kept"]}
    found = {p.relative_to(tmp_path) for p in orphans(taken, ["llm"], tmp_path)}
    assert found == {f for f in files if "gone" in str(f) or "removed" in str(f) or
                     ("llm-only" in str(f) and "gpqa" in str(f))}


def test_prune_says_which_exam_or_model_is_gone_in_one_line_each(tmp_path, monkeypatch, capsys):
    """`exams: {}` leaves the exam's files of every model: the exam is gone, not the models."""
    import yaml

    from sideways.cli import main

    data = project_params()
    data["exams"] = {}
    data["models"].pop("tide-open")
    data["models"]["atlas-mini"]["takes"] = ["llm"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    files = [f(kind, "demo", m) for m in data["models"] for kind, f in
             (("exam_predict", paths.answers), ("exam_judge", paths.answers), ("exam_predict", paths.cost))]
    files += [paths.exam_predictions("demo", m) for m in data["models"]]
    files += [paths.predictions("llm", "tide-open"), paths.predictions("vlm", "tide-open"),
              paths.cost("predict", "vlm", "tide-open"), paths.predictions("vlm", "atlas-mini"),
              paths.cost("judge", "vlm", "atlas-mini"), paths.predictions("llm", "atlas-mini")]
    for f in files:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("x")
    assert main(["prune"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "deleted 20 files of exam demo: it is no longer in params.yaml (exams:); models atlas-large, atlas-mini, "
        "breeze-large, nimbus-pro, quill-max",
        "deleted 3 files of model tide-open: it is no longer in params.yaml (models:); llm, vlm",
        "deleted 2 files of model atlas-mini on vlm: it no longer takes them (models.atlas-mini.takes)"]
    assert paths.predictions("llm", "atlas-mini").exists() and not paths.predictions("vlm", "atlas-mini").exists()
