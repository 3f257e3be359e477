"""No module of sideways imports, directly or through others, a module that imports it back.

Read with ast, lazily imported modules included (a function-level import still closes a circle:
``backends/batch.py`` once imported the ledger lazily while the ledger imported ``batch.py``).
"""

from __future__ import annotations

from pathlib import Path

from test_stage_deps import imported_names, module_file

from helpers import ROOT

SRC = ROOT / "src"


def graph(src: Path) -> dict[str, set[str]]:
    """Module file -> the module files of sideways it imports (a package's ``__init__`` for a package)."""
    edges: dict[str, set[str]] = {}
    for path in sorted((src / "sideways").rglob("*.py")):
        targets = set()
        for name in imported_names(path, src):
            found = module_file(src, name)
            if found is not None and found != path:
                targets.add(str(found.relative_to(src)))
        edges[str(path.relative_to(src))] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_import_circle():
    assert cycles(graph(SRC)) == []


def test_a_lazy_import_back_is_a_circle(tmp_path):
    pkg = tmp_path / "sideways" / "backends"
    pkg.mkdir(parents=True)
    (tmp_path / "sideways" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "batch.py").write_text("STATUS = 1\n\ndef run():\n    from sideways.backends.batch_ledger import Ledger\n")
    (pkg / "batch_ledger.py").write_text("from sideways.backends.batch import STATUS\n\nclass Ledger: ...\n")
    assert cycles(graph(tmp_path)) == [["sideways/backends/batch.py", "sideways/backends/batch_ledger.py"]]
