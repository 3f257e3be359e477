"""exam_judge: every model's short answers graded against the rubric (data/exam/grades/<model>.parquet).

The judges are the first exam.judges of jury.pool of another provider than the model's; the
prompt is the exam.strategy template. Multiple choice needs no judge. One DVC stage over every
model, one job per model (docs/design.md, "Coarse stages").
"""

from pathlib import Path

from sideways.artifacts.fingerprint import code_digest
from sideways.backends.coarse import run_stage
from sideways.backends.context import run_context
from sideways.config.params import load_params
from sideways.core import stage
from sideways.exams.jobs import exam_folders, exam_judge_job
from sideways.llm.cache import RequestCache

ROOT = Path(__file__).resolve().parents[1]  # where dvc.yaml names this stage's code


def main() -> None:
    params = load_params(stage.arguments().params)
    ctx, cache = run_context(params), RequestCache(params.requests.cache_dir)
    code = code_digest(ROOT, "exam_judge")
    run_stage("exam_judge", [exam_judge_job(params, m, ctx, cache, code) for m in params.models],
              exam_folders("exam_judge"))


if __name__ == "__main__":
    stage.run(main)
