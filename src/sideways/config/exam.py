"""The ``exam:`` section of params.yaml (one exam), and ``exams:`` (a map of exams by key) replacing it.

``path`` is an exam JSON in the course notebook's format (:mod:`sideways.exams.format`);
``idk`` adds option E "I don't know" to every multiple-choice question; ``strategy`` picks the
judge prompt for short answers; ``judges`` is how many judges of the pool grade each model's
short answers (the provider rule applies: never a judge of the model's own provider).

``exams:`` (issue 28) maps a key to one exam (:class:`ExamSpec`), each with its own ``idk``,
``strategy`` and ``judges``; ``{}`` is no exam. An exam is the notebook's JSON (``source: json``,
the default, with ``path``) or a Hugging Face dataset (``source: hf`` with ``dataset``, ``split``,
optionally ``config`` and a pinned ``revision``, and a ``preset`` and/or ``columns``:
:mod:`sideways.config.hub_columns`). The key names the exam's files and DVC entries, and a model's
``takes:`` names it beside the riddle splits, so it is a short lowercase identifier that is not a
split's name. An exam may also come from runs made elsewhere (``source: imported``): ``runs``
maps a model key to an lm-evaluation-harness output folder or an inspect log inside the project,
each run a model that takes the exam, its questions, gold answers and grades read from the run
(:mod:`sideways.imports`), ``score`` optionally naming the per-sample metric or scorer; nothing of
such an exam is asked of a provider, so it has no grading keys. The old ``exam:`` key is refused
by :func:`refuse_old_exam_key`, saying what to write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from sideways.artifacts.schema import SPLITS, STRATEGIES, Strategy
from sideways.config import checks
from sideways.config.hub_columns import HubColumns, parse_columns
from sideways.core.errors import ParamsError

_KEYS = ("path", "idk", "strategy", "judges")


@dataclass(frozen=True)
class ExamParams:
    path: str = "data/exams/demo.json"
    idk: bool = True
    strategy: Strategy = "rubric_anchored"
    judges: int = 1


def parse_exam(data: Any, source: str) -> ExamParams:
    """Validate the ``exam:`` mapping (absent: the defaults)."""
    where = f"{source}: exam"
    exam = checks.mapping(data, where, optional=True)
    checks.known_keys(exam, _KEYS, where)
    d = ExamParams()
    return ExamParams(
        path=checks.string(exam.get("path", d.path), f"{where}.path"),
        idk=checks.boolean(exam.get("idk", d.idk), f"{where}.idk"),
        strategy=checks.choice(exam.get("strategy", d.strategy), STRATEGIES, f"{where}.strategy"),
        judges=checks.integer(exam.get("judges", d.judges), f"{where}.judges", lo=1),
    )


ExamSource = Literal["json", "hf", "imported"]
EXAM_SOURCES: tuple[ExamSource, ...] = ("json", "hf", "imported")
_GRADING = ("idk", "strategy", "judges", "sample")
_JSON_KEYS = ("source", "path", *_GRADING)
_HF_KEYS = ("source", "dataset", "config", "split", "revision", "preset", "columns", *_GRADING)
_IMPORTED_KEYS = ("source", "runs", "score")
_KEYS_OF: dict[str, tuple[str, ...]] = {"json": _JSON_KEYS, "hf": _HF_KEYS, "imported": _IMPORTED_KEYS}
_SPEC_KEYS = tuple(dict.fromkeys(_JSON_KEYS + _HF_KEYS + _IMPORTED_KEYS))
EXAM_KEY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
RUN_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$")  # a model key (params.MODEL_KEY, MAX_KEY): names files


@dataclass(frozen=True)
class ExamSpec:
    """One exam of ``exams:``: where its questions come from and how it is graded."""

    key: str
    source: ExamSource = "json"
    path: str | None = None  # json: the exam file
    dataset: str | None = None  # hf: a hub id or a local directory
    config: str | None = None
    split: str | None = None
    revision: str | None = None
    columns: HubColumns | None = None  # hf: the preset with ``columns:`` over it
    preset: str | None = None
    idk: bool = True
    strategy: Strategy = "rubric_anchored"
    judges: int = 1
    sample: int | float | None = None  # questions asked per model: a count, a share in (0, 1], or None (all)
    runs: tuple[tuple[str, str], ...] = ()  # imported: (model key, run path) in the file's order
    score: str | None = None  # imported: the per-sample metric (lm-eval) or scorer (inspect) to read

    def sample_size(self, items: int) -> int:
        """How many of the exam's ``items`` questions each model is asked (:func:`sample_size`)."""
        return sample_size(self.sample, items, f"exams.{self.key}.sample")


def parse_sample(value: Any, where: str) -> int | float | None:
    """``sample:``: absent (every question), an integer count >= 1, or a share in (0, 1]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ParamsError(f"{where}: expected a number of questions (an integer >= 1) or a share in (0, 1], "
                          f"got {value!r}")
    if isinstance(value, int):
        if value < 1:
            raise ParamsError(f"{where}: a number of questions must be >= 1, got {value}")
        return value
    if not 0 < value <= 1:
        raise ParamsError(f"{where}: a share of the questions must be in (0, 1] (a count is an integer), got {value!r}")
    return value


def sample_size(sample: int | float | None, items: int, where: str) -> int:
    """The questions asked per model for ``sample`` of an exam of ``items``: a count must be at most
    ``items``; a share rounds to the nearest count, at least 1."""
    if sample is None:
        return items
    if isinstance(sample, int):
        if sample > items:
            raise ParamsError(f"{where}: {sample} questions asked, but the exam has {items}")
        return sample
    return max(1, min(items, round(sample * items)))


def parse_exams(data: Any, source: str) -> dict[str, ExamSpec]:
    """Validate the ``exams:`` mapping; ``{}`` (or an empty ``exams:``) is no exam, in the file's order."""
    where = f"{source}: exams"
    return {exam_key(key, where): parse_exam_spec(key, value, f"{where}.{key}")
            for key, value in checks.mapping(data, where, optional=True).items()}


