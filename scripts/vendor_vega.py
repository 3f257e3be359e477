"""Writes vendor/vega/: the page template `dvc plots show` fills, with Vega, Vega-Lite and vega-embed
inside it, and their licences.

    python scripts/vendor_vega.py      # npm pack of the versions below (needs npm and the npm registry)

DVC's own page loads the three libraries from a CDN, so offline it is blank. .dvc/config names this
template (``plots.html_template``); DVC replaces ``{plot_divs}`` (required) and ``{refresh_tag}``
in it and, since the template has no ``{scripts}``, adds no CDN tags. The minified files go in
as they are published, one ``<script>`` each: the page needs nothing beside itself.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "vendor" / "vega"
#: package -> (version, minified file in its tarball); vega-embed needs vega and vega-lite loaded first.
LIBRARIES = {"vega": ("5.33.1", "build/vega.min.js"), "vega-lite": ("5.23.0", "build/vega-lite.min.js"),
             "vega-embed": ("6.29.0", "build/vega-embed.min.js")}
#: vega's tarball has no LICENSE file: vega-view, a package of the same repository (and in vega's
#: bundle), carries the repository's licence.
LICENCE_FROM = {"vega": ("vega-view", "5.16.1"), "vega-lite": ("vega-lite", "5.23.0"),
                "vega-embed": ("vega-embed", "6.29.0")}
#: What DVC substitutes (dvc_render.html.HTML.embed): a library must not contain these by chance.
PLACEHOLDERS = ("{plot_divs}", "{scripts}", "{refresh_tag}")

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
{{refresh_tag}}
<title>sideways: DVC plots</title>
<!-- The template of `dvc plots show` (.dvc/config: plots.html_template), written by
     scripts/vendor_vega.py: {names} inline (BSD-3-Clause, licences in
     vendor/vega/), so the plots draw with no network. -->
{scripts}
<style>
body {{ font: 14px system-ui, sans-serif; margin: 16px; }}
table {{ border-spacing: 15px; }}
</style>
</head>
<body>
{{plot_divs}}
</body>
</html>
"""


def member(tarball: Path, name: str) -> bytes:
    """One file of an npm tarball (its files are under ``package/``)."""
    with tarfile.open(tarball) as tar:
        extracted = tar.extractfile(f"package/{name}")
        if extracted is None:
            sys.exit(f"{tarball.name}: no file package/{name}")
        return extracted.read()


def pack(package: str, version: str, into: Path) -> Path:
    """``npm pack`` of one published version (npm checks the registry's integrity hash)."""
    subprocess.run(["npm", "pack", f"{package}@{version}", "--pack-destination", str(into), "--silent"],
                   check=True, stdout=subprocess.DEVNULL)
    return into / f"{package}-{version}.tgz"


def script(package: str, version: str, published: bytes) -> str:
    """One library as an inline ``<script>``, headed by the published file's SHA-256, less its
    ``sourceMappingURL`` line (the map is not shipped); refused if it could end the element or meet a
    placeholder."""
    code = "\n".join(line for line in published.decode("utf-8").splitlines()
                     if not line.startswith("//# sourceMappingURL=")).strip()
    for bad in ("</script", "<!--", *PLACEHOLDERS):
        if bad in code.lower():
            sys.exit(f"{package} {version}: contains {bad!r}, which would break the inline page")
    digest = hashlib.sha256(published).hexdigest()
    return f"<script>/* {package} {version}, sha256 {digest} as published */\n{code}\n</script>"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        scripts = []
        for package, (version, path) in LIBRARIES.items():
            scripts.append(script(package, version, member(pack(package, version, Path(tmp)), path)))
            source, source_version = LICENCE_FROM[package]
            licence = member(pack(source, source_version, Path(tmp)), "LICENSE")
            (OUT / f"LICENSE-{package}").write_bytes(licence)
    names = ", ".join(f"{p} {v}" for p, (v, _) in LIBRARIES.items())
    (OUT / "dvc-plots.html").write_text(PAGE.format(names=names, scripts="\n".join(scripts)), encoding="utf-8")
    print(OUT / "dvc-plots.html")


if __name__ == "__main__":
    main()
