"""``sideways import-run SRC EXAM [KEY]``: runs made by lm-evaluation-harness or inspect_ai copied into the project.

SRC is read first (:func:`~sideways.imports.load.read_runs`; a bad file is one line saying why), then its files
are stored under ``data/exams/<EXAM>/``: an lm-eval run's folder (its results file and samples) as ``<KEY>/``,
an inspect ``.json`` log as ``<KEY>.json``, and an inspect ``.eval`` log as the ``.json`` inspect's own converter
made of it (so ``dvc repro`` on a clone never needs inspect). With KEY, SRC is one run; without it, each run of
SRC (an inspect log directory, as ``inspect eval-set`` writes one log per model) becomes the model its harness
names, made a key (``mockllm/alpha`` -> ``mockllm-alpha``); two runs giving one key is one line naming both,
before anything is copied. A run already there is replaced only with ``--replace`` (the second run of "I ran
lm-eval twice", docs/exams.md), by a copy renamed into place. The command then says the ``params.yaml``
entries that make the runs models of imported exam EXAM, or that the file already holds them; it does not
rewrite params.yaml (its comments are the user's). Nothing else is written.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from sideways.commands import Subparsers, add_params_option
from sideways.config.exam import EXAM_KEY, RUN_KEY
from sideways.config.params import load_params
from sideways.core.errors import ParamsError
from sideways.core.width import clip
from sideways.imports.inspect_tool import ENV
from sideways.imports.load import read_runs
from sideways.imports.run import ImportedRun, ImportedRunError, keyed_runs, log_line, model_key

DESCRIPTION = f"""\
Copy runs made elsewhere into the project: SRC is an lm-evaluation-harness output folder (--output_path,
written with --log_samples) or results file, an inspect_ai log (.json, or .eval: converted by inspect's own
`inspect log convert`, from ${ENV} or PATH; install it in its own environment: pipx install inspect-ai), or
an inspect log directory. Everything is read first (a bad file is one line naming the file and the record),
then stored under data/exams/EXAM/ (an lm-eval run as KEY/, an inspect log as KEY.json). With KEY, SRC is
one run; without it, each run becomes the model its harness names (inspect eval-set's directory: one log per
model). --replace puts a new run where the last one was (the second run of a before/after comparison). The
command prints the params.yaml entries (source: imported) that make the runs models of exam EXAM, unless
params.yaml holds them already; then `make repro` takes them in, and `sideways diff` compares them with the
last commit."""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("import-run", help="copy lm-eval or inspect runs into the project as an exam's models",
                       description=DESCRIPTION)
    p.add_argument("src", help="an lm-eval output folder or results file, an inspect log or log directory")
    p.add_argument("exam", help="the imported exam's key (params.yaml: exams.<EXAM>)")
    p.add_argument("key", nargs="?", help="the model one run becomes (exams.<EXAM>.runs.<KEY>); without it, each "
                                          "run becomes its harness's model name")
    p.add_argument("--replace", action="store_true", help="replace runs already copied under those keys")
    add_params_option(p)
    p.set_defaults(func=run)


def destination(run: ImportedRun, exam: str, key: str) -> tuple[list[Path], Path]:
    """(the files to copy, where to): an lm-eval run's results file and its samples files (not another run of
    the same folder) to data/exams/<exam>/<key>/, an inspect log to data/exams/<exam>/<key>.json."""
    source = Path(run.source)
    root = Path("data") / "exams" / exam
    if run.tool != "lm_eval":
        return [source], root / f"{key}.json"
    stamp = source.name.removeprefix("results_").removesuffix(".json")
    return [source, *sorted(source.parent.glob(f"samples_*_{stamp}.jsonl"))], root / key


def refuse_present(dest: Path, replace: bool) -> None:
    if dest.exists() and not replace:
        raise ImportedRunError(f"{dest}: a run is there already; --replace puts this one in its place")


def copy_run(files: list[Path], dest: Path, folder: bool, replace: bool, data: bytes | None = None) -> None:
    """``files`` copied to ``dest`` (into it when ``folder``; ``data`` written instead of the one file when given:
    inspect's conversion of a .eval log) through a temporary sibling renamed into place: a failed copy leaves no
    half run."""
    refuse_present(dest, replace)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}.", dir=dest.parent) as tmp:
        staged = Path(tmp) / dest.name
        if folder:
            staged.mkdir()
            for f in files:
                shutil.copy2(f, staged / f.name)
        elif data is not None:
            staged.write_bytes(data)
        else:
            shutil.copy2(files[0], staged)
        if dest.is_dir():
            shutil.rmtree(dest)
        elif dest.exists():
            dest.unlink()
        staged.rename(dest)


def params_note(params: str, exam: str, stored: dict[str, Path]) -> list[str]:
    """What params.yaml still needs for the ``stored`` runs (by key) to be models of ``exam``, or that it has it."""
    paths = {key: PurePosixPath(dest.as_posix()).as_posix() for key, dest in stored.items()}
    try:
        spec = load_params(params).exams.get(exam)
    except ParamsError:
        spec = None
    named = dict(spec.runs) if spec is not None and spec.source == "imported" else {}
    keys = f"exams.{exam}.runs.{next(iter(paths))}" if len(paths) == 1 else f"exams.{exam}.runs: {', '.join(paths)}"
    if all(named.get(key) == path for key, path in paths.items()):
        return [clip(f"{params} names {'it' if len(paths) == 1 else 'them'} ({keys}); "
                     "next: make repro, then sideways diff")]
    runs = ", ".join(f"{key}: {path}" for key, path in paths.items())
    entry = f"exams: {{{exam}: {{source: imported, runs: {{{runs}}}}}}}"
    line = f"add to {params}: {entry}; then make repro"
    if len(line) <= 120:
        return [line]
    return [f"add to {params} (then make repro):", "exams:", f"  {exam}:", "    source: imported", "    runs:",
            *(f"      {key}: {path}" for key, path in paths.items())]


def run(args: argparse.Namespace) -> int:
    if not EXAM_KEY.match(args.exam):
        raise ParamsError(f"EXAM {args.exam!r}: lowercase letters, digits, '-' or '_' (it names the exam's files)")
    if args.key is not None and not RUN_KEY.match(args.key):
        raise ParamsError(f"KEY {args.key!r}: letters, digits, '-' or '_' (it names the model's files)")
    runs = read_runs(args.src)
    if args.key is not None and len(runs) != 1:
        raise ImportedRunError(log_line(args.src, f": {len(runs)} runs; without KEY each is imported as its model"))
    keyed = keyed_runs((args.key or model_key(r), r) for r in runs)
    plan = {key: destination(r, args.exam, key) for key, r in keyed.items()}
    for _, dest in plan.values():  # every refusal before anything is copied
        refuse_present(dest, args.replace)
    stored: dict[str, Path] = {}
    for key, r in keyed.items():
        files, dest = plan[key]
        copy_run(files, dest, r.tool == "lm_eval", args.replace, r.converted)
        kind = f"{r.tool} run" if r.converted is None else "inspect .eval log stored as inspect's .json"
        print(f"{dest}: {kind} of {r.model}, {len(r.items)} questions")
        stored[key] = dest
    for line in params_note(args.params, args.exam, stored):
        print(line)
    return 0
