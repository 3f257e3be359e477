"""What backends provide: a Predictor answers riddles, a Judge grades predictions, an Extractor
runs the extract stage, and a RequestSender (a backend of the table's "sends requests") plans
its requests without sending them and exchanges free-text prompts (the exam).

Both return plain DataFrames with the columns of :data:`sideways.artifacts.schema.PREDICTIONS` and
:data:`sideways.artifacts.schema.JUDGMENTS`, one row per input item, failures included as rows with
``status`` ``parse_error`` or ``api_error`` (never silently dropped). Backends receive
everything they need as arguments; a backend that calls a paid API does so through the
request cache named in :class:`RunContext`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import pandas as pd

from sideways.config.params import JudgeSpec, ModelSpec
from sideways.config.prices import PriceTable
from sideways.config.requests import RequestSettings
from sideways.llm.prompts import Prompt
from sideways.llm.riddle_requests import Target
from sideways.llm.runner import Call, Result
from sideways.llm.secrets import Redactor

Spec = ModelSpec | JudgeSpec


@dataclass(frozen=True)
class RunContext:
    """Settings shared by every backend call of one stage run (the request cache is
    ``requests.cache_dir``)."""

    seed: int = 0
    progress: bool = False
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    requests: RequestSettings = field(default_factory=RequestSettings)
    prices: PriceTable = field(default_factory=PriceTable)


class Predictor(Protocol):
    def predict(self, riddles: pd.DataFrame, model: ModelSpec, ctx: RunContext) -> pd.DataFrame:
        """One PREDICTIONS row per riddle of ``riddles`` (a RIDDLES table)."""
        ...


class Judge(Protocol):
    def judge(
        self, riddles: pd.DataFrame, predictions: pd.DataFrame, judge: JudgeSpec, ctx: RunContext
    ) -> pd.DataFrame:
        """One JUDGMENTS row per prediction of ``predictions``, graded against ``riddles``."""
        ...


class Extractor(Protocol):
    def extract(self, riddles: pd.DataFrame, spec: ModelSpec, ctx: RunContext) -> pd.DataFrame:
        """One row per riddle with the columns of :data:`sideways.llm.extract_requests.ROW_COLUMNS`."""
        ...


class RequestSender(Protocol):
    """A backend whose work goes through the request layer (cached, retried, priced): what the
    dry run plans and the exam asks through. The backend table says which backends are one
    (``sends_requests``); :func:`sideways.backends.as_sender` gives the typed view."""

    def target(self, spec: Spec, settings: RequestSettings) -> Target:
        """Where ``spec``'s requests go, and in which wire format."""
        ...

    def plan_predictions(self, riddles: pd.DataFrame, model: ModelSpec,
                         ctx: RunContext) -> tuple[Target, Sequence[Call]]:
        """The requests ``predict`` would send, not sent."""
        ...

    def plan_judgments(self, riddles: pd.DataFrame, predictions: pd.DataFrame, judge: JudgeSpec,
                       ctx: RunContext) -> tuple[Target, list[Call]]:
        """The requests ``judge`` would send, not sent."""
        ...

    def plan_extractions(self, riddles: pd.DataFrame, spec: ModelSpec,
                         ctx: RunContext) -> tuple[Target, list[Call]]:
        """The requests ``extract`` would send, not sent."""
        ...

    def exchange(self, spec: Spec, requests: Sequence[tuple[str, str, Prompt]], ctx: RunContext,
                 desc: str) -> tuple[Target, list[Result], Redactor]:
        """Free-text ``(item, label, prompt)`` requests sent; results in their order."""
        ...
