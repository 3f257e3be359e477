"""`sideways prune` finds the exam files of a removed model, of a model that no longer takes the
exam, and of a removed exam (exam_score depends on their folders)."""

from __future__ import annotations

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
