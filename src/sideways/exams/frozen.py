"""A sampled exam's design for one model, frozen at its first run (``data/exam/samples/<exam>/<model>.json``).

The design is the order in which the model is asked the exam's questions: the first ``sample``
of it are asked. It is drawn once, at the model's first run, by :func:`sideways.exams.sample.design`
on each item's ease learned from the models already scored (their previous results; every ease
equal, so a seeded random order, while there are none), with a seed of its own per (seed, exam,
model). The file keeps the order and the ease, so a later run asks the same questions whatever
models were added since, and a larger ``sample`` asks the next questions of the same order: every
answer already paid is reused. The estimate (:mod:`sideways.exams.sampled`) reads the same file.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from sideways.core.errors import SchemaError
from sideways.exams import sample

VERSION = 1


@dataclass(frozen=True)
class Frozen:
    """One model's design on one exam: ``order`` (every item, the order asked), each item's ``ease``,
    the ``strata`` count and ``seed`` of the design, and the models the ease was learned from."""

    order: tuple[str, ...]
    ease: Mapping[str, float]
    strata: int
    seed: int
    learned_from: tuple[str, ...]

    def asked(self, n: int) -> tuple[str, ...]:
        """The ``n`` questions asked: the first ``n`` of the order (nested in ``n``)."""
        return self.order[:n]


def design_seed(seed: int, exam: str, model: str) -> int:
    """The design's seed for ``model`` on ``exam``: its own, so models are asked different questions."""
    return int.from_bytes(hashlib.sha256(f"{seed}\x1f{exam}\x1f{model}".encode()).digest()[:8], "big")


def learned_ease(item_ids: Sequence[str], results: Sequence[pd.DataFrame]) -> dict[str, float]:
    """Each item's ease (:func:`sideways.exams.sample.ease`) from earlier models' EXAM_DETAIL rows:
    the share of its points each earned, over the models that were asked it (failed rows left out)."""
    right = dict.fromkeys(item_ids, 0.0)
    runs = dict.fromkeys(item_ids, 0.0)
    for detail in results:
        done = detail[(detail["status"] != "api_error") & detail["item_id"].isin(right)]
        for item, earned, points in zip(done["item_id"], done["earned"], done["points"], strict=True):
            right[str(item)] += min(1.0, max(0.0, float(earned) / float(points)))
            runs[str(item)] += 1.0
    values = sample.ease([right[i] for i in item_ids], [runs[i] for i in item_ids])
    return {i: round(float(v), 12) for i, v in zip(item_ids, values, strict=True)}


def draw(item_ids: Sequence[str], ease: Mapping[str, float], seed: int, learned_from: Sequence[str]) -> Frozen:
    """The full nested order of ``item_ids`` on ``ease`` (:func:`sideways.exams.sample.design`)."""
    values = np.array([ease[i] for i in item_ids], dtype=float)
    count = min(sample.STRATA, len(item_ids))
    order = sample.design(values, len(item_ids), seed, count=count)
    return Frozen(tuple(item_ids[int(i)] for i in order), dict(ease), count, seed, tuple(sorted(learned_from)))


def frozen_bytes(frozen: Frozen) -> bytes:
    """The file's bytes: sorted, stable JSON (same design, same bytes)."""
    data = {"version": VERSION, "order": list(frozen.order), "ease": dict(sorted(frozen.ease.items())),
            "strata": frozen.strata, "seed": frozen.seed, "learned_from": list(frozen.learned_from)}
    return (json.dumps(data, sort_keys=True, indent=1) + "\n").encode()


def parse_frozen(data: bytes, source: str) -> Frozen:
    """A design file's content; a :class:`SchemaError` naming ``source`` and the field when invalid."""
    try:
        raw: Any = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise SchemaError(f"{source}: not a sample design ({type(exc).__name__})") from None
    if not isinstance(raw, dict) or raw.get("version") != VERSION:
        raise SchemaError(f"{source}: not a sample design of version {VERSION}")
    order, ease = raw.get("order"), raw.get("ease")
    if not isinstance(order, list) or not order or not all(isinstance(i, str) for i in order) \
            or len(set(order)) != len(order):
        raise SchemaError(f"{source}: field 'order' must be a non-empty list of distinct item ids")
    if not isinstance(ease, dict) or set(ease) != set(order) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in ease.values()):
        raise SchemaError(f"{source}: field 'ease' must map every item of 'order' to a finite number")
    strata, seed, learned = raw.get("strata"), raw.get("seed"), raw.get("learned_from")
    if not isinstance(strata, int) or isinstance(strata, bool) or not 1 <= strata <= len(order):
        raise SchemaError(f"{source}: field 'strata' must be an integer from 1 to the number of items")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise SchemaError(f"{source}: field 'seed' must be a non-negative integer")
    if not isinstance(learned, list) or not all(isinstance(m, str) for m in learned):
        raise SchemaError(f"{source}: field 'learned_from' must be a list of model keys")
    return Frozen(tuple(order), {str(k): float(v) for k, v in ease.items()}, strata, seed, tuple(learned))


def choose(item_ids: Sequence[str], previous: Frozen | None, earlier: Mapping[str, pd.DataFrame],
           seed: int) -> Frozen:
    """The model's design: its ``previous`` one while the exam holds the same items (frozen: a model
    added since changes nothing), else one drawn on the ease learned from the ``earlier`` models'
    EXAM_DETAIL rows (by model key), with the model's own ``seed`` (:func:`design_seed`)."""
    if previous is not None and sorted(previous.order) == sorted(item_ids):
        return previous
    ease = learned_ease(item_ids, [earlier[m] for m in sorted(earlier)])
    return draw(item_ids, ease, seed, list(earlier))
