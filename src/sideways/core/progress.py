"""Progress bars for long work (predict, judge, scrape): shown on a terminal, silent otherwise."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, NoReturn, overload

if TYPE_CHECKING:  # tqdm costs ~65 ms to import: only a stage that shows a bar pays it
    from tqdm import tqdm


def enabled() -> bool:
    """True when stderr is a terminal and SIDEWAYS_PROGRESS is not ``0`` (``1`` forces it on)."""
    flag = os.environ.get("SIDEWAYS_PROGRESS")
    if flag is not None:
        return flag not in ("0", "", "false")
    return sys.stderr.isatty()


@overload
def bar[T](iterable: Iterable[T], *, total: int | None = None, desc: str = "") -> tqdm[T]: ...


@overload
def bar(iterable: None = None, *, total: int | None = None, desc: str = "") -> tqdm[NoReturn]: ...


def bar[T](
    iterable: Iterable[T] | None = None, *, total: int | None = None, desc: str = ""
) -> tqdm[T] | tqdm[NoReturn]:
    """A tqdm bar over ``iterable`` (or a manual one with ``total``), disabled off a terminal."""
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, disable=not enabled(), leave=False, dynamic_ncols=True)
