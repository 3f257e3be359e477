"""No package imports a package above it (docs/design.md, "Layout").

Low to high: core, artifacts, config, simulation, then the domain packages (sources, llm,
annotation, scoring: none imports another), layton_eval (it scores with ``scoring``) and imports
(runs of other harnesses read into exam tables) beside backends, annotation_app (it reads bins with ``scoring``) and report (the report site, from the
tables and ``scoring``), exams, jobs (running paid work: it runs the backends and the exam's
jobs), planning, the commands, and the ``sideways`` entry point last.
Read with ast, as the stage-deps guard reads it, so a lazily imported module counts too.
"""

from __future__ import annotations

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