def exam_key(key: Any, where: str) -> str:
    """An exam's key: safe in file names and DVC entries, and not a riddle split's name."""
    if not isinstance(key, str) or not EXAM_KEY.match(key):
        raise ParamsError(f"{where}: exam key {key!r} must be lowercase letters, digits, '-' or '_' "
                          "(at most 40, starting with a letter or digit): it names the exam's files")
    if key in SPLITS:
        raise ParamsError(f"{where}: exam key {key!r} is a riddle split's name; a model's takes: could not "
                          "tell them apart")
    return key


def parse_exam_spec(key: str, data: Any, where: str) -> ExamSpec:
    """One exam's mapping: ``source`` decides which keys it may hold."""
    exam = checks.mapping(data, where)
    src = checks.choice(exam.get("source", "json"), EXAM_SOURCES, f"{where}.source")
    checks.known_keys(exam, _SPEC_KEYS, where)
    for other in sorted(exam.keys() - set(_KEYS_OF[src])):
        owners = " or ".join(s for s, keys in _KEYS_OF.items() if other in keys)
        raise ParamsError(f"{where}.{other}: only with source: {owners} (this exam has source: {src})")
    if src == "imported":
        return ExamSpec(key, source="imported", runs=_runs(exam.get("runs"), f"{where}.runs"),
                        score=checks.optional_string(exam.get("score"), f"{where}.score"))
    d = ExamSpec(key)
    graded = ExamSpec(key, idk=checks.boolean(exam.get("idk", d.idk), f"{where}.idk"),
                      strategy=checks.choice(exam.get("strategy", d.strategy), STRATEGIES, f"{where}.strategy"),
                      judges=checks.integer(exam.get("judges", d.judges), f"{where}.judges", lo=1),
                      sample=parse_sample(exam.get("sample"), f"{where}.sample"))
    if src == "json":
        return replace(graded, path=checks.string(exam.get("path"), f"{where}.path"))
    opt = {k: checks.optional_string(exam.get(k), f"{where}.{k}") for k in ("config", "revision", "preset")}
    return replace(graded, source="hf", dataset=checks.string(exam.get("dataset"), f"{where}.dataset"),
                   split=checks.string(exam.get("split"), f"{where}.split"), config=opt["config"],
                   revision=opt["revision"], preset=opt["preset"],
                   columns=parse_columns(opt["preset"], exam.get("columns"), where))


def _runs(data: Any, where: str) -> tuple[tuple[str, str], ...]:
    """``runs:``: a non-empty map from model key to a run's path, relative, inside the project."""
    runs = checks.mapping(data, where)
    if not runs:
        raise ParamsError(f"{where}: name at least one run (model key: path of an lm-eval output folder or "
                          "an inspect log)")
    out = []
    for key, value in runs.items():
        if not isinstance(key, str) or not RUN_KEY.match(key):
            raise ParamsError(f"{where}: run key {str(key)[:60]!r} must be letters, digits, '-' or '_' (at most 100, "
                              "starting with a letter or digit): it is the model's key and names its files")
        path = checks.string(value, f"{where}.{key}")
        pure = PurePosixPath(path)
        if pure.is_absolute() or ".." in pure.parts or path.startswith("~"):
            raise ParamsError(f"{where}.{key}: {path}: a path inside the project (e.g. data/exams/<exam>/...), "
                              "so DVC versions the run with the code")
        out.append((key, path))
    return tuple(out)


def refuse_old_exam_key(data: Any, source: str) -> None:
    """Refuse the top-level ``exam:`` key of params.yaml (``data``), showing the ``exams:`` equivalent."""
    if not isinstance(data, dict) or "exam" not in data:
        return
    old = data["exam"] if isinstance(data["exam"], dict) else {}
    d = ExamParams()
    path = old.get("path", d.path)
    stem = PurePosixPath(str(path)).stem.lower()
    key = stem if EXAM_KEY.match(stem) and stem not in SPLITS else "demo"
    fields = {"path": path, "idk": old.get("idk", d.idk), "strategy": old.get("strategy", d.strategy),
              "judges": old.get("judges", d.judges)}
    shown = ", ".join(f"{k}: {_yaml(v)}" for k, v in fields.items())
    raise ParamsError(f"{source}: exam: replaced by exams:, a map of exams by key (issue 28); write "
                      f"exams: {{{key}: {{{shown}}}}} (exams: {{}} for no exam)")


def _yaml(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def missing_source(spec: ExamSpec, root: str | Path = ".") -> str | None:
    """What exam ``spec`` lacks to load, in one line naming its key, or None: its JSON file, or
    its dataset's directory when ``dataset`` is a path (a hub id is ``owner/name``, whose owner is
    not a directory of the project)."""
    root = Path(root)
    if spec.source == "json":
        assert spec.path is not None  # parse_exams requires it for source json
        return None if (root / spec.path).is_file() else f"exams.{spec.key}.path: {spec.path}: no such file"
    if spec.source == "imported":
        return next((f"exams.{spec.key}.runs.{key}: {path}: no such run folder or log file"
                     for key, path in spec.runs if not (root / path).exists()), None)
    assert spec.dataset is not None  # parse_exams
    dataset = spec.dataset
    if (root / dataset).expanduser().is_dir():
        return None
    path_like = dataset.startswith(("/", "./", "../", "~")) or dataset.count("/") > 1 \
        or (root / dataset.split("/")[0]).is_dir()
    return f"exams.{spec.key}.dataset: {dataset}: no such directory" if path_like else None
