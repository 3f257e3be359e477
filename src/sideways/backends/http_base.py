"""What the two HTTP backends share: cache, keys, and predict/judge as request runs.

A subclass says where a model lives (:meth:`HttpBackend.target`), which environment variable
holds its key, and how requests travel (:meth:`HttpBackend.transport`). Everything else is
here: the request cache (a rerun of a finished stage sends nothing and needs no key),
retries, redaction of keys from anything stored, and schema rows for every input item.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from sideways.backends.base import RunContext, Spec
from sideways.config.options import HttpOptions, expect_options
from sideways.config.params import EXTRACT_KEY, JudgeSpec, ModelSpec
from sideways.config.requests import RequestSettings
from sideways.core.collector import old_objects_frozen
from sideways.llm import budget
from sideways.llm.cache import RequestCache
from sideways.llm.extract_requests import extraction_calls, extraction_rows, load_template
from sideways.llm.l3score_requests import L3Item, L3Outcome, l3_calls, l3_judgment_calls, l3_judgment_rows, l3_outcome
from sideways.llm.prompts import Prompt, Templates, load_templates
from sideways.llm.retry import RetryPolicy
from sideways.llm.riddle_requests import (
    Target,
    account,
    judgment_calls,
    judgment_rows,
    prediction_calls,
    prediction_parts,
    prediction_rows,
    text_calls,
)
from sideways.llm.runner import Call, Result, RunOptions, Transport, run_calls
from sideways.llm.secrets import Redactor, api_key


def where(spec: Spec) -> str:
    """``models.<key>``, ``jury.pool.<key>`` or ``riddles.extract``: how errors name the params entry."""
    if isinstance(spec, ModelSpec) and spec.key == EXTRACT_KEY:
        return "params.yaml: riddles.extract"
    return f"params.yaml: {'models' if isinstance(spec, ModelSpec) else 'jury.pool'}.{spec.key}"


class HttpBackend:
    """Predictor and Judge over HTTP; subclasses fill in the provider-specific parts."""

    name = "http"

    def __init__(self, templates: Templates | None = None):
        self._templates = templates

    # -- provider-specific parts ---------------------------------------------------------
    def target(self, spec: Spec, settings: RequestSettings) -> Target:
        raise NotImplementedError

    def key_var(self, spec: Spec) -> str | None:
        """The environment variable holding the key, or None when no key is needed."""
        raise NotImplementedError

    def run_options(self, spec: Spec, settings: RequestSettings, ctx: RunContext, n: int) -> RunOptions:
        raise NotImplementedError

    def transport(self, spec: Spec, target: Target, key: str | None, settings: RequestSettings,
                  ctx: RunContext) -> contextlib.AbstractAsyncContextManager[Transport]:
        raise NotImplementedError

    def after_run(self, spec: Spec, results: Sequence[Result], ctx: RunContext) -> None:
        """Backend bookkeeping once a run is over (default: nothing)."""

    # -- shared --------------------------------------------------------------------------
    @property
    def templates(self) -> Templates:
        if self._templates is None:
            self._templates = load_templates()
        return self._templates

    def generation(self, spec: Spec) -> tuple[int, float | None]:
        """``max_tokens`` and ``temperature`` from the entry (generation is tracked with the model)."""
        o = expect_options(spec.options, HttpOptions, where(spec))
        return o.max_tokens, o.temperature

    def plan_predictions(self, riddles: pd.DataFrame, model: ModelSpec,
                         ctx: RunContext) -> tuple[Target, Sequence[Call]]:
        """The requests :meth:`predict` would make (used by the dry run and ``cache why``)."""
        target = self.target(model, ctx.requests)
        return target, prediction_calls(riddles, model, target, self.templates)

    def plan_judgments(self, riddles: pd.DataFrame, predictions: pd.DataFrame, judge: JudgeSpec,
                       ctx: RunContext) -> tuple[Target, list[Call]]:
        target = self.target(judge, ctx.requests)
        if judge.kind == "l3score":
            return target, l3_judgment_calls(riddles, predictions, judge, target, self.templates)
        return target, judgment_calls(riddles, predictions, judge, target, self.templates)

    def plan_extractions(self, riddles: pd.DataFrame, spec: ModelSpec,
                         ctx: RunContext) -> tuple[Target, list[Call]]:
        """The requests :meth:`extract` would make (the extract stage; used by the dry run)."""
        target = self.target(spec, ctx.requests)
        return target, extraction_calls(riddles, spec.key, target, load_template())

    def extract(self, riddles: pd.DataFrame, spec: ModelSpec, ctx: RunContext) -> pd.DataFrame:
        """One extraction row per riddle (:data:`sideways.llm.extract_requests.ROW_COLUMNS`)."""
        target, calls = self.plan_extractions(riddles, spec, ctx)
        redact = self.redactor(spec, ctx)
        results = self._run(spec, target, calls, ctx, f"extract {spec.name}", redact)
        return extraction_rows(riddles, results, target, ctx.prices, ctx.requests.batch_discount, redact)

    def predict(self, riddles: pd.DataFrame, model: ModelSpec, ctx: RunContext) -> pd.DataFrame:
        target, calls = self.plan_predictions(riddles, model, ctx)
        redact = self.redactor(model, ctx)
        discount = ctx.requests.batch_discount
        parts: dict[str, dict[str, Any]] = {}

        def as_it_arrives(result: Result) -> None:
            # Rows take shape while the other requests are out; prediction_rows does the rest.
            with contextlib.suppress(Exception):  # prediction_rows computes it again, and raises there
                parts[result.key] = prediction_parts(result, target, ctx.prices, discount, redact)

        results = self._run(model, target, calls, ctx, f"predict {model.key}", redact, as_it_arrives)
        return prediction_rows(riddles, results, model, target, ctx.prices, discount, redact, parts)

    def judge(self, riddles: pd.DataFrame, predictions: pd.DataFrame, judge: JudgeSpec,
              ctx: RunContext) -> pd.DataFrame:
        target, calls = self.plan_judgments(riddles, predictions, judge, ctx)
        redact = self.redactor(judge, ctx)
        results = self._run(judge, target, calls, ctx, f"judge {judge.key}", redact)
        rows = l3_judgment_rows if judge.kind == "l3score" else judgment_rows
        return rows(predictions, results, judge, target, ctx.prices, ctx.requests.batch_discount, redact)

    def exchange(self, spec: Spec, requests: Sequence[tuple[str, str, Prompt]], ctx: RunContext,
                 desc: str) -> tuple[Target, list[Result], Redactor]:
        """Free-text requests ``(item, label, prompt)`` through the request layer (cached, retried,
        priced), as exams ask them; results in the requests' order."""
        target = self.target(spec, ctx.requests)
        redact = self.redactor(spec, ctx)
        results = self._run(spec, target, text_calls(requests, target), ctx, desc, redact)
        return target, results, redact

    def l3score(self, items: Sequence[L3Item], judge: JudgeSpec, ctx: RunContext) -> list[L3Outcome]:
        """L3Score each (question, candidate, reference) item with ``judge``, through the request cache."""
        target = self.target(judge, ctx.requests)
        calls = l3_calls(items, judge, target, self.templates)
        redact = self.redactor(judge, ctx)
        results = self._run(judge, target, calls, ctx, f"l3score {judge.key}", redact)
        return [l3_outcome(r, target, ctx.prices, ctx.requests.batch_discount, redact) for r in results]

    def redactor(self, spec: Spec, ctx: RunContext) -> Redactor:
        """Removes the spec's key from anything stored (its value, if the environment has one)."""
        var = self.key_var(spec)
        return Redactor([ctx.env.get(var) if var else None])

    def _run(self, spec: Spec, target: Target, calls: Sequence[Call], ctx: RunContext, desc: str,
             redact: Redactor, on_fresh: Callable[[Result], None] | None = None) -> list[Result]:
        settings = ctx.requests
        cache = RequestCache(settings.cache_dir)
        var = self.key_var(spec)
        options = self.run_options(spec, settings, ctx, len(calls))
        options = RunOptions(**{**options.__dict__, "desc": desc, "seed": ctx.seed, "meter": meter(spec, target, ctx)})
        acct = account(target, ctx.prices, settings.batch_discount)

        def open_transport() -> contextlib.AbstractAsyncContextManager[Transport]:
            # Only when something must be sent: a rerun from the cache needs no key.
            key = api_key(ctx.env, var, where(spec)) if var else None
            return self.transport(spec, target, key, settings, ctx)

        with old_objects_frozen():  # no full collection stalls the event loop (sideways.core.collector)
            results = asyncio.run(run_calls(calls, open_transport, cache, options, acct, redact, on_fresh=on_fresh))
        self.after_run(spec, results, ctx)
        return results


def meter(spec: Spec, target: Target, ctx: RunContext) -> budget.Meter | None:
    """How this run's requests charge the spending cap, when one is set (:mod:`sideways.llm.budget`)."""
    run_budget = budget.current()
    if run_budget is None:
        return None
    s = ctx.requests

    def worst(call: Call) -> float | None:
        return budget.worst_case(call.body, target.price_names, target.gen.max_tokens, ctx.prices, batch=target.batch,
                                 discount=s.batch_discount, image_tokens=s.image_tokens)

    def expected(call: Call) -> float | None:
        return budget.expected_cost(call.body, target.price_names, min(s.expected_output_tokens, target.gen.max_tokens),
                                    ctx.prices, batch=target.batch, discount=s.batch_discount,
                                    image_tokens=s.image_tokens)

    return budget.Meter(run_budget, budget.owner(spec.key), worst, expected)


def policy(settings: RequestSettings, **overrides: Any) -> RetryPolicy:
    """The retry policy of ``requests:`` (attempts, backoff, Retry-After cap)."""
    return RetryPolicy(settings.max_attempts, settings.backoff_s, settings.max_backoff_s,
                       settings.max_retry_after_s, **overrides)
