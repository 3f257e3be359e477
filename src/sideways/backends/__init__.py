"""Backends by name: ``sim`` (offline, default), ``batch``, ``openai-compatible``, ``replay``."""

from __future__ import annotations

from sideways.backends.base import Judge, Predictor, RunContext
from sideways.errors import ParamsError
from sideways.params import JudgeSpec, ModelSpec

__all__ = ["Judge", "Predictor", "RunContext", "predictor_for", "judge_for"]


def predictor_for(model: ModelSpec) -> Predictor:
    """The Predictor for ``model.backend``."""
    if model.backend == "sim":
        from sideways.backends.sim import SimPredictor

        return SimPredictor()
    if model.backend == "openai-compatible":
        from sideways.backends.openai_compatible import OpenAICompatibleBackend

        return OpenAICompatibleBackend()
    if model.backend == "batch":
        from sideways.backends.batch import BatchBackend

        return BatchBackend()
    if model.backend == "replay":
        from sideways.backends.replay import ReplayPredictor

        return ReplayPredictor()
    raise ParamsError(f"models.{model.key}.backend: backend {model.backend!r} is not available for predictions")


def judge_for(judge: JudgeSpec) -> Judge:
    """The Judge for ``judge.backend``."""
    if judge.backend == "sim":
        from sideways.backends.sim import SimJudge

        return SimJudge()
    if judge.backend == "openai-compatible":
        from sideways.backends.openai_compatible import OpenAICompatibleBackend

        return OpenAICompatibleBackend()
    if judge.backend == "batch":
        from sideways.backends.batch import BatchBackend

        return BatchBackend()
    if judge.backend == "replay":
        from sideways.backends.replay import ReplayJudge

        return ReplayJudge()
    raise ParamsError(f"jury.pool.{judge.key}.backend: backend {judge.backend!r} is not available for judges")
