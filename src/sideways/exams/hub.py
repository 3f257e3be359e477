"""A multiple-choice exam read from a Hugging Face dataset, as the same :class:`Exam` the JSON gives.

:func:`load_hub_exam` reads one split through ``datasets``: from the hub (``load_dataset(name,
config, split=..., revision=...)``; a gated dataset such as GPQA needs ``HF_TOKEN``), from a local
directory in the hub layout (data files, with or without a README's configs: the same call with
the path), or from a directory written by ``save_to_disk`` (``load_from_disk``, a ``DatasetDict``
picked by split). :func:`hub_questions` maps the rows with a :class:`HubColumns` (presets and
what each dataset card says: :mod:`sideways.config.hub_columns`).

Every question is kind ``mcq`` worth 1 point; its id is the ``id`` column's value or
``<split>-<row index>``; its topic the ``topic`` column's or the dataset's name. With GPQA's
layout (the correct answer in its own column) the choices are put in an order drawn from the
dataset, config, split and question id, never from the run's seed, so the same dataset gives the
same exam; :mod:`sideways.exams.mcq.present` then shuffles them per question (seeded) as for any
exam, and the gold letter follows the correct text through both. Errors are one line naming the
dataset, the row and the column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from sideways.config.hub_columns import HubColumns
from sideways.core.errors import SchemaError
from sideways.core.seeding import rng_for
from sideways.exams.format import Exam, Question

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
SAVED_MARKERS = ("dataset_dict.json", "dataset_info.json", "state.json")  # what save_to_disk writes


@dataclass(frozen=True)
class Where:
    """The dataset a row comes from, for ids, topics and error messages."""

    dataset: str
    config: str | None
    split: str

    @property
    def name(self) -> str:
        """The dataset's short name: a hub id as is, a local directory's last part."""
        local = Path(self.dataset).expanduser()
        return local.name if local.is_dir() else self.dataset

    def __str__(self) -> str:
        config = f" config {self.config}" if self.config else ""
        return f"hf dataset {self.dataset}{config} split {self.split}"


class _Dataset(Protocol):
    """The part of ``datasets.Dataset`` used here (datasets ships no type information)."""

    column_names: list[str]

    def to_list(self) -> list[dict[str, Any]]: ...


def load_hub_exam(dataset: str, split: str, columns: HubColumns, *, config: str | None = None,
                  revision: str | None = None, cache_dir: str | Path | None = None) -> Exam:
    """The exam in ``split`` of ``dataset`` (a hub id or a local directory), read with ``columns``."""
    where = Where(dataset, config, split)
    ds = _load(where, revision, cache_dir)
    questions = hub_questions(ds.to_list(), ds.column_names, columns, where)
    name = where.name + (f" {config}" if config else "") + f" ({split})"
    return Exam(name, "", questions)


def hub_questions(rows: Sequence[Mapping[str, Any]], names: Sequence[str], columns: HubColumns,
                  where: Where) -> tuple[Question, ...]:
    """The rows as questions, in the dataset's order (pure: no ``datasets`` here)."""
    c = _present_columns(columns, names, where)
    if not rows:
        raise SchemaError(f"{where}: the exam has no questions (no rows)")
    questions = tuple(_question(row, i, c, where) for i, row in enumerate(rows))
    first: dict[str, int] = {}
    for i, q in enumerate(questions):
        if q.id in first:
            raise SchemaError(f"{where}: row {i}: column {c.id!r}: id {q.id!r} already in row {first[q.id]}")
        first[q.id] = i
    return questions


def _present_columns(c: HubColumns, names: Sequence[str], where: Where) -> HubColumns:
    """``c`` with a soft column the dataset lacks dropped; a missing required column is an error."""
    have = set(names)
    qid = c.id if c.id in have or "id" not in c.soft else None
    topic = c.topic if c.topic in have or "topic" not in c.soft else None
    for column in (c.question, c.choices, *c.options, c.correct, *c.incorrect, c.answer, qid, topic):
        if column is not None and column not in have:
            raise SchemaError(f"{where}: column {column!r} not found (the dataset has {', '.join(names)})")
    return replace(c, id=qid, topic=topic, soft=frozenset())


def _question(row: Mapping[str, Any], i: int, c: HubColumns, where: Where) -> Question:
    at = f"{where}: row {i}"
    qid = _text(row, c.id, at) if c.id else f"{where.split}-{i}"
    topic = _text(row, c.topic, at) if c.topic else where.name
    texts, gold = _choices(row, c, at, (where.dataset, where.config, where.split, qid))
    if len(texts) > len(LETTERS):
        raise SchemaError(f"{at}: {len(texts)} choices, at most {len(LETTERS)}")
    return Question(qid, "mcq", topic, 1.0, _text(row, c.question, at), LETTERS[gold],
                    choices=tuple(zip(LETTERS, texts, strict=False)))


