"""params.yaml as typed, validated objects: parsed once, here, and nowhere else.

The parsing is pure (:func:`parse_params` takes the loaded mapping); :func:`load_params` reads
the file. Every error names the key at fault, e.g. ``params.yaml: models.gpt-5.1: ...``. The
sections have their own modules: :mod:`~sideways.config.riddles`, :mod:`~sideways.config.options`
(a model's backend options), :mod:`~sideways.config.requests` and :mod:`~sideways.config.prices`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sideways.artifacts.schema import FIELDS, SPLITS, Field
from sideways.config import checks
from sideways.config.backends import (
    BackendEntry,
    backend_entry,
    backend_names,
    judge_options,
    l3score_backends,
    model_options,
)
from sideways.config.choices import (
    ANNOTATION_SOURCES,
    EMPTY_BINS,
    INTERVALS,
    JUDGE_KINDS,
    METHODS,
    POSTERIORS,
    QUEUE_POLICIES,
    AnnotationSource,
    Backend,
    EmptyBin,
    IntervalName,
    JudgeKind,
    Method,
    PosteriorName,
    QueuePolicy,
)
from sideways.config.exam import ExamSpec, parse_exams, refuse_old_exam_key
from sideways.config.options import ImportedOptions, JudgeOptions, ModelOptions, ReplayOptions
from sideways.config.prices import PriceTable, parse_prices
from sideways.config.requests import RequestSettings, parse_requests
from sideways.config.riddles import HEURISTIC, RiddleParams, parse_riddles
from sideways.core.errors import ParamsError
from sideways.core.textfile import read_text
from sideways.core.yamltext import load_yaml

L3SCORE_THRESHOLD = 0.5  # an l3score judge says "correct" when its score is at least this
# An l3score judge reads only the first token's top-5 log-probabilities: one output token is
# enough, and temperature 0 is what SPIQA's reference implementation sends.
L3SCORE_MAX_TOKENS, L3SCORE_TEMPERATURE = 1, 0.0
L3SCORE_GENERATION = {"max_tokens": L3SCORE_MAX_TOKENS, "temperature": L3SCORE_TEMPERATURE}
EXTRACT_KEY = "extract"  # the extractor's key: its requests, answers file and cost file are named by it
MODEL_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")  # a model key (each names files)
MAX_KEY = 100  # a model key names files: <key>.parquet, and .<key>.parquet.<8 random>.tmp while written
#: ``models:`` may name this file, beside params.yaml, instead of holding the models: dvc.lock then
#: records one line for them, not seven a model, which DVC parses and rewrites after every stage
#: (docs/performance.md); predict depends on the file in dvc.yaml.
MODELS_FILE = "models.yaml"
_TOP_KEYS = ("seed", "riddles", "splits", "models", "jury", "annotations", "calibration", "exams", "requests",
             "prices")


@dataclass(frozen=True)
class ModelSpec:
    """A model to evaluate; ``options`` are its backend's own settings (skill, base_url, ...)."""

    key: str
    backend: Backend
    provider: str
    name: str
    n_hints: int
    options: ModelOptions
    # the benchmarks it takes (riddle splits and exam keys); None: every benchmark it can take
    # (Params.takes says which). Not part of a job's fingerprint: adding a benchmark runs only its jobs.
    takes: tuple[str, ...] | None = None

    @property
    def capabilities(self) -> BackendEntry:
        """What this spec's backend can do, from the backend table (sends requests, batch, ...)."""
        return backend_entry(self.backend)


@dataclass(frozen=True)
class JudgeSpec:
    """A judge of the jury pool; ``options`` are its backend's settings (sensitivity, base_url, ...).

    ``kind`` is what it is asked: ``verdict`` (the JSON verdict prompt) or ``l3score`` (a graded
    Yes/No score from log-probabilities; ``threshold`` turns it into the jury's verdict,
    docs/method.md §7).
    """

    key: str
    backend: Backend
    provider: str
    name: str
    options: JudgeOptions
    kind: JudgeKind = "verdict"
    threshold: float = L3SCORE_THRESHOLD

    @property
    def capabilities(self) -> BackendEntry:
        """What this spec's backend can do, from the backend table (sends requests, batch, ...)."""
        return backend_entry(self.backend)


