"""The report's files, and writing them as one folder that appears whole or not at all.

The site opens from ``file://`` with no network: ``fetch`` is refused there, so data travels
as script files (``data/report.js`` sets ``window.SIDEWAYS``; each explorer chunk calls
``window.SIDEWAYS_CHUNK``, each exam's chunk ``window.SIDEWAYS_EXAM_CHUNK``), loaded by
``<script>`` elements. Page, script and style are package data in ``assets/``. The same
report gives the same bytes: JSON with sorted keys, no clock.
"""

from __future__ import annotations

import json
import os
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

from sideways.report.build import Report

ASSETS = ("index.html", "app.js", "style.css")


def to_js(obj: Any) -> str:
    """``obj`` as a JavaScript literal: JSON, ASCII only, with ``<`` escaped so it never ends a script."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).replace("<", "\\u003c")


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
    files.update(report.images)
    return files


def write_site(files: dict[str, bytes], target: str | Path) -> None:
    """Write ``files`` into a temporary folder beside ``target``, then swap it in by renames.

    A failure leaves the previous ``target`` (or none) and no temporary folder.
    """
    target = Path(target)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for rel, data in sorted(files.items()):
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
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
