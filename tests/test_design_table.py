"""docs/design.md's package table names every package of src/sideways and every module in it.

The table is how a newcomer finds code ("where is predict's code?"): a module moved or added
without its row saying so fails here, naming the package and the module.
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT

PKG = ROOT / "src" / "sideways"
ASSETS = {"static", "assets", "__pycache__"}  # package data, not modules


def table_rows(design: str) -> dict[str, str]:
    """Package name -> the text of its row in the table."""
    rows = {}
    for line in design.splitlines():
        m = re.match(r"^\| `([a-z_]+)/` \|(.*)\|\s*$", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def modules(package: Path) -> list[str]:
    """What the row must name: each module (``name``) and subpackage (``name/`` or ``name``)."""
    out = []
    for child in sorted(package.iterdir()):
        if child.name in ASSETS or child.name == "__init__.py":
            continue
        if child.suffix == ".py":
            out.append(child.stem)
        elif child.is_dir() and (child / "__init__.py").exists():
            out.append(child.name)
    return out


def missing(design: str, pkg: Path) -> list[str]:
    rows = table_rows(design)
    found = []
    for package in sorted(p for p in pkg.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        row = rows.get(package.name)
        if row is None:
            found.append(f"{package.name}/: no row")
            continue
        found += [f"{package.name}/{m}: not named" for m in modules(package)
                  if f"`{m}`" not in row and f"`{m}/`" not in row]
    found += [f"{name}/: a row for a package that does not exist" for name in rows
              if not (pkg / name / "__init__.py").exists()]
    return found


def test_the_package_table_names_every_package_and_module():
    assert missing((ROOT / "docs" / "design.md").read_text(), PKG) == []


def test_a_module_the_table_does_not_name_is_reported(tmp_path):
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "__init__.py").write_text("")
    (tmp_path / "jobs" / "fanout.py").write_text("")
    (tmp_path / "jobs" / "names.py").write_text("")
    design = "| `jobs/` | `fanout` (every job in flight) |\n| `gone/` | moved |\n"
    assert missing(design, tmp_path) == ["jobs/names: not named", "gone/: a row for a package that does not exist"]
