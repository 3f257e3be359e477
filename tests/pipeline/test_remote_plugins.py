"""Every kind of DVC remote the README and docs name is supported by the installed DVC.

DVC reaches S3, SSH, GCS and Azure through plugins (dvc-s3, ...) that its own install leaves out:
without one, `make push` to that remote stops with "s3 is supported, but requires 'dvc-s3' to be
installed". The `remotes` extra (which make installs) pins them inside the ranges DVC's own extras
ask for; tests/pipeline/test_remotes.py pushes to and pulls from real S3 and SSH servers.
"""

from __future__ import annotations

import re
import subprocess
from importlib.metadata import requires, version

from packaging.requirements import Requirement

from helpers import ROOT
from helpers.harness import BIN

SCHEMES = {"s3": "dvc-s3", "ssh": "dvc-ssh", "gs": "dvc-gs", "azure": "dvc-azure"}


def named_schemes() -> set[str]:
    """The remote URL schemes (``s3://``, ...) the README and docs/ show."""
    text = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    return set(re.findall(r"\b(s3|ssh|gs|azure|gdrive|oss|hdfs|webdav|webhdfs)://", text))


def test_dvc_supports_every_remote_the_docs_name():
    named = named_schemes()
    assert {"s3", "ssh"} <= named
    out = subprocess.run([str(BIN / "dvc"), "version"], capture_output=True, text=True, check=True).stdout
    supports = set(re.findall(r"^\s+(\w+) \(", out.split("Supports:", 1)[1].split("\n\n", 1)[0], re.M))
    assert named <= supports, f"named in the docs, not supported by this install: {sorted(named - supports)}"


def test_the_plugins_are_the_versions_dvc_asks_for():
    """Each plugin's installed version is inside the range of DVC's own extra (``dvc[s3]``, ...)."""
    asked = {}
    for line in requires("dvc") or []:
        req = Requirement(line)
        if req.name in SCHEMES.values() and req.marker is not None and req.marker.evaluate({"extra": req.name[4:]}):
            asked[req.name] = req.specifier
    assert set(asked) == set(SCHEMES.values())
    for name, spec in asked.items():
        assert spec.contains(version(name)), f"{name} {version(name)} is outside dvc's {spec}"
