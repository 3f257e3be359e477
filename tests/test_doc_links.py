"""Every relative link of the README, docs/*.md and the benchmarks' READMEs resolves in this repository.

A link names a file the repository holds (tracked, or new and not ignored: an output DVC writes does not count,
a fresh clone lacks it), never a path outside it (``../`` above the root, an absolute path: a reader's checkout
has neither); an ``#anchor``, alone or after a Markdown file, is a heading of that file under GitHub's rule
(lowercase; each space a ``-``; every character but letters, digits, ``-`` and ``_`` dropped; the second heading
of one slug gets ``-1``, the third ``-2``). External links (``http:``, ``https:``, ``mailto:``) are not fetched.
Code (fenced blocks and inline spans) holds no links.
"""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

from helpers import ROOT

#: ``[text](target)`` and ``![alt](target)``, an optional title after the target.
_INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
#: ``[label]: target`` (a reference definition).
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_HTML_ANCHOR = re.compile(r"<a\s[^>]*\b(?:name|id)=\"([^\"]+)\"", re.I)
_EXTERNAL = re.compile(r"^(?:https?|mailto):", re.I)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def prose_lines(text: str, *, blank_code: bool = True) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks, inline code spans blanked unless not
    ``blank_code`` (a heading's code is part of its anchor)."""
    out, fence = [], ""
    for number, line in enumerate(text.splitlines(), 1):
        m = _FENCE.match(line)
        if m and (not fence or (m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence))):
            fence = "" if fence else m.group(1)
            continue
        if not fence:
            out.append((number, _CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line) if blank_code else line))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (before duplicates are numbered)."""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text).lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor of a Markdown file: its headings' slugs, duplicates numbered, and ``<a name|id="...">``."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(text, blank_code=False):
        found |= set(_HTML_ANCHOR.findall(line))
        m = _HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        name, n = base, seen.get(base, 0)
        while name in found:
            n += 1
            name = f"{base}-{n}"
        seen[base] = n
        found.add(name)
    return found


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every link in the prose of a Markdown file."""
    out = []
    for number, line in prose_lines(text):
        targets = [m.group(1) for m in _INLINE.finditer(line)]
        ref = _REFERENCE.match(line)
        targets += [ref.group(1)] if ref else []
        out += [(number, t[1:-1] if t.startswith("<") else t) for t in targets]
    return out


def repository_files(root: Path) -> set[str]:
    """The repository's files, relative to ``root``: tracked ones, and new ones git does not ignore."""
    done = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=root,
                          capture_output=True, text=True, check=True)
    return {name for name in done.stdout.split("\0") if name}


def problems(root: Path, docs: list[Path], files: set[str]) -> list[str]:
    """One line per broken link of ``docs`` (paths under ``root``; ``files``: the repository's, as relative paths)."""
    folders = {str(p) for name in files for p in Path(name).parents if str(p) != "."}
    found = []
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        where = doc.relative_to(root)
        for number, target in links(text):
            if _EXTERNAL.match(target):
                continue
            say = f"{where}:{number}: ({target})"
            if _SCHEME.match(target) or target.startswith(("/", "\\")):
                found.append(f"{say} points outside the repository")
                continue
            path, _, fragment = target.partition("#")
            path = unquote(path.split("?")[0])
            resolved = (doc.parent / path).resolve() if path else doc
            if not resolved.is_relative_to(root.resolve()):
                found.append(f"{say} points outside the repository")
                continue
            rel = resolved.relative_to(root.resolve()).as_posix()
            if rel not in files and rel not in folders:
                found.append(f"{say}: no such file in the repository")
                continue
            if fragment and rel.endswith(".md") and unquote(fragment) not in anchors(resolved.read_text("utf-8")):
                found.append(f"{say}: {rel} has no heading #{fragment}")
    return found


def checked_docs(root: Path) -> list[Path]:
    """The README, docs/*.md and every README.md under benchmarks/."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted((root / "benchmarks").rglob("README.md"))]


def test_every_relative_link_and_anchor_resolves():
    assert problems(ROOT, checked_docs(ROOT), repository_files(ROOT)) == []


def test_the_docs_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in checked_docs(ROOT)}
    assert {"README.md", "docs/design.md", "benchmarks/README.md", "benchmarks/studies/README.md"} <= names


@pytest.mark.parametrize(("heading", "expected"), [
    ("## 6. The posterior interval", "6-the-posterior-interval"),
    ("### The latent prior (`calibration.posterior: latent`)", "the-latent-prior-calibrationposterior-latent"),
    ("#### exam_score at 48: what is its own and what is DVC's", "exam_score-at-48-what-is-its-own-and-what-is-dvcs"),
    ("## Runs made elsewhere: lm-evaluation-harness and inspect", "runs-made-elsewhere-lm-evaluation-harness-and-inspect"),
    ("## See [exams](exams.md) -- twice", "see-exams----twice"),
    ("## Limits, and the posterior interval (docs/method.md §6) ##", "limits-and-the-posterior-interval-docsmethodmd-6"),
])
def test_a_heading_becomes_githubs_anchor(heading, expected):
    assert anchors(heading + "\n") == {expected}


def test_duplicate_headings_are_numbered_and_code_is_not_a_heading():
    text = "# Setup\n## Setup\n```sh\n# Setup\n[x](nowhere.md)\n```\n### Setup\n"
    assert anchors(text) == {"setup", "setup-1", "setup-2"}
    assert links(text) == []


def test_a_broken_link_an_anchor_and_a_path_outside_are_each_named(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (tmp_path / "README.md").write_text(
        "# Top\n\nSee [the method](docs/method.md#2-the-jury), [gone](docs/gone.md), [ok](docs/method.md#1-intro),\n"
        "[here](#top), [not here](#bottom), [shared](../shared/notes.md), [abs](/etc/passwd),\n"
        "[web](https://example.org/x#y), [folder](docs/), `[code](docs/none.md)`, ![img](docs/pic.png).\n"
        "[ref]: docs/missing.md\n", encoding="utf-8")
    (docs / "method.md").write_text("# Method\n## 1. Intro\n## 2. Jury\n", encoding="utf-8")
    files = {"README.md", "docs/method.md"}
    assert problems(tmp_path, [tmp_path / "README.md"], files) == [
        "README.md:3: (docs/method.md#2-the-jury): docs/method.md has no heading #2-the-jury",
        "README.md:3: (docs/gone.md): no such file in the repository",
        "README.md:4: (#bottom): README.md has no heading #bottom",
        "README.md:4: (../shared/notes.md) points outside the repository",
        "README.md:4: (/etc/passwd) points outside the repository",
        "README.md:5: (docs/pic.png): no such file in the repository",
        "README.md:6: (docs/missing.md): no such file in the repository",
    ]


def test_a_file_that_exists_but_is_not_in_the_repository_is_broken(tmp_path):
    (tmp_path / "out.json").write_text("{}")  # on disk (a DVC output, say) but not in the repository
    (tmp_path / "README.md").write_text("[metrics](out.json)\n", encoding="utf-8")
    assert problems(tmp_path, [tmp_path / "README.md"], {"README.md"}) == [
        "README.md:1: (out.json): no such file in the repository"]
