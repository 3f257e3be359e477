"""The ``requests:`` section of params.yaml: how requests to real models are made.

Every backend that calls a model reads its limits from here, and a model's own options
override the per-model ones (``concurrency``, ``rpm``, ``timeout_s``). Nothing here changes
what is asked of a model: generation parameters (``max_tokens``, ``temperature``) belong to
the model's own entry, which its DVC stages track, so changing them reruns exactly those stages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from sideways.config import checks
from sideways.config.prices import amount


@dataclass(frozen=True)
class RequestSettings:
    """How requests are made, retried, batched and accounted for (see docs/real-models.md)."""

    cache_dir: Path = Path(".sideways/cache")
    max_failure_share: float = 0.05
    max_attempts: int = 6
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0
    max_retry_after_s: float = 300.0
    timeout_s: float = 120.0
    concurrency: int = 16
    rpm: float | None = None
    batch_size: int = 1000
    batch_window_s: float = 2.0
    batch_poll_s: float = 30.0
    batch_discount: float = 0.5
    expected_output_tokens: int = 500
    image_tokens: int = 1000
    # the spending cap (docs/real-models.md, "A spending cap"): USD a run may pay, in all and per model
    max_cost_usd: float | None = None
    max_cost_usd_per_model: Mapping[str, float] = field(default_factory=dict)


_INTEGERS = frozenset({"max_attempts", "concurrency", "batch_size", "expected_output_tokens", "image_tokens"})
_BOUNDS: dict[str, tuple[float, float | None]] = {
    "max_failure_share": (0.0, 1.0),
    "max_attempts": (1, None),
    "concurrency": (1, None),
    "batch_size": (1, None),
    "batch_discount": (0.0, 1.0),
}


def parse_requests(data: Any, where: str = "params.yaml: requests") -> RequestSettings:
    """Validate the ``requests:`` mapping (missing keys take the defaults above)."""
    data = checks.mapping(data, where, optional=True)
    checks.known_keys(data, [f.name for f in fields(RequestSettings)], where)
    values: dict[str, Any] = {}
    for key, value in data.items():
        values[key] = _setting(key, value, f"{where}.{key}")
    return RequestSettings(**values)


def _setting(key: str, value: Any, where: str) -> Any:
    if key == "cache_dir":
        return Path(checks.string(value, where))
    lo, hi = _BOUNDS.get(key, (0, None))
    if key in ("rpm", "max_cost_usd"):
        return None if value is None else amount(value, where, lo, hi)
    if key == "max_cost_usd_per_model":
        caps = checks.mapping(value, where, optional=True)
        return {str(k): float(amount(v, f"{where}.{k}")) for k, v in caps.items()}
    if key in _INTEGERS:
        return checks.integer(value, where, int(lo), None if hi is None else int(hi))
    return amount(value, where, lo, hi)  # every number here is finite: a NaN passes any range check
