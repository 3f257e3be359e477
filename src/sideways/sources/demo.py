"""The bundled demo benchmark (and any riddle file in the same format): parse, validate, render.

A riddle file is JSONL (one riddle object per line) or YAML (a list of riddle mappings). Each
riddle has the text fields of :data:`sideways.artifacts.schema.RIDDLES`, at least two hints, a difficulty in
picarats, a licence, and for the ``vlm`` split an ``image``: a drawing spec (``{"kind": ...}``,
see :mod:`sideways.sources.drawing`), ``{"png_base64": "..."}`` or ``{"file": "relative/path.png"}``.
Every problem is a :class:`RiddleError` naming the file, the line and the riddle or field, so
a hand-edited file points its author at the mistake. Parsing is pure; :func:`load_demo` is the
only function that reads files (the riddle file and the images it references).
"""

from __future__ import annotations

import base64
import binascii
import difflib
import io
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd
import yaml
from PIL import Image

from sideways.artifacts.schema import RIDDLES, SPLITS, conform
from sideways.core.errors import RiddleError, SchemaError
from sideways.sources import drawing

TEXT_FIELDS = (
    "riddle_id", "split", "category", "title", "description", "answer", "solution", "justification", "license",
)
HINT_FIELDS = ("first_hint", "second_hint", "third_hint", "special_hint")
FIELDS = (*TEXT_FIELDS, *HINT_FIELDS, "picarats", "image")
PICARATS = range(10, 81)
MIN_HINTS = 2
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")

ReadImage = Callable[[str], bytes]
Record = tuple[int, Any]  # (line number, parsed riddle)


def load_demo(path: str | Path, source: str = "demo") -> pd.DataFrame:
    """Read, validate and render the riddle file at ``path`` into a RIDDLES table."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RiddleError(f"{path}: cannot read riddle file ({exc})") from exc
    yaml_format = path.suffix in (".yaml", ".yml")
    return riddles_table(text, str(path), _image_reader(path), yaml_format=yaml_format, source=source)


def riddles_table(
    text: str, where: str, read_image: ReadImage, yaml_format: bool = False, source: str = "demo"
) -> pd.DataFrame:
    """Parse and validate riddle-file ``text`` (named ``where`` in errors) into a RIDDLES table."""
    records = parse_yaml(text, where) if yaml_format else parse_jsonl(text, where)
    if not records:
        raise RiddleError(f"{where}: no riddles in file")
    rows = [riddle_row(rec, line, where, read_image, source) for line, rec in records]
    check_unique_ids(rows, [line for line, _ in records], where)
    try:
        return conform(pd.DataFrame(rows, columns=RIDDLES.names), RIDDLES, where)
    except SchemaError as exc:  # validation above should make this unreachable
        raise RiddleError(str(exc)) from exc


def parse_jsonl(text: str, where: str) -> list[Record]:
    """One riddle per non-blank line; a line that is not JSON is an error naming it."""
    records = []
    for n, line in enumerate(text.split("\n"), start=1):  # "\n" only: U+2028 may sit inside a string
        if not line.strip():
            continue
        try:
            records.append((n, json.loads(line, object_pairs_hook=_no_duplicate_keys)))
        except json.JSONDecodeError as exc:
            raise RiddleError(f"{where}:{n}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
        except _DuplicateKey as exc:
            raise RiddleError(f"{where}:{n}: field {exc.args[0]!r} given twice") from exc
        except (RecursionError, ValueError) as exc:  # nested too deep, an integer of > 4300 digits
            raise RiddleError(f"{where}:{n}: not readable JSON ({str(exc)[:80]})") from exc
    return records


class _DuplicateKey(ValueError):
    """A JSON object repeats a key (json.loads would silently keep the last value)."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    for k in keys:
        if keys.count(k) > 1:
            raise _DuplicateKey(k)
    return dict(pairs)