@dataclass(frozen=True)
class CascadeParams:
    """``jury.cascade``: every row goes to the panel's ``first`` judges and the rest only where they disagree
    (docs/method.md §2, "A cascaded jury"); 0 is off. ``order``: judge keys asked first (the panel's other judges
    follow in pool order): it orders the panel, never changes who is on it."""

    first: int = 0
    order: tuple[str, ...] = ()


@dataclass(frozen=True)
class JuryParams:
    judges: int
    pool: tuple[JudgeSpec, ...]
    # not in repr: jobs fingerprint the jury by its repr, and an unused cascade must leave them as they were
    cascade: CascadeParams = field(default=CascadeParams(), repr=False)

    def panel(self, provider: str) -> tuple[JudgeSpec, ...]:
        """The first ``judges`` judges of the pool whose provider differs from ``provider`` (docs/method.md §2), in
        the order they are asked: under a cascade, ``cascade.order``'s first."""
        chosen = self.first_judges(provider, self.judges)
        if not self.cascade.first:
            return chosen
        rank = {key: i for i, key in enumerate(self.cascade.order)}
        return tuple(sorted(chosen, key=lambda j: rank.get(j.key, len(rank))))  # stable: pool order after

    def escalation(self, provider: str) -> tuple[tuple[JudgeSpec, ...], tuple[JudgeSpec, ...]]:
        """(the judges every row goes to, those only the rows they disagree on go to) of a model of ``provider``:
        the whole panel first when there is no cascade."""
        panel = self.panel(provider)
        if not self.cascade.first:
            return panel, ()
        return panel[: self.cascade.first], panel[self.cascade.first :]

    def first_judges(self, provider: str, n: int) -> tuple[JudgeSpec, ...]:
        """The first ``n`` judges of the pool whose provider differs from ``provider``."""
        return tuple(j for j in self.pool if j.provider != provider)[:n]


@dataclass(frozen=True)
class AnnotationParams:
    """Where labels come from, the simulated share, and the annotation app's queue settings.

    ``budget``: distinct predictions the app aims to label per split (None: ``share`` of them);
    ``double_share``: the share of labelled predictions a second annotator labels too, for agreement;
    ``first_double``: an annotator's first labels in a split that are second labels (the annotator audit's pairs);
    ``noise``: the chance that a simulated annotator gets a field wrong (0: truthful annotators).
    """

    source: AnnotationSource = "sim"
    share: float = 0.5
    queue: QueuePolicy = "lookahead"
    budget: int | None = None
    double_share: float = 0.1
    first_double: int = 50
    noise: float = 0.0
    # ``source`` per split when params.yaml gives a mapping ({llm: file, vlm: sim}); ``source`` is then sim
    by_split: tuple[tuple[str, AnnotationSource], ...] = ()

    def source_for(self, split: str) -> AnnotationSource:
        """Where ``split``'s labels come from: its own entry of a per-split ``source``, else ``source``."""
        return dict(self.by_split).get(split, self.source)


@dataclass(frozen=True)
class CalibrationParams:
    field: Field = "both_correct"
    method: Method = "layton"
    bootstrap: int = 10_000
    empty_bin: EmptyBin = "error"
    interval: IntervalName = "posterior"
    posterior: PosteriorName = "latent"


