"""``sideways import-run SRC EXAM KEY``: a run made by lm-evaluation-harness or inspect_ai copied into the project.

SRC is read first (:func:`~sideways.imports.load.read_runs`: one run, else one line saying why), then its
files are copied as the harness wrote them under ``data/exams/<EXAM>/``: an lm-eval run's folder (its results
file and samples) as ``<KEY>/``, an inspect log as ``<KEY>.json``. A run already there is replaced only with
``--replace`` (the second run of "I ran lm-eval twice", docs/exams.md), by a copy renamed into place. The
command then says the ``params.yaml`` entry that makes the run model KEY of imported exam EXAM, or that the
file already holds it; it does not rewrite params.yaml (its comments are the user's). Nothing else is written.
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
from sideways.imports.load import read_runs
from sideways.imports.run import ImportedRun, ImportedRunError

DESCRIPTION = """\
Copy one run made elsewhere into the project, as the harness wrote it: SRC is an lm-evaluation-harness
output folder (--output_path, written with --log_samples) or results file, or an inspect_ai .json log. It
is read first (a bad file is one line naming the file and the record), then copied under
data/exams/EXAM/ (an lm-eval run as KEY/, an inspect log as KEY.json); --replace puts a new run where the
last one was (the second run of a before/after comparison). The command prints the params.yaml entry that
makes the run model KEY of exam EXAM (source: imported), unless params.yaml holds it already; then
`make repro` (or `dvc repro`) takes it in, and `sideways diff` compares it with the last commit."""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("import-run", help="copy an lm-eval or inspect run into the project as an exam's model",
                       description=DESCRIPTION)
    p.add_argument("src", help="an lm-eval output folder or results file, or an inspect .json log")
    p.add_argument("exam", help="the imported exam's key (params.yaml: exams.<EXAM>)")
    p.add_argument("key", help="the model the run becomes (exams.<EXAM>.runs.<KEY>)")
    p.add_argument("--replace", action="store_true", help="replace the run already copied under that key")
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


def copy_run(files: list[Path], dest: Path, folder: bool, replace: bool) -> None:
    """``files`` copied to ``dest`` (into it when ``folder``) through a temporary sibling renamed into place:
    a failed copy leaves no half run."""
    if dest.exists() and not replace:
        raise ImportedRunError(f"{dest}: a run is there already; --replace puts this one in its place")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}.", dir=dest.parent) as tmp:
        staged = Path(tmp) / dest.name
        if folder:
            staged.mkdir()
            for f in files:
                shutil.copy2(f, staged / f.name)
        else:
            shutil.copy2(files[0], staged)
        if dest.is_dir():
            shutil.rmtree(dest)
        elif dest.exists():
            dest.unlink()
        staged.rename(dest)


def params_note(params: str, exam: str, key: str, dest: Path) -> str:
    """What params.yaml still needs for the run to be model ``key`` of ``exam``, or that it has it."""
    path = PurePosixPath(dest.as_posix()).as_posix()
    entry = f"exams: {{{exam}: {{source: imported, runs: {{{key}: {path}}}}}}}"
    try:
        spec = load_params(params).exams.get(exam)
    except ParamsError:
        spec = None
    if spec is not None and spec.source == "imported" and dict(spec.runs).get(key) == path:
        return f"{params} names it (exams.{exam}.runs.{key}); next: make repro, then sideways diff"
    return f"add to {params}: {entry}; then make repro"


def run(args: argparse.Namespace) -> int:
    if not EXAM_KEY.match(args.exam):
        raise ParamsError(f"EXAM {args.exam!r}: lowercase letters, digits, '-' or '_' (it names the exam's files)")
    if not RUN_KEY.match(args.key):
        raise ParamsError(f"KEY {args.key!r}: letters, digits, '-' or '_' (it names the model's files)")
    runs = read_runs(args.src)
    if len(runs) != 1:
        raise ImportedRunError(f"{args.src}: {len(runs)} runs; import one at a time (an inspect log, or one "
                               "lm-eval results folder)")
    files, dest = destination(runs[0], args.exam, args.key)
    copy_run(files, dest, runs[0].tool == "lm_eval", args.replace)
    print(f"{dest}: {runs[0].tool} run of {runs[0].model}, {len(runs[0].items)} questions")
    print(params_note(args.params, args.exam, args.key, dest))
    return 0
