"""No script in benchmarks/ or benchmarks/studies/, nor the package benchmarks/lab, may take the name of a
module someone else imports, nor a name the other folder uses.

Both folders are on sys.path twice over: pytest's ``pythonpath`` (the tests import the scripts by bare name and
their shared code as ``lab``) and as sys.path[0] of every script run from them (a study puts benchmarks/ there
too, for ``lab``). A script named like a module shadows it for everything imported there:
``benchmarks/coverage.py`` made numba's optional ``import coverage`` (through ppi_py) find the script and fail.
"""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

from helpers import ROOT

#: Modules third-party code imports optionally, whether or not they are installed here.
PROBED = {"coverage", "pytest_cov", "tqdm", "rich", "numba", "IPython", "matplotlib"}


def _top_level_modules() -> set[str]:
    names = set(sys.stdlib_module_names) | PROBED
    for dist in importlib.metadata.distributions():
        top = dist.read_text("top_level.txt")
        names |= set(top.split()) if top else set()
        names |= {f.parts[0].removesuffix(".py") for f in dist.files or () if len(f.parts) <= 2}
    return names


def clashes(benchmarks: Path, taken: set[str]) -> list[str]:
    """Each script (or package) of ``benchmarks`` named like a module of ``taken`` or like one in the other folder."""
    guards = {p.stem: p for p in benchmarks.glob("*.py")}
    studies = {p.stem: p for p in (benchmarks / "studies").glob("*.py")}
    packages = {p.name: p for p in benchmarks.iterdir() if (p / "__init__.py").is_file()}
    found = [f"{p.relative_to(benchmarks)}: named like an importable module"
             for p in (*guards.values(), *studies.values(), *packages.values()) if p.name.removesuffix(".py") in taken]
    found += [f"{studies[name].relative_to(benchmarks)}: named like {guards.get(name) or packages[name]}"
              for name in sorted(studies.keys() & (guards.keys() | packages.keys()))]
    return sorted(found)


def test_no_benchmark_script_shadows_a_module():
    assert clashes(ROOT / "benchmarks", _top_level_modules()) == []


def test_a_study_named_like_a_module_or_a_guard_is_named(tmp_path):
    (tmp_path / "studies").mkdir()
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "__init__.py").write_text("")
    for name in ("report.py", "studies/report.py", "studies/coverage.py", "studies/lab.py"):
        (tmp_path / name).write_text("")
    assert clashes(tmp_path, {"coverage"}) == [
        "studies/coverage.py: named like an importable module",
        f"studies/lab.py: named like {tmp_path / 'lab'}",
        f"studies/report.py: named like {tmp_path / 'report.py'}",
    ]
