"""What a stage would refuse in params.yaml, found before any stage runs.

``sideways check`` and the pipeline's first stage, ``check`` (every other stage runs after it:
docs/design.md, "Params are checked first"), run :func:`check_project`: the schema
(:func:`~sideways.config.params.load_params`), then each function of :data:`CHECKS`. A check takes
the parsed params and the project's folder (relative paths in params.yaml are read from there)
and returns the problem in one line naming the key at fault, or None. To add one, write such a
function and add it to :data:`CHECKS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from sideways.config.exam import missing_source
from sideways.config.options import ReplayOptions
from sideways.config.params import JudgeSpec, ModelSpec, Params, load_params
from sideways.core.errors import ParamsError

Check = Callable[[Params, Path], str | None]


def check_project(params_path: str | Path, checks: tuple[Check, ...] | None = None) -> Params:
    """``params_path`` parsed, and every check of ``checks`` (default :data:`CHECKS`) passed; raises
    :class:`ParamsError` with the first problem, naming the file and key."""
    params = load_params(params_path)
    root = Path(params_path).parent
    for check in CHECKS if checks is None else checks:
        if problem := check(params, root):
            raise ParamsError(f"{params_path}: {problem}")
    return params


def exam_sources(params: Params, root: Path) -> str | None:
    """Each exam's JSON file, or its dataset's folder when it names one, exists (exam_items reads it)."""
    return next((p for spec in params.exams.values() if (p := missing_source(spec, root))), None)


def riddle_file(params: Params, root: Path) -> str | None:
    """With ``riddles.source: demo``, ``riddles.path`` is a file (curate reads it)."""
    cfg = params.riddles
    if cfg.source == "demo" and not (root / cfg.path).is_file():
        return f"riddles.path: {cfg.path}: no such file (riddles.source is demo: curate reads the riddles from it)"
    return None


def wiki_contact(params: Params, root: Path) -> str | None:
    """With ``riddles.source: wiki``, a contact for the User-Agent (scrape refuses to go without)."""
    if params.riddles.source == "wiki" and not params.riddles.wiki.client.contact:
        return ("riddles.wiki.contact: set a URL or e-mail address where the wiki's admins can reach you "
                "(riddles.source is wiki: scrape sends it in the User-Agent of every request)")
    return None


def label_files(params: Params, root: Path) -> str | None:
    """With ``annotations.source: file``, each split's label file exists; with ``sim``, a simulated
    model takes each split (simulated annotators label simulated predictions only): annotate's refusals."""
    for split in params.splits:
        if params.annotations.source == "file":
            candidates = [f"data/labels/{split}.{ext}" for ext in ("parquet", "jsonl")]
            if not any((root / c).is_file() for c in candidates):
                return (f"annotations.source: file, but neither {candidates[0]} nor {candidates[1]} exists "
                        "(annotate reads the labels of each split from one)")
        elif not any(m.capabilities.simulated for m in params.models_taking(split)):
            return (f"annotations.source: sim, but no model with backend sim takes split {split!r}: simulated "
                    "annotators only label simulated predictions; set annotations.source: file")
    return None


def replay_files(params: Params, root: Path) -> str | None:
    """Each replay model's and judge's file, and a replay model's exam replies, exist (predict and judge read them)."""
    for where, spec in _specs(params):
        options = spec.options
        if not isinstance(options, ReplayOptions):
            continue
        if not (root / options.path).is_file():
            return f"{where}.path: {options.path}: no such file (the replay backend reads its answers from it)"
        if isinstance(spec, ModelSpec):
            for exam in params.exams:
                if params.takes(spec, exam) and (path := options.exam_replies(exam)) and not (root / path).is_file():
                    return f"{where}.exam_path: {path}: no such file (its replies to exam {exam!r})"
    return None


def capped_prices(params: Params, root: Path) -> str | None:
    """Under a spending cap, every model and judge that sends requests has a price (predict refuses to
    send for one without: an unknown price is not 0)."""
    s = params.requests
    if s.max_cost_usd is None and not s.max_cost_usd_per_model:
        return None
    cap = "requests.max_cost_usd" if s.max_cost_usd is not None else "requests.max_cost_usd_per_model"
    for where, spec in _specs(params):
        if spec.capabilities.sends_requests and params.prices.lookup((spec.key, spec.name)) is None:
            return (f"{cap} is set but {where} ({spec.name}) sends requests and has no price (an unknown price is "
                    "not 0): add it under prices:")
    return None


def used_judges(params: Params) -> list[JudgeSpec]:
    """The judges of the pool some model's panel or some exam uses: the ones that will be asked."""
    asked = [m for m in params.models if not m.capabilities.imported]  # an imported run's grades are its own
    used = {j.key for m in asked for j in params.jury.panel(m.provider)}
    for key, spec in params.exams.items():
        if spec.source != "imported":
            used |= {j.key for m in params.models_taking(key)
                     for j in params.jury.first_judges(m.provider, spec.judges)}
    return [j for j in params.jury.pool if j.key in used]


def _specs(params: Params) -> Iterator[tuple[str, ModelSpec | JudgeSpec]]:
    """Every model, the extractor, and every judge some panel or exam uses, with its key path."""
    yield from ((f"models.{m.key}", m) for m in params.models)
    if params.extractor is not None:
        yield "riddles.extract", params.extractor
    yield from ((f"jury.pool.{j.key}", j) for j in used_judges(params))


#: Every check :func:`check_project` runs after the schema, in this order (``sideways check``).
CHECKS: tuple[Check, ...] = (exam_sources, riddle_file, wiki_contact, label_files, replay_files, capped_prices)
#: The check stage's: all but the labels, which only annotate reads. A run aimed at the paid stages
#: (``dvc repro judge``, before anyone has labelled) must not be refused for them; a whole run
#: (``make repro``, which runs ``sideways check`` first) still is.
STAGE_CHECKS: tuple[Check, ...] = tuple(c for c in CHECKS if c is not label_files)
