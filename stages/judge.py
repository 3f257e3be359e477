"""judge: each model's panel (docs/method.md §2) grades its predictions, and its exam answers.

One DVC stage over every model (docs/design.md, "Coarse stages"): one job per model and split
(judge@<model>+<split>) and one per model for the exam's short answers (exam_judge@<model>: the
first exam.judges of jury.pool of another provider, with the exam.strategy prompt; multiple
choice needs no judge), all in flight at once (docs/design.md, "Every batch in flight"). Like
predict, an unchanged job is reused and a job that runs restores its previous answers first.
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
RIDDLE_PROMPTS = ("src/sideways/prompts/judge.md", "src/sideways/prompts/l3score.md")  # only the riddles' jobs


def main() -> None:
    params = load_params(stage.arguments().params)
    ctx, cache = run_context(params), RequestCache(params.requests.cache_dir)
    budget.install(run_budget(params, ctx, "judge"))  # the spending cap: over it, nothing is sent
    code, exam_code = code_digest(ROOT, "judge", EXAM_CODE), code_digest(ROOT, "judge", RIDDLE_PROMPTS)
    jobs = riddle_jobs("judge", params, ctx, cache, code) + exam_jobs("exam_judge", params, ctx, cache, exam_code)
    run_stage("judge", jobs, folders("judge", params.splits) + exam_folders("exam_judge"),
              root=Path("."))


if __name__ == "__main__":
    stage.run(main)
