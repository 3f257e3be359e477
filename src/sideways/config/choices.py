"""The closed sets of values params.yaml accepts, each defined once.

Each is a ``Literal`` type (what code is checked against) and the tuple of its values (what
the validators and CLI choices use). The verdict field, row status, calibration method and
empty-bin policy belong to the artifact schema (scoring uses them and imports nothing above
artifacts); they are re-exported here so params code finds every choice in one place.
"""

from __future__ import annotations

from typing import Literal, get_args

from sideways.artifacts.schema import (
    EMPTY_BINS,
    FIELDS,
    INTERVALS,
    METHODS,
    POSTERIORS,
    STATUSES,
    EmptyBin,
    Field,
    IntervalName,
    Method,
    PosteriorName,
    Status,
)

__all__ = [
    "ANNOTATION_SOURCES", "AnnotationSource", "Backend", "EMPTY_BINS", "EmptyBin", "FIELDS",
    "Field", "INTERVALS", "IntervalName", "JUDGE_KINDS", "JudgeKind", "MAX_TOKENS_FIELDS",
    "METHODS", "MaxTokensField", "Method", "POSTERIORS", "PosteriorName", "QUEUE_POLICIES", "QueuePolicy",
    "RIDDLE_SOURCES", "RiddleSource",
    "STATUSES", "Status",
]

Backend = str
"""How a model or judge is run: a name of the backend table (:data:`sideways.config.backends.BACKENDS`),
which is the one list of them (a new backend is one entry there, not a new literal here)."""

QueuePolicy = Literal["lookahead", "latent", "uncertain", "width", "holes"]
"""The annotation app's order: the label expected to narrow the latent posterior's intervals most by that posterior
itself (looking a few labels ahead) or in closed form, the predictions the latent-class model is least sure of
first, the label expected to narrow v1's posterior intervals most, or empty jury-score bins first, then spread."""
QUEUE_POLICIES: tuple[QueuePolicy, ...] = get_args(QueuePolicy)

JudgeKind = Literal["verdict", "l3score"]
"""What a judge is asked: the JSON verdict prompt (``judge.md``), or L3Score's Yes/No question
whose top-5 log-probabilities give a graded score (``l3score.md``, docs/method.md §7)."""
JUDGE_KINDS: tuple[JudgeKind, ...] = get_args(JudgeKind)

RiddleSource = Literal["demo", "hf", "wiki"]
"""Where the riddles come from: the bundled demo set, the published dataset, or the wiki."""
RIDDLE_SOURCES: tuple[RiddleSource, ...] = get_args(RiddleSource)

AnnotationSource = Literal["sim", "file"]
"""Where the human labels come from: simulated, or a labels file."""
ANNOTATION_SOURCES: tuple[AnnotationSource, ...] = get_args(AnnotationSource)

MaxTokensField = Literal["max_tokens", "max_completion_tokens"]
"""The name an OpenAI-style API gives the output-token limit in a request body."""
MAX_TOKENS_FIELDS: tuple[MaxTokensField, ...] = get_args(MaxTokensField)
