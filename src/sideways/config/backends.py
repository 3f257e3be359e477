"""The backends, in one table: the only place a backend's name is looked up.

Each entry says where the backend's classes live (a module of ``sideways.backends``, or any
importable dotted path; imported by :mod:`sideways.backends` only when a model or judge uses
it, so the offline default never loads an HTTP stack, and this package imports no backend),
which options class a ``models:`` and a ``jury.pool:`` entry of it is parsed into, and what it
can do. Every other module asks this table (``params.py`` for the names and the options,
``sideways.backends`` for the classes, the dry run for "sends requests" and "batch", the exam
for "simulated" and "replays") instead of comparing names. Adding a backend is one entry here
and its module (docs/real-models.md, "Adding a backend or a batch provider").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sideways.config.options import (
    BatchOptions,
    ImportedOptions,
    JudgeOptions,
    ModelOptions,
    OpenAICompatibleOptions,
    ReplayOptions,
    SimJudgeOptions,
    SimModelOptions,
    parse_options,
)


@dataclass(frozen=True)
class BackendEntry:
    """One backend: its module and classes (None: it cannot take that role), its options
    classes, and its capabilities."""

    module: str  # the module holding the classes below: a module of sideways.backends, or a dotted path
    predictor: str | None  # answers riddles (and, through the request layer or offline, exams)
    judge: str | None  # grades predictions and exam short answers
    extractor: str | None  # can run the extract stage
    model_options: type  # what a models: entry of this backend is parsed into
    judge_options: type  # what a jury.pool: entry of this backend is parsed into
    sends_requests: bool = False  # through the request layer: cached, retried, priced, planned by the dry run
    batch: bool = False  # a provider Batch API: the dry run counts batches and the batch discount
    logprobs: bool = False  # returns top-5 log-probabilities: may be an l3score judge (docs/method.md §7)
    simulated: bool = False  # offline and seeded, from the simulated truth (docs/design.md)
    replays: bool = False  # reads recorded results from a file: nothing is asked, failures are the file's
    # a run made elsewhere (an exam's ``runs:``): made by params.py, never written in models:; its answers and
    # grades are the run's, read by exam_items, so it answers no riddle and no judge grades it
    imported: bool = False


BACKENDS: dict[str, BackendEntry] = {
    "sim": BackendEntry("sim", "SimPredictor", "SimJudge", None,
                        SimModelOptions, SimJudgeOptions, logprobs=True, simulated=True),
    "batch": BackendEntry("batch", "BatchBackend", "BatchBackend", "BatchBackend",
                          BatchOptions, BatchOptions, sends_requests=True, batch=True),
    "openai-compatible": BackendEntry("openai_compatible", "OpenAICompatibleBackend",
                                      "OpenAICompatibleBackend", "OpenAICompatibleBackend",
                                      OpenAICompatibleOptions, OpenAICompatibleOptions, sends_requests=True,
                                      logprobs=True),
    "replay": BackendEntry("replay", "ReplayPredictor", "ReplayJudge", "ReplayExtractor",
                           ReplayOptions, ReplayOptions, replays=True),
    "imported": BackendEntry("imported", None, None, None, ImportedOptions, ImportedOptions, imported=True),
}


def backend_entry(name: str) -> BackendEntry:
    """The entry of backend ``name`` (a KeyError names it: params.py has already checked it)."""
    return BACKENDS[name]


def backend_names() -> tuple[str, ...]:
    """Every backend's name params.yaml accepts, in the table's order (not ``imported``: an exam's runs make those)."""
    return tuple(name for name, entry in BACKENDS.items() if not entry.imported)


def l3score_backends() -> tuple[str, ...]:
    """The backends an ``l3score`` judge may use: those that return log-probabilities (or simulate
    them). Batch APIs are refused: Anthropic's and Gemini's return none, and batchling's batches
    are not set up to ask for them; a replay file holds verdicts, not log-probabilities."""
    return tuple(name for name, entry in BACKENDS.items() if entry.logprobs)


def model_options(backend: str, data: Mapping[str, Any], where: str) -> ModelOptions:
    """The options of a ``models:`` entry of ``backend`` (``data`` without its identity keys)."""
    options: ModelOptions = parse_options(backend_entry(backend).model_options, backend, data, where)
    return options


def judge_options(backend: str, data: Mapping[str, Any], where: str) -> JudgeOptions:
    """The options of a ``jury.pool:`` entry of ``backend`` (``data`` without its identity keys)."""
    options: JudgeOptions = parse_options(backend_entry(backend).judge_options, backend, data, where)
    return options
