"""``sideways annotate``: label predictions in a browser (``serve``), bring layton-eval labels in
(``import``), and print progress and agreement (``stats``)."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from sideways.annotation.agreement import agreement
from sideways.annotation_app.audit_field import split_tables
from sideways.annotation_app.items import Item, load_items, skipped
from sideways.annotation_app.latent_gain import fit_for as latent_fit_for
from sideways.annotation_app.lookahead import fit_for as lookahead_fit_for
from sideways.annotation_app.queue import Bin, Candidate, Plan, State, holes, progress, show_bin
from sideways.annotation_app.store import LabelStore, extend
from sideways.annotation_app.uncertain import Scores, fit_for
from sideways.artifacts import paths
from sideways.artifacts.io import read_table
from sideways.artifacts.schema import RIDDLES, SPLITS
from sideways.commands import Subparsers, add_params_option, run_alone
from sideways.commands.audit import print_annotator_audit
from sideways.config.params import Params, load_params
from sideways.core.errors import SidewaysError
from sideways.core.jsonl import read_jsonl_numbered
from sideways.layton_eval.annotations import DEFAULT_ANNOTATOR, convert_annotations

DESCRIPTION = """\
Human labels for `annotations.source: file` (for every split, or per split: {llm: file, vlm: sim}), kept in
data/labels/<split>.jsonl (data/labels/README.md). Models whose `takes:` leaves the split out are skipped.

  serve   a local web app that shows one model's prediction beside the riddle and records whether
          its answer and justification are correct. The queue serves first the prediction whose
          label is expected to narrow the leaderboard's intervals most (`annotations.queue`),
          then spreads over models (seeded by `seed`); `annotations.budget` and
          `annotations.double_share` in params.yaml bound it.
          Reads the split, predictions and jury tables: run `dvc repro` first.
  import  convert a layton-eval annotation file (annotations/llm.jsonl in its repository) and
          append it; lines already in the file are not added twice.
  stats   labels per jury-score bin and provider, the budget, and Cohen's kappa between annotators.
