"""``sideways diff [A] [B]``: which changes between two versions are real (docs/method.md §8).

Reads both versions' per-item tables through DVC (:mod:`sideways.commands.revisions`), computes
every shared model's paired change per benchmark with its interval, the Benjamini-Hochberg
verdict over every row, the minimal detectable change and the flipped items, and prints them
as a terminal table, JSON (``--json``) or Markdown for a pull request (``--md``).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

import pandas as pd

from sideways.artifacts import paths
from sideways.artifacts.schema import SPLITS
from sideways.commands import Subparsers
from sideways.commands.judge_diff import judge_changes, judge_lines, judge_notes
from sideways.commands.revisions import PUSH_HINT, WORKSPACE, Unavailable, read_files
from sideways.config.exam import EXAM_KEY
from sideways.config.params import MODEL_KEY
from sideways.exams.changes import exam_changes
from sideways.scoring.changes import Changes, SplitVersion, split_changes
from sideways.scoring.display import model_label
from sideways.scoring.paired import REPLICATES
from sideways.scoring.verdicts import Difference, bh_adjusted, verdict

DESCRIPTION = """\
Compare two versions of the results: A and B are git revisions (HEAD, HEAD~1, a branch, a tag,
a sha), `dvc exp` names, or `workspace` (default: HEAD against the workspace, as `dvc metrics
diff`). Both versions' per-item tables are read through DVC (the cache, else the default
remote): nothing is recomputed, no stage runs, no API key is needed. For each benchmark and each
model in both: the change of its calibrated score with a paired 95% interval (both versions'
riddles and labels resampled together), a verdict (up, down, no detectable change) after
Benjamini-Hochberg across every row, the smallest change the data could detect (80% power),
and the items that flipped (right to wrong, wrong to right; listed with --items). What cannot
be compared is said in one line each."""

WIDTH = 120  # the terminal output's widest line (the table's rows aside, which are narrower at the default)
COLUMNS = ("benchmark", "model", "metric", "A", "B", "change", "95% interval", "verdict", "MDE", "flips -/+")


def register(sub: Subparsers) -> None:
    p = sub.add_parser("diff", help="which changes between two versions are real", description=DESCRIPTION)
    p.add_argument("a", nargs="?", default="HEAD", help="the old version (default: HEAD)")
    p.add_argument("b", nargs="?", default=WORKSPACE, help=f"the new version (default: {WORKSPACE})")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the rows as JSON")
    form.add_argument("--md", action="store_true", help="print a Markdown table (a pull-request comment)")
    p.add_argument("--items", action="store_true", help="list the flipped items of each row")
    p.add_argument("--seed", type=int, default=0, help="seed of the paired bootstrap (default: 0)")
    p.add_argument("--replicates", type=int, default=REPLICATES, help=f"bootstrap replicates (default: {REPLICATES})")
    p.add_argument("--riddles", action="store_true",
                   help="also resample the riddles: the change on a new draw of riddles, not on these")
    p.set_defaults(func=run)


def split_files() -> list[Path]:
    return [f(s) for s in SPLITS for f in (paths.jury, paths.annotations, paths.scores)]


def _table(files: dict[Path, bytes | str], path: Path, problems: list[str], rev: str) -> pd.DataFrame | None:
    """A Parquet file of one version as a frame; None, with the reason kept, when it is missing or
    not a Parquet table (a version's files are data: a damaged one is one line, not a traceback)."""
    data = files[path]
    if isinstance(data, str):
        problems.append(data)
        return None
    try:
        # read in this thread, from memory: Arrow's pools left running at exit can abort the
        # process after its output was written ("terminate called without an active exception",
        # apache/arrow#34314; seen once in CI), and these tables are small
        return pd.read_parquet(BytesIO(data), use_threads=False, pre_buffer=False)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds on a damaged file
        problems.append(f"{path} at {rev}: not a readable Parquet table ({type(exc).__name__}: "
                        f"{' '.join(str(exc).split())[:120]})")
        return None


def _version(name: str, files: dict[Path, bytes | str], split: str, problems: list[str]) -> SplitVersion:
    tables = (paths.jury, paths.annotations, paths.scores)
    jury, annotations, scores = (_table(files, f(split), problems, name) for f in tables)
    return SplitVersion(name, jury, annotations, scores)


#: The exam's metrics before issue 28 (one exam, ``metrics/exam.json``, ``data/exam/detail.parquet``).
OLD_EXAM_METRICS, OLD_EXAM_DETAIL = Path("metrics/exam.json"), Path("data/exam/detail.parquet")
NEW_EXAM_METRICS, NEW_EXAM_DIR = Path("metrics/exams.json"), Path("data/exam/detail")


def exam_tables(rev: str) -> tuple[dict[str, tuple[pd.DataFrame, dict[str, Any]]], list[str]]:
    """``{exam key: (detail table, published metrics)}`` of one version, in any of its layouts: one
    detail file per exam and model (``metrics/exams.json``, ``data/exam/detail/<key>/<model>.parquet``),
    one per exam before it (``data/exam/detail/<key>.parquet``), or the single exam before that
    (``metrics/exam.json``, ``data/exam/detail.parquet``, keyed ``exam``); and the problems."""
    found = read_files(rev, [NEW_EXAM_METRICS, OLD_EXAM_METRICS])
    new, old = found[NEW_EXAM_METRICS], found[OLD_EXAM_METRICS]
    problems: list[str] = []
    if isinstance(new, bytes):
        metrics = exam_metrics(new, NEW_EXAM_METRICS, rev, problems)
        whole = {k: NEW_EXAM_DIR / f"{k}.parquet" for k in sorted(metrics)}
        per_model = {k: [NEW_EXAM_DIR / k / f"{m}.parquet" for m in sorted(metrics[k])] for k in sorted(metrics)}
    elif isinstance(old, bytes):
        metrics = exam_metrics(b'{"exam": %b}' % old, OLD_EXAM_METRICS, rev, problems)
        whole, per_model = {k: OLD_EXAM_DETAIL for k in metrics}, {k: [] for k in metrics}
    else:  # no exam in rev, or its metrics cannot be read: then which exams it has is unknown
        return {}, [v for v in (new, old) if isinstance(v, Unavailable)]
    files = read_files(rev, [*whole.values(), *(p for ps in per_model.values() for p in ps)])
    out = {}
    for key in metrics:
        if not isinstance(files[whole[key]], bytes) and per_model[key]:  # one file per model
            parts = [_table(files, p, problems, rev) for p in per_model[key]]
            table = None if any(t is None for t in parts) else pd.concat(parts, ignore_index=True)
        else:
            table = _table(files, whole[key], problems, rev)
        if table is not None:
            out[key] = (table, metrics[key])
    return out, problems


def exam_metrics(data: bytes, path: Path, rev: str, problems: list[str]) -> dict[str, dict[str, Any]]:
    """``{exam key: {model: {metric: value}}}`` of one version's exam metrics, keeping only what has that
    shape; each exam that has not is one problem naming the file and revision. A key must be an exam
    key and each model's a model key (they name ``data/exam/detail/<key>/<model>.parquet``: ``../../x``
    would read outside the repository)."""
    try:
        metrics = json.loads(data)
    except ValueError as exc:
        problems.append(f"{path} at {rev}: not valid JSON ({exc}); no exam compared")
        return {}
    if not isinstance(metrics, dict):
        problems.append(f"{path} at {rev}: expected an object of exams, got a JSON {type(metrics).__name__}")
        return {}
    out = {}
    for key, value in metrics.items():
        if not EXAM_KEY.fullmatch(key):
            problems.append(f"{path} at {rev}: {key[:60]!r} is not an exam key; not compared")
        elif not isinstance(value, dict) or not all(isinstance(m, dict) for m in value.values()):
            problems.append(f"{path} at {rev}: exam {key}: expected an object of models' metrics; not compared")
        elif bad := next((m for m in value if not MODEL_KEY.fullmatch(m)), None):
            problems.append(f"{path} at {rev}: exam {key}: {bad[:60]!r} is not a model key; not compared")
        else:
            out[key] = value
    return out


def compare_exams(a: str, b: str) -> Comparison:
    """The exams of both versions, paired per question (:mod:`sideways.exams.changes`)."""
    (ea, pa), (eb, pb) = exam_tables(a), exam_tables(b)
    out = Comparison(problems=[f"exam: not compared: {p}" for p in pa + pb])
    out.unavailable += [p for p in pa + pb if isinstance(p, Unavailable)]
    unknown = {rev for rev, found in ((a, pa), (b, pb)) if any(isinstance(p, Unavailable) for p in found)}
    for key in sorted(set(ea) ^ set(eb)):
        if not unknown:  # "in A only" is said only when both versions' exams are known
            out.problems.append(f"exam {key}: in {a if key in ea else b} only; not compared")
    for key in sorted(set(ea) & set(eb)):
        try:
            rows, problems = exam_changes(key, ea[key][0], eb[key][0], (a, b), (ea[key][1], eb[key][1]))
        except (KeyError, ValueError) as exc:
            out.problems.append(f"exam {key}: not compared: its tables do not fit together ({exc})")
            continue
        out.rows += rows
        out.problems += problems
    return out


@dataclass
class Comparison(Changes):
    """:class:`Changes`, and the tables the versions name whose data cannot be had (``sideways diff``
    then exits 1: the comparison asked for was not made)."""

    unavailable: list[str] = field(default_factory=list)


def compare(a: str, b: str, *, seed: int, replicates: int, riddles: bool = False) -> Comparison:
    """Every row of the comparison of ``a`` with ``b``, with q-values and verdicts, and the problems."""
    fa, fb = read_files(a, split_files()), read_files(b, split_files())
    out = Comparison(unavailable=[v for f in (fa, fb) for v in f.values() if isinstance(v, Unavailable)])
    for split in SPLITS:
        ja, jb = fa[paths.jury(split)], fb[paths.jury(split)]
        if all(isinstance(j, str) and not isinstance(j, Unavailable) for j in (ja, jb)):
            continue  # a split neither version has: nothing to say
        missing: list[str] = []
        va, vb = _version(a, fa, split, missing), _version(b, fb, split, missing)
        if missing:
            out.problems += [f"{split}: not compared: {m}" for m in missing]
            continue
        try:
            got = split_changes(split, va, vb, seed=seed, replicates=replicates, resample_riddles=riddles)
        except (KeyError, ValueError) as exc:
            out.problems.append(f"{split}: not compared: its tables do not fit together ({exc})")
            continue
        out.rows += got.rows
        out.problems += got.problems
    exams = compare_exams(a, b)
    out.rows += exams.rows
    out.problems += exams.problems
    out.unavailable += exams.unavailable
    decide(out.rows)
    return out


def decide(rows: list[dict[str, Any]]) -> None:
    """Add ``q`` (Benjamini-Hochberg over every row) and ``verdict`` to each row."""
    for row, q in zip(rows, bh_adjusted([r["p"] for r in rows]), strict=True):
        row["q"] = q
        row["verdict"] = verdict(Difference(row["change"], row["lo"], row["hi"], row["se"], row["p"]), q)


def _num(x: float | None, signed: bool = False) -> str:
    if x is None or x != x:
        return "-"
    return f"{x:+.1f}" if signed else f"{x:.1f}"


def cells(r: dict[str, Any]) -> list[str]:
    """A row's cells; an exam row's interval is marked ``*`` (its clusters: :func:`cluster_notes`), a
    sampled exam's score ``~`` (the change of two whole-exam estimates: :func:`cluster_notes`)."""
    mark = "~" if r.get("estimated") else "*" if "clusters" in r else ""
    return [r["benchmark"], model_label(r["model"]), r["metric"], _num(r["a"]), _num(r["b"]), _num(r["change"], True),
            f"[{_num(r['lo'], True)}, {_num(r['hi'], True)}]{mark}", r["verdict"], _num(r["mde"]),
            f"{len(r['to_wrong'])}/{len(r['to_right'])}"]


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)


