"""The :class:`RunContext` of one stage run, from params.yaml's ``requests:`` and ``prices:``."""

from __future__ import annotations

from sideways.backends.base import RunContext
from sideways.config.params import Params
from sideways.core import progress
from sideways.llm.secrets import environment


def run_context(params: Params) -> RunContext:
    """The RunContext for backends: seed, request settings, prices, progress, keys (never from params)."""
    return RunContext(
        seed=params.seed,
        progress=progress.enabled(),
        env=environment(".env"),  # keys from the shell or .env, never from params
        requests=params.requests,
        prices=params.prices,
    )