"""


SERVE = """\
Serve the annotation app on this machine: the riddle and one model's prediction at a time (the
model is named once the label is saved), keys for every control, progress per jury-score bin
and provider against `annotations.budget`. Each label is appended to data/labels/<split>.jsonl,
fsync'd before the page hears it is saved. Run `dvc repro` first (it reads the split,
predictions and jury tables). A reloaded page keeps its session and item; the item of a page
closed for 30 s goes back to the queue."""
IMPORT = """\
Convert a layton-eval annotation file (annotations/llm.jsonl in its repository: riddle_id, model,
provider, is_answer_correct, is_justification_correct, notes) and append it to
data/labels/<split>.jsonl. Lines already there (same riddle, model and annotator) are not added
twice."""
STATS = """\
Print the labels of data/labels/<split>.jsonl per jury-score bin and provider, against the budget,
the bins some model's calibration pool still lacks, and Cohen's kappa between annotators on the
double-labelled predictions."""


def register(sub: Subparsers) -> None:
    p = sub.add_parser("annotate", help="label predictions in a browser, import labels, print agreement",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION", help="serve, import or stats")
    serve = actions.add_parser("serve", help="serve the annotation app on this machine", description=SERVE)
    serve.add_argument("--split", required=True, choices=SPLITS, help="the split whose predictions to label")
    serve.add_argument("--annotator", required=True, help="your name, written on every label")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765)")
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="a name people use to reach this machine (needed with --host 0.0.0.0; repeatable)")
    imp = actions.add_parser("import", help="append a layton-eval annotation file to data/labels/<split>.jsonl",
                             description=IMPORT)
    imp.add_argument("file", type=Path, help="the layton-eval annotation file (JSON Lines)")
    imp.add_argument("--split", choices=SPLITS, help="default: the file's name (llm.jsonl -> llm)")
    imp.add_argument("--annotator", default=DEFAULT_ANNOTATOR,
                     help=f"for lines without one (default {DEFAULT_ANNOTATOR!r})")
    stats = actions.add_parser("stats", help="labels per bin and provider, budget, Cohen's kappa",
                               description=STATS)
    stats.add_argument("--split", required=True, choices=SPLITS, help="the split whose labels to count")
    for q in (serve, imp, stats):
        add_params_option(q)
    p.set_defaults(func=run)


def label_file(split: str) -> Path:
    return paths.LABELS / f"{split}.jsonl"


def served_queue(params: Params, candidates: Sequence[Candidate]) -> tuple[str, str | None]:
    """The queue the app serves, and a line saying why when it is not ``annotations.queue``: the ``lookahead``
    queue serves models of at most :data:`LOOKAHEAD_MAX_ROWS` predictions (its update after a label grows with a
    model's predictions); past that the app serves ``width``, the same gain for v1's interval in closed form."""
    queue = params.annotations.queue
    most = max(Counter(c.model for c in candidates).values(), default=0)
    if queue != "lookahead" or most <= LOOKAHEAD_MAX_ROWS:
        return queue, None
    return "width", (f"the width queue: the lookahead queue serves models of at most {LOOKAHEAD_MAX_ROWS:,} "
                     f"predictions (this split has {most:,} for one; set annotations.queue to choose)")


def plan_for(params: Params, split: str, items: list[Item]) -> Plan:
    """The queue settings: ``annotations.budget`` (default: ``share`` of the predictions), the queue served."""
    budget = params.annotations.budget or max(1, round(params.annotations.share * len(items)))
    queue, _ = served_queue(params, [i.candidate for i in items])
    return Plan(params.seed, split, budget, params.annotations.double_share, queue,
                params.calibration.field, params.annotations.first_double, params.jury.cascade.first)


def empty_bins_fail(params: Params) -> bool:
    """Whether the interval the ranks follow fails on an empty jury-score bin (the published one
    with ``calibration.empty_bin: error``); the posterior interval never does."""
    return params.calibration.interval == "published" and params.calibration.empty_bin == "error"


def run(args: argparse.Namespace) -> int:
    params = load_params(args.params)
    if args.action == "serve":
        return serve(params, args.split, args.annotator, args.host, args.port, tuple(args.allow_host))
    if args.action == "import":
        return import_file(params, args.file, args.split, args.annotator)
    return print_stats(params, args.split)


#: The fewest seconds between two updates of the ``lookahead`` queue's gains.
LOOKAHEAD_EVERY = 1.0
#: The most predictions of one model the ``lookahead`` queue serves: a label's update recomputes the model's gains,
#: about 2 s of CPU at 300 predictions and 10 s at 1,000 (benchmarks/studies/lookahead_cost.py).
LOOKAHEAD_MAX_ROWS = 1_000


def queue_scores(params: Params, split: str, store: LabelStore, candidates: Sequence[Candidate]) -> Scores[Any] | None:
    """What the queue reads from the background (:class:`Scores`): the ``lookahead`` queue's gains (the verdicts'
    latent-class fit once, then updated with each label, :data:`LOOKAHEAD_EVERY` seconds apart at most), the
    ``uncertain`` queue's scores or the ``latent`` queue's per-cell fit (a latent-class fit on the split's verdicts
    and labels so far, refitted in the background), or None under another queue."""
    (queue, _), field = served_queue(params, candidates), params.calibration.field
    if queue not in ("uncertain", "latent", "lookahead"):
        return None
    jury, judgments = split_tables(split, [m.key for m in params.models_taking(split)])
    if queue == "lookahead":
        gains = lookahead_fit_for(candidates, jury, judgments, field, params.seed, split)
        return Scores(gains, store.events(), every=LOOKAHEAD_EVERY)
    make = latent_fit_for if queue == "latent" else fit_for
    return Scores(make(jury, judgments, field, params.seed, split), store.events())


def serve(params: Params, split: str, annotator: str, host: str, port: int, names: tuple[str, ...] = ()) -> int:
    import secrets

    from aiohttp import web

    from sideways.annotation_app.app import WILDCARDS, authority, make_app
    from sideways.annotation_app.service import LabelService

    if not annotator.strip() or len(annotator) > 64:
        raise SidewaysError("--annotator: a name of 1 to 64 characters")
    items = load_items(params, split)
    store = LabelStore(label_file(split))
    store.events()  # a damaged label file stops here, naming the line, before anything is served
    service = LabelService(items, plan_for(params, split, items), store, annotator.strip(),
                           empty_bins_fail=empty_bins_fail(params),
                           scores=queue_scores(params, split, store, [i.candidate for i in items]))
    wildcard = host in WILDCARDS
    secret = secrets.token_urlsafe(18) if wildcard else ""  # only a wildcard bind needs one
    app = make_app(service, host, port, names, secret)
    url = f"http://{authority(names[0] if wildcard else host, port)}/" + (f"?key={secret}" if secret else "")
    print(f"sideways annotate: {len(items)} predictions of {split}, labels in {store.path}; "
          f"open {url} (Ctrl+C stops)", flush=True)
    if (note := skipped(params, split)) is not None:
        print(f"sideways annotate: {note}", flush=True)
    if (why := served_queue(params, [i.candidate for i in items])[1]) is not None:
        print(f"sideways annotate: {why}", flush=True)
    web.run_app(app, host=host, port=port, print=None)
    return 0


def import_file(params: Params, file: Path, split: str | None, annotator: str) -> int:
    split = split or file.stem
    if split not in SPLITS:
        raise SidewaysError(f"{file}: cannot tell the split from the file name; pass --split ({', '.join(SPLITS)})")
    records, lines = read_jsonl_numbered(file)
    rows = convert_annotations(records, lines, params.models, str(file), annotator)
    _known_riddles(rows, lines, split, file)
    added = extend(LabelStore(label_file(split)), rows)
    print(f"{file}: {len(rows)} labels read, {added} appended to {label_file(split)} "
          f"({len(rows) - added} already there)")
    return 0


def _known_riddles(rows: list[dict[str, Any]], lines: list[int], split: str, file: Path) -> None:
    """Refuse labels of riddles the split does not have (the label log is append-only: they would stay)."""
    table = paths.split_table(split)
    if not table.exists():
        raise SidewaysError(f"{table}: not found; run `dvc repro split` first (import checks the riddle ids)")
    known = set(read_table(table, RIDDLES)["riddle_id"])
    unknown = [(r["riddle_id"], n) for r, n in zip(rows, lines, strict=True) if r["riddle_id"] not in known]
    if unknown:
        named = ", ".join(f"{r!r} (line {n})" for r, n in unknown[:5])
        raise SidewaysError(f"{file}: riddle(s) not in the {split} split: {named}; nothing appended")


def _kappa(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def print_stats(params: Params, split: str) -> int:
    events = LabelStore(label_file(split)).events()
    items = load_items(params, split)
    p = progress(plan_for(params, split, items), [i.candidate for i in items], events)
    print(f"{split}: {p['labelled']} of {p['budget']} predictions labelled (budget), {p['labels']} labels; "
          f"double labels {p['double_done']} of {p['double_wanted']}")
    if (note := skipped(params, split)) is not None:
        print(note)
    if p["labelled"] < p["budget"]:
        print("with few real labels the intervals are wider than with simulated ones (expected); "
              "they narrow as labels arrive")
    providers, cells = list(p["providers"]), {(c["bin"], c["provider"]): c["labelled"] for c in p["cells"]}
    print("\nlabels per jury-score bin and provider:")
    print("bin    " + "".join(f"{q:>12}" for q in providers))
    for b in p["bins"]:
        print(f"{b:<7}" + "".join(f"{cells.get((b, q), 0):>12}" for q in providers))
    gaps = holes([i.candidate for i in items], State.of(events))
    if gaps:
        print("\nempty bins, per model (no label of another provider there: " + (
            "the published calibration fails):" if empty_bins_fail(params)
            else "no published interval; the posterior ranks):"))
        by_model: dict[str, list[Bin]] = {}
        for m, b in gaps:
            by_model.setdefault(m, []).append(b)
        width = max(map(len, by_model)) + 2
        for m, bins in sorted(by_model.items()):
            print(f"  {m:<{width}}" + ", ".join(show_bin(b) for b in sorted(bins, key=lambda b: Fraction(*b))))
    print("\nagreement (Cohen's kappa) on double-labelled predictions:")
    print(f"{'annotators':<30}{'n':>5}{'answer':>10}{'justification':>15}")
    for a in agreement(events):
        print(f"{', '.join(a.annotators):<30}{a.n:>5}{_kappa(a.kappa['human_answer_correct']):>10}"
              f"{_kappa(a.kappa['human_justification_correct']):>15}")
    print_annotator_audit(params, split, events)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_alone(register))