def _choices(row: Mapping[str, Any], c: HubColumns, at: str, key: tuple[object, ...]) -> tuple[list[str], int]:
    """The choices' texts and the correct one's index among them."""
    if c.correct is not None:
        given = [_text(row, col, at) for col in (c.correct, *c.incorrect)]
        order = [int(j) for j in rng_for("hub-choices", *key).permutation(len(given))]
        return [given[j] for j in order], order.index(0)
    if c.choices is not None:
        texts = _list(row, c.choices, at)
    else:
        texts = [_text(row, col, at) for col in c.options]
    assert c.answer is not None  # parse_columns requires it beside choices or options
    return texts, _gold(row.get(c.answer), texts, c, f"{at}: column {c.answer!r}")


def _gold(value: Any, texts: list[str], c: HubColumns, at: str) -> int:
    """The index of the correct choice, from an answer written as ``c.answer_format``."""
    n = len(texts)
    if c.answer_format == "index":
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
            raise SchemaError(f"{at}: expected a choice index 0 to {n - 1}, got {value!r:.60}")
        return value
    if c.answer_format == "letter":
        letter = value.strip().upper() if isinstance(value, str) else None
        if letter is None or len(letter) != 1 or letter not in LETTERS[:n]:
            raise SchemaError(f"{at}: expected a letter A to {LETTERS[n - 1]}, got {value!r:.60}")
        return LETTERS.index(letter)
    matches = [k for k, t in enumerate(texts) if isinstance(value, str) and t == value.strip()]
    if len(matches) != 1:
        found = "matches no choice" if not matches else f"matches {len(matches)} choices"
        raise SchemaError(f"{at}: the answer text {found}: {value!r:.60}")
    return matches[0]


def _text(row: Mapping[str, Any], column: str, at: str) -> str:
    value = row.get(column)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise SchemaError(f"{at}: column {column!r}: expected a non-empty text, got {value!r:.60}")
    return value.strip()


def _list(row: Mapping[str, Any], column: str, at: str) -> list[str]:
    value = row.get(column)
    if not isinstance(value, list) or len(value) < 2:
        raise SchemaError(f"{at}: column {column!r}: expected a list of at least two choices, got {value!r:.60}")
    return [_text({column: v}, column, f"{at}: choice {k}") for k, v in enumerate(value)]


def _load(where: Where, revision: str | None, cache_dir: str | Path | None) -> _Dataset:
    """The split, from a saved dataset, a local hub-layout directory, or the hub."""
    import datasets  # heavy import, only when an exam comes from a dataset

    local = Path(where.dataset).expanduser()
    if local.is_dir() and any((local / m).is_file() for m in SAVED_MARKERS):
        try:
            saved = datasets.load_from_disk(str(local))
        except Exception as exc:  # a partial or foreign directory: several types
            raise SchemaError(f"{where}: not readable by load_from_disk ({_short(exc)})") from exc
        return _saved_split(saved, where)
    if not local.is_dir() and where.dataset.startswith(("/", "./", "../", "~")):
        raise SchemaError(f"{where}: {where.dataset!r} is not an existing directory")
    if local.is_dir():
        check_text_files(local, where)
    try:
        ds: _Dataset = datasets.load_dataset(str(local) if local.is_dir() else where.dataset, where.config,
                                             split=where.split, revision=revision,
                                             cache_dir=str(cache_dir) if cache_dir else None)
    except Exception as exc:  # offline, unknown repo or config or split, unreadable files: many types
        if "corresponds to no data" in str(exc):  # a split whose files hold a header and no row
            raise SchemaError(f"{where}: the exam has no questions (its files hold no rows)") from exc
        if local.is_dir():
            raise SchemaError(f"{where}: could not load the local copy ({_short(exc)})") from exc
        raise SchemaError(f"{where}: could not load it ({_short(exc)}); offline, use a local copy "
                          "(huggingface-cli download <dataset> --repo-type dataset --local-dir <dir>) "
                          "and give its directory as dataset") from exc
    return ds


TEXT_SUFFIXES = (".csv", ".tsv", ".json", ".jsonl", ".txt")


def check_text_files(folder: Path, where: Where) -> None:
    """Every text data file under ``folder`` is UTF-8: else one line naming the file, the line and the
    byte (``datasets`` would bury the cause in a log line above a ``DatasetGenerationError``)."""
    for path in sorted(p for p in folder.rglob("*") if p.suffix.lower() in TEXT_SUFFIXES and p.is_file()):
        data = path.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise SchemaError(f"{where}: {path.relative_to(folder)}: not UTF-8 (line {line}, byte {exc.start}: "
                              f"0x{data[exc.start]:02x}); save it as UTF-8") from exc


def _saved_split(saved: Any, where: Where) -> _Dataset:
    """A ``save_to_disk`` directory: a Dataset as is, a DatasetDict's split by name."""
    if not hasattr(saved, "keys"):
        return saved  # type: ignore[no-any-return]
    if where.split not in saved:
        raise SchemaError(f"{where}: no split {where.split!r} in the saved dataset (it has {', '.join(saved)})")
    return saved[where.split]  # type: ignore[no-any-return]


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}"
