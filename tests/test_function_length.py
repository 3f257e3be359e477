"""No function in src/, nor in benchmarks/lab (the code the benchmarks and tests share, which left src/), is longer
than 60 lines (issue 8): a long one is split into named steps.

A function's length counts from its ``def`` line to its last line, docstring and comments
included; nested functions and methods count on their own (and inside their parent).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
LAB = Path(__file__).resolve().parents[1] / "benchmarks" / "lab"
LIMIT = 60


def long_functions(root: Path, limit: int = LIMIT) -> list[str]:
    """``file:function (N lines)`` for every function of a module under ``root`` over ``limit`` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > limit:
                    found.append(f"{path.relative_to(root)}:{node.name} ({length} lines)")
    return found


def test_no_function_in_src_or_lab_is_longer_than_the_limit():
    found = long_functions(SRC) + long_functions(LAB)
    assert not found, f"functions over {LIMIT} lines (split them into named steps):\n" + "\n".join(found)


def test_a_long_function_is_flagged(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(f"def short():\n    return 1\n\n\nasync def long():\n{body}\n")
    assert long_functions(tmp_path) == [f"pkg/mod.py:long ({LIMIT + 1} lines)"]
