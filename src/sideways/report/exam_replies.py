"""An exam's reply files: each question chunk's replies, one file per group of models, reused
from the previous report when their inputs did not change.

Adding a model to a 200-model leaderboard on a 14,042-question exam rebuilt and rewrote every
chunk of the exam page, each holding every model's reply (about half of the report stage). The
replies now live in one file per chunk and group of :data:`GROUP` models (params order), whose
first line names the fingerprint of what the file is made of: the code, the exam's items, and
per model of the group the fingerprints its predictions and grades carry and the ones its detail
file recorded, with the code and items that file was made from (``exams.reuse``), and the SHA-256
of the rest of the file (the call and its data). A group whose every file in the previous report
(the workspace's, else DVC's cached copy through ``dvc.lock``, its md5 checked) has that fingerprint,
is well formed and has the digest its first line names is taken as it was, and its models'
predictions are not read; anything else builds the group again: a byte appended, removed or edited
anywhere after the first line (a script added to a pulled file, a reply edited by hand) changes the
digest, so no byte this code did not write reaches a rebuilt report. The same inputs give the same
bytes either way.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from sideways.artifacts.fingerprint import file_digest
from sideways.artifacts.io import table_inputs
from sideways.artifacts.previous import cache_dir, cached_object, recorded_manifest
from sideways.report.js import to_js

#: Models per reply file (params order): adding one rebuilds at most one group's files.
GROUP = 25
#: Questions per chunk of the question explorer (index entries name their chunk and position).
CHUNK = 25
_HEAD = "// sideways exam replies, inputs {}, sha256 {}\n"
_DIGEST = re.compile(rb"[0-9a-f]{64}")


def reply_path(exam: str, number: int, group: int) -> str:
    """Where the replies of group ``group`` to chunk ``number`` of exam ``exam`` live (app.js builds the same name)."""
    return f"data/exams/{exam}/chunk-{number:04d}-g{group:02d}.js"


def groups(models: list[str]) -> list[list[str]]:
    """``models`` (params order) in groups of :data:`GROUP`."""
    return [models[i:i + GROUP] for i in range(0, len(models), GROUP)]


def _call(exam: str, number: int, group: int) -> str:
    return f"window.SIDEWAYS_EXAM_REPLIES({to_js(exam)}, {number}, {group}, "


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def reply_file(exam: str, number: int, group: int, inputs: str | None, replies: list[dict[str, Any]]) -> bytes:
    """The file of one chunk's replies by one group: a line naming its ``inputs`` and the SHA-256 of
    the rest of the file, then the call."""
    rest = f"{_call(exam, number, group)}{to_js(replies)});\n".encode()
    return _HEAD.format(inputs or "none", _sha256(rest)).encode() + rest


def _well_formed(data: bytes, exam: str, number: int, group: int, inputs: str) -> bool:
    """Whether ``data`` is a file :func:`reply_file` wrote for these inputs: its first line names
    them and the SHA-256 of every byte after it, which is the call, ASCII with every ``<`` escaped.
    Nothing is parsed: at 200 models the exam's replies are 200 MB, about 2.5 s of ``json.loads``
    against 0.3 s of SHA-256."""
    prefix = _HEAD.format(inputs, "").encode()[:-1]
    line, _, rest = data.partition(b"\n")
    if not (line.startswith(prefix) and _DIGEST.fullmatch(line[len(prefix):])):
        return False
    head, tail = _call(exam, number, group).encode(), b");\n"
    if not (rest.startswith(head) and rest.endswith(tail)) or len(rest) < len(head) + len(tail):
        return False
    if not rest.isascii() or b"<" in rest:
        return False
    return _sha256(rest).encode() == line[len(prefix):]


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 of every Python file of the ``sideways`` package: any change of code builds again."""
    root = Path(__file__).resolve().parents[1]
    sha = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        sha.update(path.relative_to(root).as_posix().encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return sha.hexdigest()


def model_inputs(predictions: Path, grades: Path | None, detail: Path | None) -> Any:
    """What one model's replies are made of, or None when a fingerprint is missing or its detail
    file recorded other ones (then its group is always built): its two fingerprints and the code
    and items its detail was made from."""
    made = [table_inputs(predictions), "no grades" if grades is None else table_inputs(grades)]
    try:
        recorded = json.loads((None if detail is None else table_inputs(detail)) or "null")
    except ValueError:
        return None
    if None in made or not isinstance(recorded, dict) or recorded.get("inputs") != made:
        return None
    return [made, recorded.get("code"), recorded.get("items")]


def group_inputs(exam: str, items: Path, models: list[str], taking: dict[str, tuple[Path, Path | None]],
                 details: dict[str, Path]) -> list[str | None]:
    """Per group of ``models``: the fingerprint of its reply files (None: never reused). ``taking``:
    the models with results, their predictions and grades (None: multiple choice only);
    ``details``: their detail files."""
    common = [code_digest(), exam, file_digest(items), CHUNK, GROUP]
    out: list[str | None] = []
    for group in groups(models):
        each = {m: model_inputs(*taking[m], details.get(m)) if m in taking else "no results" for m in group}
        whole = json.dumps([common, [[m, each[m]] for m in group]], sort_keys=True)
        out.append(None if None in each.values() else hashlib.sha256(whole.encode()).hexdigest())
    return out


def _previous(path: Path, md5: str | None, cache: Path) -> bytes | None:
    """What the last report wrote at ``path``: the workspace's file, else DVC's cached copy of the md5
    ``dvc.lock`` records for it (in ``cache``), when its bytes still have that md5."""
    if path.is_file():
        return path.read_bytes()
    cached = None if md5 is None else cached_object(md5, cache=cache)
    if md5 is None or cached is None:
        return None
    data = cached.read_bytes()
    return data if hashlib.md5(data, usedforsecurity=False).hexdigest() == md5 else None


def previous_replies(exam: str, inputs: list[str | None], questions: int, folder: Path) -> dict[str, bytes]:
    """The reply files of the previous report in ``folder`` that can be taken as they are: every
    file of a group whose fingerprint is known, each well formed for it with the digest it names
    (:func:`_well_formed`; else none of the group's). A file is read from the workspace, else from
    DVC's cache when ``dvc.lock`` records it (:func:`_previous`)."""
    chunks = -(-questions // CHUNK)
    out: dict[str, bytes] = {}
    manifest, cache = recorded_manifest("report", folder), cache_dir()  # read once, not per file
    for g, fingerprint in enumerate(inputs):
        if fingerprint is None or chunks == 0:
            continue
        found = {}
        for n in range(chunks):
            rel = reply_path(exam, n, g)
            data = _previous(folder / rel, manifest.get(rel), cache)
            if data is None or not _well_formed(data, exam, n, g, fingerprint):
                break
            found[rel] = data
        else:
            out |= found
    return out