@dataclass(frozen=True)
class Params:
    seed: int
    riddles: RiddleParams
    splits: tuple[str, ...]
    models: tuple[ModelSpec, ...]
    jury: JuryParams
    annotations: AnnotationParams
    calibration: CalibrationParams
    exams: dict[str, ExamSpec] = field(default_factory=dict)  # by key, in the file's order; {}: no exam
    requests: RequestSettings = field(default_factory=RequestSettings)
    prices: PriceTable = field(default_factory=PriceTable)
    # riddles.extract: the model that reads answers out of wiki solutions (None: the offline heuristic)
    extractor: ModelSpec | None = None

    @property
    def benchmarks(self) -> tuple[str, ...]:
        """Every benchmark: the riddle splits, then the exams by key."""
        return (*self.splits, *self.exams)

    def takes(self, model: ModelSpec, benchmark: str) -> bool:
        """Whether ``model`` takes ``benchmark`` (docs/design.md, "Benchmarks"): the ones its
        ``takes:`` names, else every benchmark it can take (a replay model: the exams it has replies for);
        an imported exam is taken by its runs' models only."""
        exam = self.exams.get(benchmark)
        if exam is not None and exam.source == "imported":
            return model.capabilities.imported and model.key in dict(exam.runs)
        if model.takes is not None:
            return benchmark in model.takes
        if benchmark in self.exams and model.capabilities.replays:
            return replay_exam_file(model, benchmark) is not None
        return benchmark in self.benchmarks

    def models_taking(self, benchmark: str) -> tuple[ModelSpec, ...]:
        """The models that take ``benchmark``, in params order: the only ones ranked or asked on it."""
        return tuple(m for m in self.models if self.takes(m, benchmark))

    def model(self, key: str) -> ModelSpec:
        for m in self.models:
            if m.key == key:
                return m
        raise ParamsError(f"params.yaml: no model {key!r} under models (have: {', '.join(m.key for m in self.models)})")


def load_params(path: str | Path = "params.yaml") -> Params:
    """Read and validate ``path`` (and :data:`MODELS_FILE` beside it when ``models:`` names it)."""
    data, models_source = raw_params(path)
    return parse_params(data, source=str(path), models_source=models_source)


def raw_params(path: str | Path = "params.yaml") -> tuple[Any, str]:
    """``path`` loaded, unvalidated, with ``models:`` read from :data:`MODELS_FILE` when it names
    that file; and the file the models came from (for error messages)."""
    path = Path(path)
    data = load_yaml(read_text(path, "params file", ParamsError), str(path), ParamsError)
    if not isinstance(data, Mapping) or not isinstance(data.get("models"), str):
        return data, str(path)
    if data["models"] != MODELS_FILE:
        raise ParamsError(f"{path}: models: {data['models']!r}: expected the models themselves, or {MODELS_FILE!r} "
                          f"(the file beside it that predict depends on in dvc.yaml)")
    models_path = path.parent / MODELS_FILE
    models = load_yaml(read_text(models_path, "models file", ParamsError), str(models_path), ParamsError)
    if not isinstance(models, Mapping) or set(models) != {"models"}:
        raise ParamsError(f"{models_path}: expected one key at the top level, models: (the models to evaluate)")
    return {**data, "models": models["models"]}, str(models_path)


def parse_params(data: Any, source: str = "params.yaml", models_source: str | None = None) -> Params:
    """Validate a loaded params mapping and return typed :class:`Params`; errors in ``models``
    name ``models_source`` (default: ``source``), the file they came from."""
    if not isinstance(data, Mapping):
        raise ParamsError(f"{source}: expected a mapping at the top level")
    refuse_old_exam_key(data, source)
    checks.known_keys(data, _TOP_KEYS, f"{source}:")
    splits = _splits(data.get("splits"), source)
    where = models_source or source
    models = tuple(_model(k, v, where) for k, v in checks.mapping(data.get("models"), f"{where}: models").items())
    if not models:
        raise ParamsError(f"{where}: models: at least one model is needed")
    _check_case(models, where)
    jury = _jury(data.get("jury"), source)
    _check_panels(models, jury, source)
    riddles = parse_riddles(data.get("riddles"), source)
    exams = parse_exams(data.get("exams"), source)
    models = (*models, *_imported_models(exams, models, source))
    params = Params(
        seed=checks.integer(data.get("seed", 0), f"{source}: seed"),
        riddles=riddles,
        splits=splits,
        models=models,
        jury=jury,
        annotations=_annotations(data.get("annotations"), f"{source}: annotations"),
        calibration=_calibration(data.get("calibration"), f"{source}: calibration"),
        exams=exams,
        requests=parse_requests(data.get("requests"), f"{source}: requests"),
        prices=parse_prices(data.get("prices"), f"{source}: prices"),
        extractor=_extractor(riddles.extract, source),
    )
    _check_takes(params, source)
    unknown = sorted(set(params.requests.max_cost_usd_per_model) - {m.key for m in models})
    if unknown:
        raise ParamsError(f"{source}: requests.max_cost_usd_per_model.{unknown[0]}: not a model of models: "
                          f"({', '.join(m.key for m in models)})")
    for key, spec in exams.items():
        if spec.source != "imported":  # graded by the harness that made the runs: no judge
            _check_panels(params.models_taking(key), jury, source, spec.judges, f"exams.{key}.judges")
    return params


