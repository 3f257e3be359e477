"""JavaScript literals for the report's data files: the one escaping rule every file of the site uses.

Its own module so that the site writer and the exam page's reply files share it without importing
each other (the report's modules form no import circle: tests/pipeline/test_import_cycles.py).
"""

from __future__ import annotations

import json
from typing import Any


def to_js(obj: Any) -> str:
    """``obj`` as a JavaScript literal: JSON, ASCII only, with ``<`` escaped so it never ends a script."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).replace("<", "\\u003c")
