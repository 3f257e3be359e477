"""The ``prices:`` section of params.yaml: tokens to US dollars.

``prices`` maps a model (its params key, or its real name: both are looked up) to
``{input_per_mtok, output_per_mtok}`` in USD per million tokens. Requests sent through a
provider's Batch API get ``requests.batch_discount`` off (0.5 = half price). A model with no
price gets ``cost_usd`` null, never a made-up number.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sideways.config import checks
from sideways.core.errors import ParamsError

_PRICE_KEYS = ("input_per_mtok", "output_per_mtok")
MAX_PRICE_PER_MTOK = 1e6  # USD per million tokens: anything above is a typo, not a price
MAX_TOKENS = 100_000_000  # tokens one request can report: more is a broken usage, not a count


def amount(value: Any, where: str, lo: float = 0.0, hi: float | None = None) -> float:
    """A finite number within [lo, hi]: NaN and infinity are refused (NaN compares false with every
    bound, so a range check alone lets it through and switches a cap off)."""
    number = checks.number(value, where, lo, hi)
    if not math.isfinite(number):
        raise ParamsError(f"{where}: expected a finite number, got {value!r}")
    return number


def tokens(value: Any) -> int | None:
    """A token count a provider reported, or None when it is not a sane one (not a number, negative,
    NaN, infinite or absurdly large): an unknown usage is charged its worst case, never a guess."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value) or value < 0 or value > MAX_TOKENS:
        return None
    return int(value)


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float


@dataclass(frozen=True)
class PriceTable:
    """Validated prices by model key or name; :meth:`cost` is pure."""

    prices: Mapping[str, Price] = field(default_factory=dict)

    def lookup(self, names: Iterable[str]) -> Price | None:
        """The first price found under any of ``names`` (params key, then real model name)."""
        for name in names:
            if name in self.prices:
                return self.prices[name]
        return None

    def cost(
        self, names: Iterable[str], input_tokens: int | None, output_tokens: int | None, *, batch: bool, discount: float
    ) -> float | None:
        """USD for one request, or None when the price or the token counts are unknown."""
        price = self.lookup(names)
        if price is None or tokens(input_tokens) is None or tokens(output_tokens) is None:
            return None
        assert input_tokens is not None and output_tokens is not None
        usd = (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1e6
        return round(usd * (1.0 - discount if batch else 1.0), 10)


def parse_prices(data: Any, where: str = "params.yaml: prices") -> PriceTable:
    """Validate the ``prices:`` mapping: each entry has exactly the two per-million prices."""
    data = checks.mapping(data, where, optional=True)
    prices: dict[str, Price] = {}
    for name, entry in data.items():
        at = f"{where}.{name}"
        entry = checks.mapping(entry, at)
        checks.known_keys(entry, _PRICE_KEYS, at)
        usd = [float(amount(entry.get(k), f"{at}.{k}", 0.0, MAX_PRICE_PER_MTOK)) for k in _PRICE_KEYS]
        prices[str(name)] = Price(*usd)
    return PriceTable(prices)
