"""No package imports a package above it (docs/design.md, "Layout").

Low to high: core, artifacts, config, simulation, then the domain packages (sources, llm,
annotation, scoring: none imports another), layton_eval (it scores with ``scoring``) and imports
(runs of other harnesses read into exam tables) beside backends, annotation_app (it reads bins with ``scoring``) and report (the report site, from the
tables and ``scoring``), exams, jobs (running paid work: it runs the backends and the exam's
jobs), planning, the commands, and the ``sideways`` entry point last.
Read with ast, as the stage-deps guard reads it, so a lazily imported module counts too.

And the shipped package never imports ``lab`` (benchmarks/lab: the benchmarks' and studies' own code, not
installed): a sideways module importing it would work in this repository and fail in a user's install.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_stage_deps import imported_names

from helpers import ROOT

SRC = ROOT / "src"
LAYERS: list[set[str]] = [
    {"core"},
    {"artifacts"},
    {"config"},
    {"simulation"},
    {"sources", "llm", "annotation", "scoring"},
    {"layton_eval", "imports", "backends", "annotation_app", "report"},
    {"exams"},
    {"jobs"},
    {"planning"},
    {"commands", "testing"},
    {"cli"},
]
RANK = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}


def package_of(dotted: str) -> str | None:
    """The top package under ``sideways`` that ``dotted`` belongs to (None for ``sideways`` itself)."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else None


def violations(src: Path) -> list[str]:
    found = []
    for path in sorted((src / "sideways").rglob("*.py")):
        rel = path.relative_to(src)
        own = rel.parts[1].removesuffix(".py") if len(rel.parts) > 1 else None
        if own is None or own == "__init__":
            continue
        assert own in RANK, f"{rel}: package {own!r} has no layer in tests/test_layering.py"
        for name in sorted(imported_names(path, src)):
            other = package_of(name)
            if other is None or other == own or other not in RANK:
                continue
            if RANK[other] >= RANK[own]:
                found.append(f"{rel} imports {name} ({other} is not below {own})")
    return found


def lab_imports(src: Path) -> list[str]:
    """Every import of ``lab`` (or a module in it) by a module under ``src``, lazy ones included."""
    found = []
    for path in sorted((src / "sideways").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{path.relative_to(src)} imports {n}" for n in names if n == "lab" or n.startswith("lab.")]
    return found


def test_no_package_imports_one_above_it_or_beside_it():
    assert violations(SRC) == []


def test_an_upward_import_is_named(tmp_path):
    pkg = tmp_path / "sideways"
    for name in ("core", "backends"):
        (pkg / name).mkdir(parents=True)
        (pkg / name / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "backends" / "base.py").write_text("")
    (pkg / "core" / "stage.py").write_text("from sideways.backends.base import RunContext\n")
    assert violations(tmp_path) == [
        "sideways/core/stage.py imports sideways.backends.base (backends is not below core)",
        "sideways/core/stage.py imports sideways.backends.base.RunContext (backends is not below core)",
    ]


def test_the_shipped_package_imports_nothing_of_the_lab():
    assert lab_imports(SRC) == []


def test_an_import_of_the_lab_is_named(tmp_path):
    pkg = tmp_path / "sideways" / "scoring"
    pkg.mkdir(parents=True)
    (pkg / "cascade.py").write_text("def rule():\n    from lab import cascade_unsure\n")
    (pkg / "jury.py").write_text("import lab.coverage\nfrom labels import x\n")
    assert lab_imports(tmp_path) == ["sideways/scoring/cascade.py imports lab", "sideways/scoring/jury.py imports lab.coverage"]
