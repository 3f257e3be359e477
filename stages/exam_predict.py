"""exam_predict: every model answers every exam question (data/exam/predictions/<model>.parquet).

One DVC stage over every model, one job per model (docs/design.md, "Coarse stages"); like predict,
an unchanged job is reused and a job that runs restores its previous answers first.
"""

from pathlib import Path

from sideways.artifacts.fingerprint import code_digest
from sideways.backends.coarse import run_stage
from sideways.backends.context import run_context
from sideways.config.params import load_params
from sideways.core import stage
from sideways.exams.jobs import exam_folders, exam_predict_job
from sideways.llm.cache import RequestCache

ROOT = Path(__file__).resolve().parents[1]  # where dvc.yaml names this stage's code


def main() -> None:
    params = load_params(stage.arguments().params)
    ctx, cache = run_context(params), RequestCache(params.requests.cache_dir)
    code = code_digest(ROOT, "exam_predict")
    run_stage("exam_predict", [exam_predict_job(params, m, ctx, cache, code) for m in params.models],
              exam_folders("exam_predict"))


if __name__ == "__main__":
    stage.run(main)
