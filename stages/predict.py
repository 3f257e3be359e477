"""predict: every model answers every riddle of every split, one job per model and split.

One DVC stage over every model (docs/design.md, "Coarse stages"). A job whose inputs did not
change reuses its previous files byte for byte; a job that runs first restores the answers its
previous results carried, so nothing already paid is paid again (docs/design.md, "Answers travel").
"""

from pathlib import Path

from sideways.artifacts.fingerprint import code_digest
from sideways.backends.coarse import run_stage
from sideways.backends.context import run_context
from sideways.backends.jobs import folders, predict_job
from sideways.config.params import load_params
from sideways.core import stage
from sideways.llm.cache import RequestCache

ROOT = Path(__file__).resolve().parents[1]  # where dvc.yaml names this stage's code


def main() -> None:
    params = load_params(stage.arguments().params)
    ctx, cache, code = run_context(params), RequestCache(params.requests.cache_dir), code_digest(ROOT, "predict")
    jobs = [predict_job(params, m, split, ctx, cache, code) for split in params.splits for m in params.models]
    run_stage("predict", jobs, folders("predict", params.splits))


if __name__ == "__main__":
    stage.run(main)
