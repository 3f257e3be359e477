"""Amounts in USD (sideways.core.money): one check, the same answer through every door."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sideways.core.errors import SchemaError
from sideways.core.money import MAX_USD, is_usd, usd, usd_or_none

ANYTHING = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                     st.text(max_size=5), st.lists(st.integers(), max_size=2))


@given(ANYTHING)
def test_the_three_doors_agree(value: Any) -> None:
    """usd, usd_or_none and is_usd accept exactly the same values, and return the same float."""
    ok = is_usd(value)
    assert (usd_or_none(value) is not None) == ok
    if ok:
        assert usd(value, "x") == usd_or_none(value) == float(value)
    else:
        with pytest.raises(SchemaError, match=r"^ledger line 3: 'usd' must be a finite amount"):
            usd(value, "ledger line 3", "usd")


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, -0.01, MAX_USD * 1.0001, 1e300, True, False, "1", None])
def test_what_is_not_an_amount(bad: Any) -> None:
    assert not is_usd(bad) and usd_or_none(bad) is None


@pytest.mark.parametrize("good", [0, 0.0, 1, 2.5e-7, MAX_USD])
def test_what_is_an_amount(good: float) -> None:
    assert is_usd(good) and usd(good, "x") == float(good)
