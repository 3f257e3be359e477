"""predict: every model answers every riddle of every split, and every exam question.

One DVC stage over every model (docs/design.md, "Coarse stages"): one job per model and split
(predict@<model>+<split>) and one per model for the exam (exam_predict@<model>), all in flight at
once, so the exam's answers wait in the same round of batches as the riddles' (docs/design.md,
"Every batch in flight"). A job whose inputs did not change reuses its previous files byte for
byte; a job that runs first restores the answers its previous results carried, so nothing already
paid is paid again (docs/design.md, "Answers travel").
"""

from pathlib import Path

from sideways.artifacts.fingerprint import code_digest
from sideways.config.params import load_params
from sideways.core import stage
from sideways.jobs.coarse import run_stage
from sideways.jobs.context import run_context
from sideways.jobs.exams import EXAM_CODE, exam_folders, exam_jobs
from sideways.jobs.riddles import folders, riddle_jobs
from sideways.llm import budget
from sideways.llm.cache import RequestCache
from sideways.planning.cap import run_budget

ROOT = Path(__file__).resolve().parents[1]  # where dvc.yaml names this stage's code
RIDDLE_PROMPTS = ("src/sideways/prompts/predict_",)  # what only the riddles' jobs read


def main() -> None:
    params = load_params(stage.arguments().params)
    ctx, cache = run_context(params), RequestCache(params.requests.cache_dir)
    budget.install(run_budget(params, ctx, "predict"))  # the spending cap: over it, nothing is sent
    code, exam_code = code_digest(ROOT, "predict", EXAM_CODE), code_digest(ROOT, "predict", RIDDLE_PROMPTS)
    jobs = riddle_jobs("predict", params, ctx, cache, code) + exam_jobs("exam_predict", params, ctx, cache, exam_code)
    run_stage("predict", jobs, folders("predict", params.splits) + exam_folders("exam_predict"),
              root=Path("."))


if __name__ == "__main__":
    stage.run(main)