def _imported_models(exams: Mapping[str, ExamSpec], models: tuple[ModelSpec, ...], source: str
                     ) -> tuple[ModelSpec, ...]:
    """A model per key of the imported exams' ``runs:`` (backend ``imported``), taking exactly the exams
    that name it: a run is not a model of ``models:``, so its key may not be one."""
    native = {m.key.casefold() for m in models}
    takes: dict[str, list[str]] = {}
    folded: dict[str, str] = {}
    for spec in exams.values():
        for key, _ in spec.runs:
            where = f"{source}: exams.{spec.key}.runs.{key}"
            if key.casefold() in native:
                raise ParamsError(f"{where}: models: has a model of this key (or one differing only by case); a run "
                                  "made elsewhere is a model of its own: give it another key")
            if folded.setdefault(key.casefold(), key) != key:
                raise ParamsError(f"{where}: differs from run key {folded[key.casefold()]} only by case; their files "
                                  "would be one file on macOS and Windows (rename one)")
            takes.setdefault(key, []).append(spec.key)
    return tuple(ModelSpec(key, "imported", "imported", key, 0, ImportedOptions(), tuple(exams_of))
                 for key, exams_of in takes.items())


def _splits(value: Any, source: str) -> tuple[str, ...]:
    """``splits:``: a list of known riddle splits (absent or empty: all of them)."""
    if value is None or value == []:
        return SPLITS
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise ParamsError(f"{source}: splits: expected a list of split names ({', '.join(SPLITS)}), got {value!r:.60}")
    for s in value:
        if s not in SPLITS:
            raise ParamsError(f"{source}: splits: unknown split {s!r} (known: {', '.join(SPLITS)})")
    return tuple(value)


def replay_exam_file(model: ModelSpec, exam: str) -> str | None:
    """The file of a replay model's replies to ``exam`` (None: it has none, so it does not take it)."""
    options = model.options
    return options.exam_replies(exam) if isinstance(options, ReplayOptions) else None


def _check_takes(params: Params, source: str) -> None:
    """Each ``takes:`` entry names a benchmark (did-you-mean otherwise); a replay model that takes an
    exam has the file of its replies; every model takes something."""
    for m in params.models:
        where = f"{source}: models.{m.key}"
        for b in m.takes or ():
            if b not in params.benchmarks:
                hint = checks.did_you_mean(b, params.benchmarks) or f"benchmarks: {', '.join(params.benchmarks)}"
                raise ParamsError(f"{where}.takes: {b!r} is not a benchmark ({hint})")
            if not params.takes(m, b):  # an imported exam: only its runs take it
                raise ParamsError(f"{where}.takes: {b!r} is an imported exam, taken only by the runs under its runs: "
                                  "(nothing is asked of a model there)")
        for exam in params.exams:
            if m.capabilities.replays and m.takes is not None and exam in m.takes \
                    and replay_exam_file(m, exam) is None:
                raise ParamsError(f"{where}.takes: {exam!r}, but the model has no replies to it: set exam_path "
                                  f"(a file, or a map from exam key to file), or leave {exam!r} out of takes")
        if isinstance(m.options, ReplayOptions) and isinstance(m.options.exam_path, str) \
                and len([e for e in params.exams if params.takes(m, e)]) > 1:
            raise ParamsError(f"{where}.exam_path: one file of replies for several exams; map each exam key to "
                              "its file (exam_path: {<exam>: <file>}) or say which exam it is with takes:")
        if not any(params.takes(m, b) for b in params.benchmarks):
            raise ParamsError(f"{where}: takes no benchmark of this params.yaml ({', '.join(params.benchmarks)})")


