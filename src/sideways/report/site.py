"""The report's files, and writing them as one folder that appears whole or not at all.

The site opens from ``file://`` with no network: ``fetch`` is refused there, so data travels
as script files (``data/report.js`` sets ``window.SIDEWAYS``; each explorer chunk calls
``window.SIDEWAYS_CHUNK``, each exam's chunk ``window.SIDEWAYS_EXAM_CHUNK`` and its reply files
``window.SIDEWAYS_EXAM_REPLIES``), loaded by ``<script>`` elements. Page, script and style are
package data in ``assets/``. The same report gives the same bytes: JSON with sorted keys, no clock.
"""

from __future__ import annotations

import os
import shutil
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from sideways.core.errors import ReportError
from sideways.report.js import to_js

if TYPE_CHECKING:
    from sideways.report.build import Report

ASSETS = ("index.html", "app.js", "audit.js", "style.css")


def chunk_path(split: str, number: int) -> str:
    """Where explorer chunk ``number`` of ``split`` lives (app.js builds the same name)."""
    return f"data/{split}/chunk-{number:04d}.js"


def exam_chunk_path(exam: str, number: int) -> str:
    """Where chunk ``number`` of exam ``exam``'s questions lives (app.js builds the same name)."""
    return f"data/exams/{exam}/chunk-{number:04d}.js"


def site_files(report: Report) -> dict[str, bytes]:
    """Every file of the site by relative path."""
    files = {name: resources.files("sideways.report").joinpath("assets", name).read_bytes() for name in ASSETS}
    files["data/report.js"] = f"window.SIDEWAYS = {to_js(report.summary)};\n".encode()
    for split, chunks in report.chunks.items():
        for i, chunk in enumerate(chunks):
            files[chunk_path(split, i)] = f"window.SIDEWAYS_CHUNK({to_js(split)}, {i}, {to_js(chunk)});\n".encode()
    for exam, chunks in report.exam_chunks.items():
        for i, chunk in enumerate(chunks):
            call = f"window.SIDEWAYS_EXAM_CHUNK({to_js(exam)}, {i}, {to_js(chunk)});\n"
            files[exam_chunk_path(exam, i)] = call.encode()
    files.update(report.exam_files)
    files.update(report.images)
    return files


#: The file every report folder holds: only a folder with it may be replaced by :func:`write_site`.
MARKER = ".sideways-report"
MARKER_TEXT = b"This folder is a report site written by sideways; sideways replaces it whole when it writes it again.\n"


def check_target(target: Path) -> None:
    """Refuse to replace ``target`` unless it is absent or a report folder (it holds :data:`MARKER`).

    ``sideways report --out data`` once renamed ``data/`` away and deleted it, labels and exams
    included: a folder is replaced only when a report wrote it. Also refused: the current folder
    or one of its parents, whatever they hold.
    """
    if not (target.exists() or target.is_symlink()):
        return
    here = Path.cwd().resolve()
    if target.is_symlink() or not target.is_dir():
        raise ReportError(f"{target}: exists and is not a folder; a report is written only to a new "
                          "folder or over a report folder (choose another --out)")
    if here == target.resolve() or target.resolve() in here.parents:
        raise ReportError(f"{target}: is the current folder or holds it; choose another --out")
    if not (target / MARKER).is_file():
        raise ReportError(f"{target}: exists and is not a report folder (it has no {MARKER}): nothing there is "
                          "replaced; choose another --out, or delete it yourself")


def _same_file(old: Path, data: bytes, new: Path) -> bool:
    """Link ``new`` to ``old`` when ``old`` already holds ``data``: the file keeps its inode and
    mtime, so DVC's state knows its md5 and does not hash it again (at 200 models the report's
    5,000 exam reply files, 210 MB, mostly unchanged when a model is added). False: write it."""
    try:
        if not old.is_file() or old.is_symlink() or old.stat().st_size != len(data) or old.read_bytes() != data:
            return False
        os.link(old, new)
    except OSError:
        return False
    return True


def write_site(files: dict[str, bytes], target: str | Path) -> None:
    """Write ``files`` (and :data:`MARKER`) into a temporary folder beside ``target``, then swap it in
    by renames; a ``target`` that exists must be a report folder (:func:`check_target`).

    A failure leaves the previous ``target`` (or none) and no temporary folder.
    """
    target = Path(target)
    check_target(target)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for rel, data in sorted({**files, MARKER: MARKER_TEXT}.items()):
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if not _same_file(target / rel, data, path):
                path.write_bytes(data)
        if target.exists():
            target.rename(old)
        tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not target.exists():
            old.rename(target)
        raise
    shutil.rmtree(old, ignore_errors=True)