def parse_yaml(text: str, where: str) -> list[Record]:
    """A YAML list of riddles, each paired with the line its mapping starts on."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else []
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise RiddleError(f"{where}{line}: not valid YAML ({exc})") from exc
    finally:
        loader.dispose()
    if not isinstance(node, yaml.SequenceNode) or not isinstance(data, list):
        raise RiddleError(f"{where}:1: a YAML riddle file must be a list of riddles")
    return [(item.start_mark.line + 1, value) for item, value in zip(node.value, data, strict=True)]


def riddle_row(record: Any, line: int, where: str, read_image: ReadImage, source: str = "demo") -> dict[str, Any]:
    """Validate one parsed riddle and return its RIDDLES row (image rendered to bytes)."""
    if not isinstance(record, Mapping):
        raise RiddleError(f"{where}:{line}: a riddle must be an object, got {type(record).__name__}")
    rid = record.get("riddle_id")
    at = f"{where}:{line}: riddle {rid!r}" if isinstance(rid, str) and rid else f"{where}:{line}"
    _check_fields(record, at)
    row: dict[str, Any] = {f: _text(record, f, at) for f in TEXT_FIELDS}
    row.update({f: _hint(record, f, at) for f in HINT_FIELDS})
    if not _ID.fullmatch(row["riddle_id"]):
        raise RiddleError(f"{at}: field 'riddle_id' may hold only letters, digits, '.', '_' and '-'")
    if row["split"] not in SPLITS:
        raise RiddleError(f"{at}: field 'split' is {row['split']!r}, expected one of {', '.join(SPLITS)}")
    if sum(row[f] is not None for f in HINT_FIELDS) < MIN_HINTS:
        raise RiddleError(f"{at}: fewer than {MIN_HINTS} hints; give at least two of {', '.join(HINT_FIELDS)}")
    row["picarats"] = _picarats(record, at)
    row["image"] = _image(record.get("image"), row["split"], at, read_image)
    row.update(game=None, source=source, url=None)
    return row


def check_unique_ids(rows: list[dict[str, Any]], lines: list[int], where: str) -> None:
    """Raise on the first riddle_id used twice, naming both lines."""
    seen: dict[str, int] = {}
    for row, line in zip(rows, lines, strict=True):
        rid = row["riddle_id"]
        if rid in seen:
            raise RiddleError(f"{where}:{line}: field 'riddle_id' {rid!r} duplicates line {seen[rid]}")
        seen[rid] = line


def decode_image(data: bytes, at: str) -> bytes:
    """Return ``data`` if Pillow can verify and fully decode it; otherwise raise naming ``at``."""
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.verify()
        with Image.open(io.BytesIO(data)) as im:
            im.load()
    except Exception as exc:  # Pillow raises many types for broken images
        raise RiddleError(f"{at}: field 'image' does not decode as an image ({type(exc).__name__}: {exc})") from exc
    return data


def _check_fields(record: Mapping[str, Any], at: str) -> None:
    unknown = [k for k in record if k not in FIELDS]
    if unknown:
        key = str(unknown[0])
        close = difflib.get_close_matches(key, FIELDS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise RiddleError(f"{at}: unknown field {key!r}{hint}")
    for f in (*TEXT_FIELDS, "picarats"):
        if f not in record:
            raise RiddleError(f"{at}: missing required field {f!r}")


def _text(record: Mapping[str, Any], field: str, at: str) -> str:
    value = record[field]
    if not isinstance(value, str):
        raise RiddleError(f"{at}: field {field!r} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise RiddleError(f"{at}: field {field!r} is empty")
    return value


def _hint(record: Mapping[str, Any], field: str, at: str) -> str | None:
    if record.get(field) is None:
        return None
    return _text(record, field, at)


def _picarats(record: Mapping[str, Any], at: str) -> int:
    value = record["picarats"]
    if not isinstance(value, int) or isinstance(value, bool):
        raise RiddleError(f"{at}: field 'picarats' must be an integer, got {value!r}")
    if value not in PICARATS:
        raise RiddleError(f"{at}: field 'picarats' is {value}, expected {PICARATS.start}..{PICARATS.stop - 1}")
    return value


def _image(spec: Any, split: str, at: str, read_image: ReadImage) -> bytes | None:
    """Render, decode or read the riddle's image; ``vlm`` riddles need one, ``llm`` riddles have none."""
    if spec is None:
        if split == "vlm":
            raise RiddleError(f"{at}: missing field 'image': a vlm riddle needs a picture")
        return None
    if split != "vlm":
        raise RiddleError(f"{at}: field 'image' given for a {split} riddle; only vlm riddles have pictures")
    if not isinstance(spec, Mapping):
        raise RiddleError(f"{at}: field 'image' must be an object (a drawing, png_base64 or file)")
    if "kind" in spec:
        try:
            data = drawing.render(spec)
        except RiddleError as exc:
            raise RiddleError(f"{at}: field 'image': {exc}") from exc
    elif set(spec) == {"png_base64"}:
        data = _base64(spec["png_base64"], at)
    elif set(spec) == {"file"}:
        data = _file(spec["file"], at, read_image)
    else:
        raise RiddleError(
            f"{at}: field 'image' needs exactly one of 'kind', 'png_base64' or 'file', got {sorted(spec)}"
        )
    return decode_image(data, at)


def _base64(value: Any, at: str) -> bytes:
    if not isinstance(value, str):
        raise RiddleError(f"{at}: field 'image.png_base64' must be a string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise RiddleError(f"{at}: field 'image.png_base64' is not valid base64 ({exc})") from exc


def _file(value: Any, at: str, read_image: ReadImage) -> bytes:
    if not isinstance(value, str) or not value or PurePosixPath(value).is_absolute():
        raise RiddleError(f"{at}: field 'image.file' must be a path relative to the riddle file, got {value!r}")
    try:
        return read_image(value)
    except OSError as exc:
        raise RiddleError(f"{at}: field 'image.file' {value!r} cannot be read ({exc.strerror or exc})") from exc


def _image_reader(riddle_file: Path) -> ReadImage:
    """Read images relative to the riddle file's folder (the only I/O besides the file itself)."""
    folder = riddle_file.parent.resolve()

    def read(rel: str) -> bytes:
        path = (folder / rel).resolve()
        if not path.is_relative_to(folder):  # ../outside.png, or a link out of the folder
            raise OSError(f"outside the riddle file's folder {folder}")
        return path.read_bytes()

    return read