def _extractor(entry: Mapping[str, Any], source: str) -> ModelSpec | None:
    """``riddles.extract``: ``backend: heuristic`` (None) or a model entry like those of ``models:``
    (``sim`` excluded: there is nothing to simulate). Its key is :data:`EXTRACT_KEY`."""
    where = f"{source}: riddles.extract"
    entry = dict(entry)
    if entry.get("backend", HEURISTIC) == HEURISTIC:
        checks.known_keys(entry, ("backend",), where)
        return None
    extractors = [name for name in backend_names() if backend_entry(name).extractor is not None]
    if entry.get("backend") in backend_names() and entry.get("backend") not in extractors:
        raise ParamsError(f"{where}.backend: {entry['backend']} cannot extract; "
                          f"use {', '.join([HEURISTIC, *extractors])}")
    backend, provider, name = _identity(entry, EXTRACT_KEY, where)
    return ModelSpec(EXTRACT_KEY, backend, provider, name, 0, model_options(backend, entry, where))


def _check_panels(models: tuple[ModelSpec, ...], jury: JuryParams, source: str, n: int | None = None,
                  key: str = "jury.judges") -> None:
    """Every model needs ``n`` (default ``jury.judges``) judges of another provider."""
    n = jury.judges if n is None else n
    suffix = "" if key == "jury.judges" else f" ({key})"
    for m in models:
        panel = jury.first_judges(m.provider, n)
        if len(panel) < n:
            raise ParamsError(
                f"{source}: jury.pool is too small to form a panel of {n}{suffix} for model {m.key!r} "
                f"(provider {m.provider!r}): only {len(panel)} judge(s) of another provider"
            )


def _annotations(data: Any, where: str) -> AnnotationParams:
    ann = checks.mapping(data, where, optional=True)
    if "per_riddle" in ann:
        raise ParamsError(
            f"{where}.per_riddle is no longer read: write `share: <0..1>` instead, the share of each "
            "simulated model's predictions that get a label (a fixed count per riddle cannot stay fixed "
            "when a model is added without moving the others' labels; docs/method.md §3)"
        )
    checks.known_keys(ann, ("source", "share", "budget", "double_share", "first_double", "queue", "noise"), where)
    share = checks.number(ann.get("share", 0.5), f"{where}.share", lo=0.0, hi=1.0)
    budget = ann.get("budget")
    if share == 0:
        raise ParamsError(f"{where}.share: 0 labels nothing, so no model could be calibrated; use a share in (0, 1]")
    source, by_split = _sources(ann.get("source", "sim"), f"{where}.source")
    return AnnotationParams(
        source=source,
        by_split=by_split,
        share=share,
        budget=None if budget is None else checks.integer(budget, f"{where}.budget", lo=1),
        double_share=checks.number(ann.get("double_share", 0.1), f"{where}.double_share", lo=0.0, hi=1.0),
        first_double=checks.integer(ann.get("first_double", 50), f"{where}.first_double", lo=0, hi=100_000),
        queue=checks.choice(ann.get("queue", "lookahead"), QUEUE_POLICIES, f"{where}.queue"),
        noise=checks.number(ann.get("noise", 0.0), f"{where}.noise", lo=0.0, hi=0.5),
    )


