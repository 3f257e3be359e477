"""Backends by name, from the one backend table (:mod:`sideways.config.backends`).

Each backend's module is imported only when a model or judge uses it, so the offline default
never loads an HTTP stack. A role the table gives no class for (a ``sim`` extractor) is an error
naming the params key.
"""

from __future__ import annotations

import importlib
from typing import cast

from sideways.backends.base import Extractor, Judge, Predictor, RequestSender, RunContext
from sideways.config.backends import backend_entry, backend_names, l3score_backends
from sideways.config.params import JudgeSpec, ModelSpec, l3score_refusal
from sideways.core.errors import ParamsError

__all__ = ["Extractor", "Judge", "Predictor", "RequestSender", "RunContext", "as_sender", "extractor_for",
           "judge_for", "predictor_for"]


# the method each role's class must have -> the table's field naming that class
_ROLE = {"predict": "predictor", "judge": "judge", "extract": "extractor"}


def _make(backend: str, method: str, where: str) -> object:
    """An instance of ``backend``'s class for the role of ``method`` (its module imported now); a
    backend the table does not know, or that has no class for the role, is an error naming ``where``."""
    cls = getattr(backend_entry(backend), _ROLE[method]) if backend in backend_names() else None
    if cls is None:
        able = [n for n in backend_names() if getattr(backend_entry(n), _ROLE[method]) is not None]
        raise ParamsError(f"{where}: backend {backend!r} cannot {method} (backends that can: {', '.join(able)})")
    module = module_of(backend)
    instance: object = getattr(importlib.import_module(module), cls)()
    if not callable(getattr(instance, method, None)):
        raise TypeError(f"{module}.{cls} has no {method}() method")
    return instance


def module_of(backend: str) -> str:
    """The dotted module of ``backend``'s classes: the table's name inside this package, or its dotted path."""
    module = backend_entry(backend).module
    return module if "." in module else f"{__name__}.{module}"


def predictor_for(model: ModelSpec) -> Predictor:
    """The Predictor for ``model.backend``."""
    where = f"models.{model.key}.backend"
    return cast(Predictor, _make(model.backend, "predict", where))


def judge_for(judge: JudgeSpec) -> Judge:
    """The Judge for ``judge.backend``; an l3score judge on a backend without log-probabilities is refused."""
    if judge.kind == "l3score" and judge.backend not in l3score_backends():
        raise ParamsError(f"jury.pool.{judge.key}: {l3score_refusal(judge.key, judge.backend)}")
    where = f"jury.pool.{judge.key}.backend"
    return cast(Judge, _make(judge.backend, "judge", where))


def extractor_for(spec: ModelSpec) -> Extractor:
    """The Extractor for ``riddles.extract``'s backend."""
    where = "params.yaml: riddles.extract.backend"
    return cast(Extractor, _make(spec.backend, "extract", where))


def as_sender(instance: object, backend: str) -> RequestSender | None:
    """``instance`` (a backend object of ``backend``) as a RequestSender when the table says the
    backend sends requests, else None (simulated and replayed backends plan nothing)."""
    if backend in backend_names() and backend_entry(backend).sends_requests:
        return cast(RequestSender, instance)
    return None