def render_text(ch: Changes, a: str, b: str, items: bool) -> str:
    rows = [list(COLUMNS), *(cells(r) for r in ch.rows)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = [f"{a} -> {b}: calibrated scores in points; the change paired on shared items, with its 95% interval;",
             "verdict after Benjamini-Hochberg (q < 0.05); MDE: the smallest change detectable at 80% power;",
             "flips -/+: items right->wrong / wrong->right", ""]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    notes = cluster_notes(ch) + _item_lines(ch, items) + [f"not compared: {p}" for p in ch.problems]
    lines += [wrapped for note in notes for wrapped in _wrap(note)]
    return "\n".join(lines) + "\n"


def cluster_notes(ch: Changes) -> list[str]:
    """Why an exam's interval is wide, one line per exam: its change is clustered by topic (or by
    question), and the interval uses Student's t with clusters - 1 degrees of freedom."""
    by_exam: dict[str, dict[tuple[int, bool], list[str]]] = {}
    for r in ch.rows:
        if "clusters" in r:
            by_topic = r["clusters"] < r["items"]
            by_exam.setdefault(r["benchmark"], {}).setdefault((r["clusters"], by_topic), []).append(r["metric"])
    notes = []
    for exam in dict.fromkeys(r["benchmark"] for r in ch.rows if r.get("estimated")):
        notes.append(f"~ {exam}: a sampled exam's exam_score: the change of the two whole-exam estimates A and B show, "
                     "its se from both estimates' (not paired per question), Student's t on the smaller sample")
    for exam, groups in by_exam.items():
        parts = [f"{g} {'topics' if by_topic else 'questions'} as clusters, Student's t with {g - 1} degrees of "
                 f"freedom ({', '.join(dict.fromkeys(metrics))})" for (g, by_topic), metrics in groups.items()]
        notes.append(f"* {exam}: an exam row's interval is paired per question and clustered: {'; '.join(parts)}. "
                     "With few clusters the interval is wide: a change below the row's MDE is no detectable "
                     "change (docs/method.md §8)")
    return notes


def _item_lines(ch: Changes, items: bool) -> list[str]:
    """The flipped items of each row, named with the row's benchmark, model and metric."""
    if not items:
        return []
    out = []
    for r in ch.rows:
        if r["to_wrong"] or r["to_right"]:
            out.append(f"{r['benchmark']} {model_label(r['model'])} {r['metric']}: right->wrong "
                       f"{', '.join(r['to_wrong']) or '-'}; wrong->right {', '.join(r['to_right']) or '-'}")
    return out


def render_md(ch: Changes, a: str, b: str, items: bool, judges: list[str] | None = None) -> str:
    lines = [f"**sideways diff** `{a}` → `{b}` (paired 95% intervals, Benjamini-Hochberg verdicts)", "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |" for r in ch.rows]
    extra = cluster_notes(ch) + _item_lines(ch, items) + (judges or []) + [f"not compared: {p}" for p in ch.problems]
    return "\n".join(lines + ([""] + [f"- {e}" for e in extra] if extra else [])) + "\n"


def run(args: argparse.Namespace) -> int:
    ch = compare(args.a, args.b, seed=args.seed, replicates=args.replicates, riddles=args.riddles)
    judges = judge_changes(args.a, args.b, args.seed)  # the same judge audit in every view
    if args.json:
        print(json.dumps({"a": args.a, "b": args.b, "rows": ch.rows, "not_compared": ch.problems, "judges": judges},
                         indent=2, sort_keys=True, allow_nan=False, default=_json_default))
    elif args.md:
        print(render_md(ch, args.a, args.b, args.items, judge_notes(judges)), end="")
    else:
        print(render_text(ch, args.a, args.b, args.items) + judge_lines(judges), end="")
    if ch.unavailable:
        print(f"sideways diff: {len(ch.unavailable)} table(s) of these versions are in neither DVC's cache nor "
              "the remote (named above);", file=sys.stderr)
        print(f"  {PUSH_HINT}", file=sys.stderr)
        return 1
    return 0


def _json_default(x: Any) -> Any:
    return None if x is None else str(x)


if __name__ == "__main__":
    from sideways.commands import run_alone

    raise SystemExit(run_alone(register))