def _sources(value: Any, where: str) -> tuple[AnnotationSource, tuple[tuple[str, AnnotationSource], ...]]:
    """``annotations.source``: one source for every split, or a mapping split -> source (others: sim)."""
    if not isinstance(value, Mapping):
        return checks.choice(value, ANNOTATION_SOURCES, where), ()
    checks.known_keys(value, SPLITS, where)
    return "sim", tuple((k, checks.choice(v, ANNOTATION_SOURCES, f"{where}.{k}")) for k, v in value.items())


def _calibration(data: Any, where: str) -> CalibrationParams:
    cal = checks.mapping(data, where, optional=True)
    checks.known_keys(cal, ("field", "method", "bootstrap", "empty_bin", "interval", "posterior"), where)
    return CalibrationParams(
        field=checks.choice(cal.get("field", "both_correct"), FIELDS, f"{where}.field"),
        method=checks.choice(cal.get("method", "layton"), METHODS, f"{where}.method"),
        bootstrap=checks.integer(cal.get("bootstrap", 10_000), f"{where}.bootstrap", lo=1),
        empty_bin=checks.choice(cal.get("empty_bin", "error"), EMPTY_BINS, f"{where}.empty_bin"),
        interval=checks.choice(cal.get("interval", "posterior"), INTERVALS, f"{where}.interval"),
        posterior=checks.choice(cal.get("posterior", "latent"), POSTERIORS, f"{where}.posterior"),
    )


def _model(key: Any, spec: Any, source: str) -> ModelSpec:
    where = f"{source}: models.{key}"
    _check_key(key, where)
    entry = dict(checks.mapping(spec, where))
    backend, provider, name = _identity(entry, key, where)
    n_hints = checks.integer(entry.pop("n_hints", 0), f"{where}.n_hints", lo=0, hi=4)
    takes = _takes(entry.pop("takes", None), f"{where}.takes")
    return ModelSpec(str(key), backend, provider, name, n_hints, model_options(backend, entry, where), takes)


def _takes(value: Any, where: str) -> tuple[str, ...] | None:
    """A model's ``takes:``: a non-empty list of benchmark names (checked against them later)."""
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(b, str) and b for b in value):
        raise ParamsError(f"{where}: expected a non-empty list of benchmarks (riddle splits and exam keys), "
                          f"got {value!r:.60}")
    return tuple(dict.fromkeys(value))


def _identity(entry: dict[str, Any], key: str, where: str) -> tuple[Backend, str, str]:
    """Pop and check the keys every model and judge has: backend, provider, name."""
    backend = checks.choice(entry.pop("backend", None), backend_names(), f"{where}.backend")
    provider = checks.string(entry.pop("provider", None), f"{where}.provider")
    name = checks.string(entry.pop("name", key), f"{where}.name")
    return backend, provider, name


def _jury(data: Any, source: str) -> JuryParams:
    data = checks.mapping(data, f"{source}: jury")
    if "size" in data:
        # DVC's run-cache key drops every params key named `size` (or `nfiles`) at any depth, so
        # a change to it would restore stale panels from the cache (docs/design.md).
        raise ParamsError(
            f"{source}: jury.size is no longer read: write `judges: {data['size']}` instead "
            "(DVC's run-cache ignores params keys named 'size', so changing it would give stale results)"
        )
    checks.known_keys(data, ("judges", "pool", "cascade"), f"{source}: jury")
    judges = checks.integer(data.get("judges", 3), f"{source}: jury.judges", lo=1)
    entries = checks.mapping(data.get("pool"), f"{source}: jury.pool")
    pool = tuple(_judge(key, spec, source) for key, spec in entries.items())
    return JuryParams(judges, pool, _cascade(data.get("cascade"), judges, pool, source))


