"""What a harness would cost the project's environment as a dependency: why inspect_ai is not `sideways[inspect]`.

For a pinned package (default ``inspect-ai==0.3.285``, the version tests/data/imported was written with):
the seconds to install it into a fresh virtual environment (from the package index: needs the network),
that environment's size and package count, the seconds of CPU of importing its log reader, and what
``pip install --dry-run`` says it would add to, or change in, this environment (a downgrade of a package
the project resolved is a conflict with its pins). Prints the figures; changes nothing here::

    .venv/bin/python benchmarks/studies/harness_install.py                   # inspect-ai==0.3.285
    .venv/bin/python benchmarks/studies/harness_install.py --package lm-eval==0.4.13 --module lm_eval
"""

from __future__ import annotations

import argparse
import importlib.metadata
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="inspect-ai==0.3.285", help="the pinned requirement to measure")
    parser.add_argument("--module", default="inspect_ai.log", help="what its reader imports")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="harness-install-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = str(venv / "bin" / "python")
        base = folder_bytes(venv)
        start = time.perf_counter()
        subprocess.run([python, "-m", "pip", "install", "-q", args.package], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        listed = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], check=True, capture_output=True,
                                text=True).stdout.splitlines()
        cpu = subprocess.run([python, "-c", f"import time, {args.module}; print(time.process_time())"], check=True,
                             capture_output=True, text=True).stdout.strip()
        size = folder_bytes(venv) - base
    dry = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", args.package], capture_output=True,
                         text=True).stdout
    would = re.search(r"^Would install (.+)$", dry, re.M)
    new = would.group(1).split() if would else []
    changed = []
    for spec in new:
        name, _, version = spec.rpartition("-")
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        changed.append(f"{name} {have} -> {version}")
    print(f"{args.package}: fresh environment: {len(listed)} packages, {size / 1e6:.0f} MB, installed in "
          f"{seconds:.0f} s; `import {args.module}`: {float(cpu):.2f} s CPU")
    print(f"into this environment: {len(new)} packages to install"
          + (f", of which changed: {'; '.join(changed)}" if changed else ", none changed"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