def _cascade(data: Any, judges: int, pool: tuple[JudgeSpec, ...], source: str) -> CascadeParams:
    """``jury.cascade``: ``first`` 0 (off) or fewer than ``jury.judges``; ``order`` distinct judge keys of the pool."""
    where = f"{source}: jury.cascade"
    data = checks.mapping(data, where, optional=True)
    checks.known_keys(data, ("first", "order"), where)
    first = checks.integer(data.get("first", 0), f"{where}.first", lo=0)
    if first == 1:
        raise ParamsError(f"{where}.first: one judge cannot disagree with itself: 0 (off) or 2 or more")
    if first and first >= judges:
        raise ParamsError(f"{where}.first: {first} judges first leaves none to escalate to "
                          f"(jury.judges is {judges}; 0 turns the cascade off)")
    order = data.get("order") or []
    if not isinstance(order, list) or not all(isinstance(k, str) for k in order):
        raise ParamsError(f"{where}.order: a list of jury.pool keys, got {order!r}")
    keys = [j.key for j in pool]
    for key in order:
        if key not in keys:
            hint = checks.did_you_mean(key, keys) or f"known: {', '.join(keys)}"
            raise ParamsError(f"{where}.order: {key!r} is not a judge of jury.pool ({hint})")
    if len(set(order)) != len(order):
        raise ParamsError(f"{where}.order: {sorted({k for k in order if order.count(k) > 1})[0]!r} is named twice")
    return CascadeParams(first, tuple(order))


def _judge(key: Any, spec: Any, source: str) -> JudgeSpec:
    """One ``jury.pool`` entry: identity, kind (and threshold for l3score), backend options."""
    where = f"{source}: jury.pool.{key}"
    _check_key(key, where)
    entry = dict(checks.mapping(spec, where))
    backend, provider, name = _identity(entry, key, where)
    kind = checks.choice(entry.pop("kind", "verdict"), JUDGE_KINDS, f"{where}.kind")
    if kind == "verdict":
        if "threshold" in entry:
            raise ParamsError(f"{where}.threshold: only an l3score judge has a threshold (this judge is a verdict one)")
        return JudgeSpec(str(key), backend, provider, name, judge_options(backend, entry, where))
    if backend not in l3score_backends():
        raise ParamsError(f"{where}: {l3score_refusal(str(key), backend)}")
    threshold = checks.number(entry.pop("threshold", L3SCORE_THRESHOLD), f"{where}.threshold", lo=0.0, hi=1.0)
    if backend_entry(backend).sends_requests:
        entry = {**L3SCORE_GENERATION, **entry}
    return JudgeSpec(str(key), backend, provider, name, judge_options(backend, entry, where), kind, threshold)



def l3score_refusal(key: str, backend: str) -> str:
    """Why judge ``key`` cannot be an l3score judge on ``backend`` (one without log-probabilities)."""
    return (f"judge {key!r} is of kind l3score, which needs the top-5 log-probabilities of its reply, and backend "
            f"{backend!r} cannot return them (Anthropic and Gemini return none; batch and replay are not supported); "
            "use backend openai-compatible with a server that honours logprobs and top_logprobs")


def _check_case(models: tuple[ModelSpec, ...], source: str) -> None:
    """Model keys name files: two that differ only by case would be one file on macOS and Windows."""
    seen: dict[str, str] = {}
    for m in models:
        other = seen.setdefault(m.key.casefold(), m.key)
        if other != m.key:
            raise ParamsError(f"{source}: models.{m.key}: differs from models.{other} only by case; their files "
                              "would be one file on macOS and Windows (rename one)")


def _check_key(key: Any, where: str) -> None:
    if not isinstance(key, str) or "." in key:
        raise ParamsError(
            f"{where}: key must not contain a dot (DVC cannot track params whose key has one); "
            "use a slug such as 'gpt-5-1' and put the real model id in 'name'"
        )
    if not MODEL_KEY.match(key):
        raise ParamsError(f"{where}: key must be a slug of letters, digits, '-' and '_'")
    if len(key) > MAX_KEY:
        raise ParamsError(f"{where}: key is {len(key)} characters long, more than {MAX_KEY}: it names files "
                          "(with their temporary names, they must stay under the 255 bytes a file name may have)")
