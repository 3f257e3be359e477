"""How often the 95% intervals cover the truth on real judges: a layton-eval calibration file.

Usage:
  python benchmarks/studies/real_coverage.py [--file F] [--split llm] [--shares 0.125,0.25,0.5] [--repeats 200]
                                             [--seed 0] [--min-labels 50] [--intervals published,v1,...] [--json OUT]
                                             [--field both_correct]
                                             [--cascade ORDER|all|auto[:RULE]|rotate [--rotate-seed 0] [--first 2]
                                             [--unasked marginal]
                                             [--unsure LO,HI] [--random SHARE]]
                                             [--order random|uncertain|width|latent|lookahead]

The file is any layton-eval-ppi calibration file (default: the LLM split vendored in
reproductions/layton-eval/data/; with or without the answer and justification text columns, any
number of judges), read and converted by the project's own importer (sideways.layton_eval).

For each model with at least `--min-labels` human labels, the population is its labelled
predictions, whose truth (`--field`: both answer and justification right by default, or the answer, or the
justification) is known. Each repeat keeps a seeded
random share of every model's labels (round(share x labels), at least 1) and hides the rest: the
hidden rows keep every jury verdict, like every unlabelled row of the file. Each interval is then
computed for the share right (in the field) among the model's labelled predictions:

- `published`: layton-eval's interval, computed exactly (`method: exact`; a repeat in which it meets an
  empty jury-score bin is a failed repeat for it and gives it no coverage);
- `v1`, `hierarchical`: the posterior intervals of the same name (docs/method.md §6);
- `latent-class`: the latent-class model's own count (sideways.scoring.latent_class), fitted on every row
  of the file (the verdicts of unlabelled rows teach it too), over the model's hidden rows;
- `latent`: the latent posterior (`calibration.posterior: latent`, sideways.scoring.latent_prior): the
  latent-class model's predictions, fitted without the labels of the model's provider, as each jury-score
  bin's start, worth what the labels say;
- `latent-strata`, `latent-sigma0` (measured only when named): the latent posterior binned by strata of the fit's
  predictions instead of the jury's votes, and with its (kappa, sigma) grid kept to sigma 0 (no model-level
  spread around the starts; lab.width_parts): measured variants, not built into the pipeline;
- `latent-known` (measured only when named): the latent posterior started from one latent-class fit on every label
  of the file, held fixed across repeats (the judges' rates as well known as the file allows), each repeat's kept
  labels weighing the bins as built: under `--cascade`, what the cascade's verdicts lose, with no share of it from
  fitting the judges on fewer verdicts.

`--order uncertain` keeps the labels in the annotation app's `uncertain` queue's order instead of at random: the
latent-class model fitted on the file's verdicts alone (sideways.annotation_app.uncertain) scores every labelled
prediction by p (1 - p), and each repeat keeps the round(share x labels) highest of all models together (ties by a
coin seeded per repeat): what an annotator following the queue would have labelled first, among the predictions
whose truth the file knows. `--order width` keeps the first labels the app's `width` queue serves one annotator whose
labels are the file's (its coin seeded per repeat), among the same predictions; `--order latent` those its `latent`
queue serves, on the latent-class fit of the file's verdicts alone (sideways.annotation_app.latent_gain; the labels
since counted in closed form, as the app does between two background fits); `--order lookahead` those its
`lookahead` queue (the app's default) serves, its gains updated after every label (sideways.annotation_app.lookahead),
one order per repeat whose prefixes the shares keep.

The first three see the population rows only (the model's histogram is its labelled predictions;
the pool is the kept labels of other providers). Prints coverage ± its binomial se (over models x
repeats; the models of one repeat share a pool, so the se is a little optimistic) and the mean
half-width in points, per interval and share, then the models each interval covers less than 94% of the time
(a miss on a real file is usually one model's); `--json OUT` writes
`{"default": NAME, "rows": [{"interval", "share", "coverage", "coverage_se", "half_width", "intervals"}, ...],
"models": [{"interval", "share", "model", "coverage"}, ...]}`.

`--cascade ORDER` measures what a cascaded jury (`jury.cascade`, sideways.scoring.cascade) would see: ORDER names
judges (comma-separated keys, or unique prefixes of them) asked first; each model's panel is ordered by it, its
first `--first` judges keep every verdict and the others keep theirs only on the rows those disagree on (the
verdicts the cascade would not have asked are dropped before anything is computed). `--cascade all` measures every
order that gives a different cascade; `--cascade auto` each panel's first pair chosen from the file's own verdicts
by lab.cascade_auto's `splits` rule (the fewest full-jury splits hidden; in-sample: cascade_auto.py measures it
cross-fitted), `auto:RULE` by its rule RULE (`agree`, `outlier`: label-free; `labels` reads the file's labels);
`--cascade rotate` draws each prediction's first pair from its panel's pairs by a coin hashed from
(`--rotate-seed`, the riddle, the model) (lab.cascade_rotate: each pair equally likely, the third judge asked where
the two disagree, the unasked verdicts marginalised by the row's own pair): a measured design, not the pipeline's.
`--full JSON` reads the full jury's figures from an earlier `--json` of the
same arguments instead of measuring them again. Each order prints the judge calls of the file's full jury, the
cascade's, and the share saved, and each half-width's ratio to the full jury's. `--unasked absent` reads the
dropped verdicts as "no verdict" (the code a failed judge gets) instead of marginalising them (`marginal`, as the
pipeline does): the naive alternative. `--unsure LO,HI` escalates also the settled rows that a verdicts-only
latent-class fit of the first judges' verdicts (one per model, no labels: what a judge job sees between its rounds;
lab.cascade_unsure.unsure) gives a probability of right strictly between LO and HI: a measured rule,
not the pipeline's. `--random SHARE` escalates also a seeded random SHARE of the settled rows
(lab.cascade_random: a coin hashed from the seed, the riddle and the model): a measured rule, not the
pipeline's. Each cascade also prints how many labelled rows its first judges settled against the label (the
unanimous verdict the labels contradict), beside the full jury's unanimous rows the labels contradict.
Seeded: the same arguments give the same output.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import math
import os
import sys
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from lab import cascade_auto, cascade_random, cascade_rotate, cascade_unsure  # noqa: E402
from lab.width_parts import binned_intervals, level_grid, stratified  # noqa: E402
from sideways.annotation.log import Event  # noqa: E402
from sideways.annotation.rater_labels import event_labels  # noqa: E402
from sideways.annotation_app import lookahead  # noqa: E402
from sideways.annotation_app.latent_gain import CellFit, cell_fit  # noqa: E402
from sideways.annotation_app.queue import Candidate, Plan, next_item  # noqa: E402
from sideways.annotation_app.uncertain import uncertainty  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.artifacts.schema import FIELDS  # noqa: E402
from sideways.config.params import CalibrationParams  # noqa: E402
from sideways.layton_eval.convert import PpiTables, import_ppi  # noqa: E402
from sideways.layton_eval.source import read_ppi  # noqa: E402
from sideways.scoring import cascade, latent_class, latent_prior  # noqa: E402
from sideways.scoring.calibration import jury_bins, score_models  # noqa: E402
from sideways.scoring.jury import jury_table  # noqa: E402
from sideways.scoring.posterior import shortest_set  # noqa: E402

DEFAULT_FILE = REPO / "reproductions" / "layton-eval" / "data" / "layton-eval-ppi-llm.figures.jsonl"
INTERVALS = ("published", "v1", "hierarchical", "latent-class", "latent")
#: ``--cascade auto[:RULE]``: each panel's first pair chosen by lab.cascade_auto's RULE (``splits`` unless named;
#: in-sample: on the file measured).
AUTO = ("auto",)
#: ``--cascade rotate``: each prediction's first pair drawn by a seeded coin (lab.cascade_rotate).
ROTATE = ("rotate",)
#: The app's queues ``--order`` can keep the labels of (random: a random share of each model's).
QUEUES = ("uncertain", "width", "latent", "lookahead")
#: Measured when named in --intervals only.
VARIANTS = ("latent-strata", "latent-sigma0", "latent-known")


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--file", default=str(DEFAULT_FILE), help="a layton-eval-ppi file (default: the vendored LLM split)")
    p.add_argument("--split", default="llm", help="the split to read when the file has a split column")
    p.add_argument("--shares", default="0.125,0.25,0.5", help="label shares kept, comma-separated")
    p.add_argument("--repeats", type=int, default=200, help="repeats per share (default: 200)")
    p.add_argument("--seed", type=int, default=0, help="the seed of the label draws and the samplers")
    p.add_argument("--min-labels", type=int, default=50, help="models with at least this many labels are measured")
    p.add_argument("--intervals", default=",".join(INTERVALS), help="which intervals, comma-separated")
    p.add_argument("--field", default="both_correct", choices=FIELDS, help="the field scored (default: both_correct)")
    p.add_argument("--order", default="random", choices=("random", *QUEUES),
                   help="which labels each repeat keeps: a random share (default), or a queue's first")
    p.add_argument("--json", metavar="OUT", help="also write the figures to OUT")
    p.add_argument("--cascade", metavar="ORDER", help="judges asked first (keys or prefixes, comma-separated), all, "
                   "auto[:RULE] (lab.cascade_auto), or rotate (lab.cascade_rotate)")
    p.add_argument("--rotate-seed", type=int, default=0, help="with --cascade rotate: the seed of the pair coin")
    p.add_argument("--first", type=int, default=2, help="the cascade's judges every row goes to (default: 2)")
    p.add_argument("--full", metavar="JSON", help="with --cascade: the full jury's figures from an earlier --json of "
                   "the same arguments without --cascade, instead of measuring them again")
    p.add_argument("--unsure", metavar="LO,HI", help="with --cascade: also escalate the settled rows a verdicts-only "
                   "latent fit of the first judges (one per model) gives a probability of right inside (LO, HI)")
    p.add_argument("--random", type=float, metavar="SHARE", help="with --cascade: also escalate a seeded random "
                   "SHARE of the settled rows (0 to 1)")
    p.add_argument("--unasked", default="marginal", choices=("marginal", "absent"),
                   help="the verdicts a cascade did not ask: marginalised (default) or read as no verdict")
    return p.parse_args(argv)


@dataclass
class Tally:
    """Coverage and half-widths of one interval at one share, overall and per model."""

    failed: int = 0
    half_widths: list[float] = field(default_factory=list)
    model_covered: Counter[str] = field(default_factory=Counter)
    model_intervals: Counter[str] = field(default_factory=Counter)

    @property
    def covered(self) -> int:
        """Intervals that covered the truth, every model's."""
        return sum(self.model_covered.values())

    @property
    def intervals(self) -> int:
        """Intervals tallied, every model's."""
        return sum(self.model_intervals.values())

    def add(self, model: str, covered: bool, half_width: float) -> None:
        """One interval of ``model``: whether it covered the truth, and its half-width (a fraction)."""
        self.half_widths.append(float(half_width))
        self.model_covered[model] += bool(covered)
        self.model_intervals[model] += 1

    def add_scores(self, scores: pd.DataFrame, covered: str, half_width: str) -> None:
        """Every model's interval of one repeat from a SCORES frame indexed by model."""
        for model, row in scores.iterrows():
            self.add(str(model), bool(row[covered]), float(row[half_width]))

    def row(self, name: str, share: float) -> dict[str, Any]:
        c = self.covered / self.intervals if self.intervals else math.nan
        se = math.sqrt(c * (1 - c) / self.intervals) if self.intervals else math.nan
        hw = 100 * float(np.mean(self.half_widths)) if self.half_widths else math.nan
        models = {m: self.model_covered[m] / n for m, n in sorted(self.model_intervals.items())}
        return {"interval": name, "share": share, "coverage": c, "coverage_se": se, "half_width": hw,
                "intervals": self.intervals, "failed_repeats": self.failed, "models": models}


@dataclass(frozen=True)
class Population:
    """The file's tables, its jury, the labelled rows, the field scored and the measured models with their true
    scores in it; ``rows``: the jury's rows of the labelled predictions (the population every interval counts over)."""

    field: str
    tables: PpiTables
    jury: pd.DataFrame
    labels: pd.DataFrame
    truth: dict[str, float]
    rows: pd.DataFrame
    first: int = 0  # a cascade's first judges (0: the full jury); the latent fit marginalises what it did not ask
    # latent-known's fits, one per (seed, field): filled by known_predictions
    known: dict[tuple[int, str], pd.DataFrame] = dataclasses.field(default_factory=dict, compare=False)
    # a rotating cascade's judges per (riddle_id, model) row, in the order asked (None: per model, the panels')
    heads: cascade_rotate.RowPanels | None = None


def population(path: str, split: str, min_labels: int, field: str = "both_correct") -> Population:
    """Import the file and pick the models with at least ``min_labels`` labels of ``field``."""
    tables = import_ppi(read_ppi(path, split=split), source=path)
    jury = jury_table(tables.judgments, tables.predictions, tables.panels)
    labels = tables.annotations.merge(jury.loc[jury[f"{field}_judges"] > 0, ["riddle_id", "model"]],
                                      on=["riddle_id", "model"])
    labels = labels[labels[f"human_{field}"].notna()]
    sizes = labels.groupby("model").size()
    measured = sorted(sizes[sizes >= min_labels].index)
    if not measured:
        raise SystemExit(f"{path}: no model has {min_labels} or more labelled predictions with a jury score")
    truth = {m: float(labels.loc[labels["model"] == m, f"human_{field}"].astype(bool).mean()) for m in measured}
    rows = jury.merge(labels[["riddle_id", "model"]], on=["riddle_id", "model"])
    return Population(field, tables, jury, labels, truth, rows)


def draw_labels(pop: Population, share: float, seed: int, s: int, r: int) -> pd.DataFrame:
    """The labels kept in repeat ``r`` of the ``s``-th share: :func:`keep_labels` seeded by (seed, s, r)."""
    return keep_labels(pop.labels, share, np.random.default_rng(np.random.SeedSequence([seed, s, r])))


def queue_labels(labels: pd.DataFrame, scores: dict[tuple[str, str], float], share: float,
                 rng: np.random.Generator) -> pd.DataFrame:
    """round(share x labels) labels of all models together, the highest ``scores`` first, ties by ``rng``'s coin."""
    k = max(1, round(share * len(labels)))
    score = np.array([scores.get((r, m), 0.0) for r, m in zip(labels["riddle_id"], labels["model"], strict=True)])
    first = np.lexsort((rng.random(len(labels)), -score))[:k]
    return labels.iloc[np.sort(first)].reset_index(drop=True)


def queue_pool(pop: Population) -> list[Candidate]:
    """The population rows as the app's queue candidates (the file's labelled predictions)."""
    rows = pop.rows
    bins = jury_bins(rows[f"{pop.field}_votes"].to_numpy(), rows[f"{pop.field}_judges"].to_numpy())
    return [Candidate(r, m, p, b) for r, m, p, b in zip(rows["riddle_id"], rows["model"], rows["provider"], bins,
                                                        strict=True)]


def served_keys(pop: Population, k: int, seed: int, policy: str, fit: CellFit | None = None,
                gains: lookahead.Lookahead | None = None) -> list[tuple[str, str]]:
    """The first ``k`` predictions the app's ``policy`` queue serves one annotator whose labels are the file's (its
    coin seeded by ``seed``): ``fit``, the ``latent`` queue's per-cell fit; ``gains``, the ``lookahead`` queue's
    (a fresh :class:`~sideways.annotation_app.lookahead.Lookahead`), updated after every label as the app does."""
    pool = queue_pool(pop)
    truth = pop.labels.set_index(["riddle_id", "model"])
    plan = Plan(seed, "real", len(pool), 0.0, policy=policy, field=pop.field)
    events: list[Event] = []
    current: CellFit | lookahead.Gains | None = fit if gains is None else gains(pd.DataFrame())
    while len(events) < k:
        c = next_item(plan, pool, events, "sim", fit=current)
        if c is None:
            break
        row = truth.loc[c.key]
        events.append(Event("label", c.riddle_id, c.model, "sim", len(events) + 1,
                            {f"human_{f}": bool(row[f"human_{f}"]) for f in FIELDS if pd.notna(row[f"human_{f}"])}))
        if gains is not None:
            current = gains(event_labels(events))
    return [e.item for e in events]


def kept_labels(pop: Population, keys: list[tuple[str, str]]) -> pd.DataFrame:
    """The file's labels of the predictions ``keys``."""
    chosen = pd.DataFrame(keys, columns=["riddle_id", "model"])
    return pop.labels.merge(chosen, on=["riddle_id", "model"]).reset_index(drop=True)


def width_labels(pop: Population, share: float, seed: int, fit: CellFit | None = None) -> pd.DataFrame:
    """round(share x labels) labels in the order the app's ``width`` queue serves them (seeded by ``seed``); with
    ``fit`` (the latent-class fit's per-cell rates), the order of its ``latent`` queue."""
    k = max(1, round(share * len(pop.labels)))
    return kept_labels(pop, served_keys(pop, k, seed, "width" if fit is None else "latent", fit))


def kept_count(pop: Population, share: float, order: str) -> int:
    """How many labels a repeat keeps at ``share`` in ``order``."""
    if order in QUEUES:
        return max(1, round(share * len(pop.labels)))
    return sum(max(1, round(share * n)) for n in pop.labels.groupby("model").size())


def keep_labels(labels: pd.DataFrame, share: float, rng: np.random.Generator) -> pd.DataFrame:
    """round(share x labels) of each model's labels (at least one), drawn without replacement."""
    parts = []
    for _, own in labels.groupby("model", sort=True):
        k = max(1, round(share * len(own)))
        parts.append(own.iloc[np.sort(rng.choice(len(own), size=k, replace=False))])
    return pd.concat(parts, ignore_index=True)


def _calibrated(pop: Population, kept: pd.DataFrame, posterior: str, seed: int) -> pd.DataFrame:
    """SCORES rows of the measured models on the population rows (labelled predictions) only."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the published interval's empty bins: counted from its nulls
        return score_models(pop.rows, kept, field=pop.field, method="exact", bootstrap=0, seed=seed, empty_bin="error",
                            interval="posterior", posterior=posterior, truth=pop.truth,
                            models=sorted(pop.truth)).set_index("model")


def latent_intervals(pop: Population, kept: pd.DataFrame, seed: int, stream: str, names: list[str],
                     ) -> dict[str, dict[str, tuple[float, float]]]:
    """interval name -> model -> (lo, hi): the latent-class model's own 95% set for the share right among the
    model's labelled rows (``latent-class``), and the binned one (``latent``, sideways.scoring.latent_prior)."""
    out = {}
    if "latent-class" in names:
        rows = latent_class.table_evidence(pop.jury, pop.tables.judgments, kept, pop.first)
        draws = latent_class.sample(rows.evidence, pop.field, seed=seed, stream=stream)
        out["latent-class"] = _class_counts(pop, rows, draws, rows.keys.assign(row=np.arange(len(rows.keys))))
    binned = [n for n in ("latent", *VARIANTS) if n in names]
    if binned:
        out |= _binned(pop, kept, seed, stream, binned)
    return out


def _binned(pop: Population, kept: pd.DataFrame, seed: int, stream: str, names: list[str],
            ) -> dict[str, dict[str, tuple[float, float]]]:
    """name -> model -> (lo, hi): the latent interval (sideways.scoring.latent_prior) of every measured model over
    its population rows, and its variants (lab.width_parts) named: binned by strata of the fit's
    predictions (``latent-strata``), the (kappa, sigma) grid kept to sigma 0 (``latent-sigma0``); one fit. And
    ``latent-known``: the latent interval started from :func:`known_predictions` (the judges' rates fitted on every
    label of the file and held fixed across repeats), each repeat's kept labels weighing the bins as built."""
    fitted = [n for n in names if n != "latent-known"]
    pred = (latent_prior.predictions(pop.jury, pop.tables.judgments, kept, pop.field, seed=seed, stream=stream,
                                     first=pop.first) if fitted else None)
    out = {}
    for name in names:
        starts = known_predictions(pop, seed) if name == "latent-known" else pred
        assert starts is not None
        jury = stratified(pop.rows, starts, pop.field) if name == "latent-strata" else pop.rows
        with level_grid(name == "latent-sigma0"):
            got = binned_intervals(jury, kept, starts, pop.field, sorted(pop.truth))
        out[name] = {model: (lo / n, hi / n) for model, (lo, hi, n) in got.items()}
    return out


def known_predictions(pop: Population, seed: int) -> pd.DataFrame:
    """The latent-class predictions (:func:`sideways.scoring.latent_prior.predictions`: each row's P(right) without
    its provider's labels, and with its own label) of one fit on EVERY label of the file, computed once per
    population and seed and held fixed across repeats: the judges' rates as well known as the file allows, so that
    a cascade's width under them is what its verdicts lose, not what fitting the judges on fewer verdicts costs."""
    key = (seed, pop.field)
    if key not in pop.known:
        pop.known[key] = latent_prior.predictions(pop.jury, pop.tables.judgments, pop.labels, pop.field, seed=seed,
                                                  stream=f"known/{seed}", first=pop.first)
    return pop.known[key]


def _class_counts(pop: Population, rows: latent_class.Rows, draws: latent_class.Draws, keys: pd.DataFrame,
                  ) -> dict[str, tuple[float, float]]:
    """The latent-class model's own count over each measured model's population rows."""
    out = {}
    for model in sorted(pop.truth):
        population_rows = keys.merge(pop.labels.loc[pop.labels["model"] == model, ["riddle_id", "model"]],
                                     on=["riddle_id", "model"])["row"].to_numpy()
        known = rows.evidence.label[population_rows] >= 0
        # the truth here is the label: a kept label counts as its label, not as the model's doubt of it
        base = int(np.isin(rows.evidence.label[population_rows[known]], latent_class.RIGHT[pop.field]).sum())
        lo, hi = shortest_set(latent_class.count_pmf(draws.right[:, population_rows[~known]]))
        n = len(population_rows)
        out[model] = ((base + lo) / n, (base + hi) / n)
    return out


def judge_orders(pop: Population, spec: str, first: int) -> list[tuple[str, ...]]:
    """The judge orders ``--cascade`` names: orders separated by ";" (each keys or unique prefixes, comma-separated), or
    ``all``: every order
    of the file's judges, less those giving every model the same first judges as an earlier one."""
    judges = sorted({j for p in pop.tables.panels.values() for j in p})
    if spec == "auto" or spec.startswith("auto:"):
        rule = spec.partition(":")[2] or "splits"
        if rule not in cascade_auto.RULES:
            raise SystemExit(f"--cascade auto:RULE: RULE is one of {', '.join(cascade_auto.RULES)}, got {rule!r}")
        return [AUTO if rule == "splits" else (*AUTO, rule)]
    if spec == "rotate":
        return [ROTATE]
    if spec != "all":
        return [_order(judges, one) for one in spec.split(";")]
    seen: set[tuple[tuple[str, frozenset[str]], ...]] = set()
    out: list[tuple[str, ...]] = []
    for perm in itertools.permutations(judges):
        firsts = tuple(sorted((m, frozenset(p[:first])) for m, p in cascaded_panels(pop, perm).items()))
        if firsts not in seen:
            seen.add(firsts)
            out.append(perm)
    return out


def _order(judges: list[str], spec: str) -> tuple[str, ...]:
    """The judges ``spec`` names (keys or unique prefixes, comma-separated)."""
    order: list[str] = []
    for part in (p.strip() for p in spec.split(",")):
        hits = [j for j in judges if j == part] or [j for j in judges if j.startswith(part)]
        if len(hits) != 1:
            raise SystemExit(f"--cascade: {part!r} names {len(hits)} of the file's judges ({', '.join(judges)})")
        order.append(hits[0])
    return tuple(order)


def cascaded_panels(pop: Population, order: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Each model's panel in the order ``order`` asks it (judges it does not name after, in file order); ``AUTO``:
    each panel's first pair chosen from the file's own verdicts (lab.cascade_auto's ``splits`` rule, no label;
    ``("auto", RULE)``: its rule RULE, the file's labels read by ``labels`` only)."""
    if order[: len(AUTO)] == AUTO:
        rule = order[1] if len(order) > 1 else "splits"
        return cascade_auto.chosen_panels(pop.tables.judgments, pop.tables.panels,
                                          pop.labels if rule == "labels" else pop.labels.iloc[:0], rule, pop.field, 2)
    rank = {j: i for i, j in enumerate(order)}
    return {m: tuple(sorted(p, key=lambda j: rank.get(j, len(rank)))) for m, p in pop.tables.panels.items()}


def cascaded(pop: Population, order: tuple[str, ...], first: int, unasked: str = "marginal",
             band: tuple[float, float] | None = None, seed: int = 0, random: float | None = None,
             rotate_seed: int = 0) -> Population:
    """The population as a cascade asking ``order`` first would see it: the verdicts it would not have asked
    dropped (:func:`sideways.scoring.cascade.drop_unasked`), the jury recounted, the latent fit told the cascade
    (``unasked`` "marginal") or not ("absent": the dropped verdicts read as no verdict); ``band``: also escalate the
    rows the verdicts-only fit is unsure of (:func:`lab.cascade_unsure.unsure`, seeded by ``seed``);
    ``random``: also escalate that share of the settled rows (:func:`lab.cascade_random.random_share`); ``ROTATE``:
    each row's first pair drawn by :func:`lab.cascade_rotate.row_panels` seeded by ``rotate_seed``."""
    rules = ([] if band is None else [cascade_unsure.unsure_rule(band, seed)]) + (
        [] if random is None else [cascade_random.random_rule(random, seed)])
    if order == ROTATE:
        if rules:
            raise SystemExit("--cascade rotate: no --unsure or --random (measured with the fixed orders only)")
        keys = pop.tables.judgments[["riddle_id", "model"]].drop_duplicates()
        heads = cascade_rotate.row_panels(keys, pop.tables.panels, rotate_seed, first)
        return cascaded_panels_seen(pop, dict(pop.tables.panels), first, unasked, heads=heads)
    return cascaded_panels_seen(pop, cascaded_panels(pop, order), first, unasked, _either(rules) if rules else None)


def cascaded_panels_seen(pop: Population, panels: dict[str, tuple[str, ...]], first: int, unasked: str = "marginal",
                         escalate: cascade.Escalate | None = None,
                         heads: cascade_rotate.RowPanels | None = None) -> Population:
    """The population as a cascade asking each model's ``panels`` in order would see it (its ``first`` judges grade
    every row; ``escalate``: a rule sending more rows up): the unasked verdicts dropped, the jury recounted.
    ``heads``: each (riddle_id, model) row's own order instead (a rotating first pair, lab.cascade_rotate; the
    population then keeps it, and is measured inside :func:`seen_by`)."""
    if heads is None:
        judgments = cascade.drop_unasked(pop.tables.judgments, panels, first, escalate)
    else:
        judgments = cascade_rotate.drop_unasked(pop.tables.judgments, heads, first)
    tables = dataclasses.replace(pop.tables, judgments=judgments, panels=panels)
    jury = jury_table(judgments, tables.predictions, panels)
    rows = jury.merge(pop.labels[["riddle_id", "model"]], on=["riddle_id", "model"])
    if len(rows) != len(pop.rows):
        raise SystemExit("--cascade: a labelled prediction lost every verdict")  # the first judges grade every row
    return Population(pop.field, tables, jury, pop.labels, pop.truth, rows, first if unasked == "marginal" else 0,
                      heads=heads)


def seen_by(pop: Population) -> contextlib.AbstractContextManager[None]:
    """The context measuring ``pop`` in: a rotating cascade's per-row first pairs told to the latent fit
    (:func:`lab.cascade_rotate.marginalised`), nothing otherwise."""
    return contextlib.nullcontext() if pop.heads is None else cascade_rotate.marginalised(pop.heads)


def _either(rules: list[cascade.Escalate]) -> cascade.Escalate:
    """One rule escalating a row when any of ``rules`` does."""
    def rule(judgments: pd.DataFrame, keys: pd.DataFrame, first: Any) -> cascade.BoolArray:
        out = np.zeros(len(keys), dtype=bool)
        for one in rules:
            out |= one(judgments, keys, first)
        return out
    return rule


def contradicted(pop: Population, judges: int) -> int:
    """Labelled rows of ``pop`` whose ``judges`` verdicts all agree on the field, and the label says otherwise."""
    rows = pop.rows.merge(pop.labels[["riddle_id", "model", f"human_{pop.field}"]], on=["riddle_id", "model"])
    votes, n = rows[f"{pop.field}_votes"].to_numpy(), rows[f"{pop.field}_judges"].to_numpy()
    label = rows[f"human_{pop.field}"].astype(bool).to_numpy()
    unanimous = (n == judges) & ((votes == 0) | (votes == n))
    return int((unanimous & ((votes == n) != label)).sum())


def judge_agreement(pop: Population) -> dict[str, float]:
    """judge -> the share of its verdicts on labelled rows (status ok, both fields given) equal to the label on the
    field scored: what a rule choosing the first judges by accuracy would rank them by."""
    ok = pop.tables.judgments[pop.tables.judgments["status"] == "ok"].dropna(
        subset=["is_answer_correct", "is_justification_correct"])
    rows = ok.merge(pop.labels[["riddle_id", "model", f"human_{pop.field}"]], on=["riddle_id", "model"])
    said = {"answer_correct": rows["is_answer_correct"].astype(bool),
            "justification_correct": rows["is_justification_correct"].astype(bool)}.get(
        pop.field, rows["is_answer_correct"].astype(bool) & rows["is_justification_correct"].astype(bool))
    rows = rows.assign(agree=(said == rows[f"human_{pop.field}"].astype(bool)).to_numpy())
    return {str(j): float(g["agree"].mean()) for j, g in rows.groupby("judge", sort=True)}


def lookahead_orders(pop: Population, shares: list[float], repeats: int, seed: int,
                     split: str) -> list[list[tuple[str, str]]]:
    """Per repeat, the predictions the app's ``lookahead`` queue serves first (its coin seeded by seed + repeat), as
    many as the largest share keeps: each share keeps a prefix of one order (the queue is greedy: the first k labels
    do not depend on how many come after)."""
    starts = lookahead.verdict_starts(pop.jury, pop.tables.judgments, pop.field, seed, split)
    k = max(kept_count(pop, share, "lookahead") for share in shares)
    return [served_keys(pop, k, seed + r, "lookahead", gains=lookahead.Lookahead(queue_pool(pop), starts, pop.field))
            for r in range(repeats)]


def measure(pop: Population, shares: list[float], repeats: int, seed: int, names: list[str],
            order: str = "random", split: str = "llm") -> list[dict[str, Any]]:
    """Every interval's tally per share over ``repeats`` seeded label draws (``order``: random, or the uncertain
    queue's first labels)."""
    tallies = {(name, share): Tally() for share in shares for name in names}
    scores = (uncertainty(pop.jury, pop.tables.judgments, pd.DataFrame(), pop.field, seed=seed, split=split)
              if order == "uncertain" else {})
    fit = (cell_fit(pop.jury, pop.tables.judgments, pd.DataFrame(), pop.field, seed=seed, split=split)
           if order == "latent" else None)
    ahead = lookahead_orders(pop, shares, repeats, seed, split) if order == "lookahead" else []
    for s, share in enumerate(shares):
        for r in range(repeats):
            if order == "lookahead":
                kept = kept_labels(pop, ahead[r][:kept_count(pop, share, order)])
            elif order in ("width", "latent"):
                kept = width_labels(pop, share, seed + r, fit)
            elif order == "uncertain":
                coin = np.random.default_rng(np.random.SeedSequence([seed, s, r]))
                kept = queue_labels(pop.labels, scores, share, coin)
            else:
                kept = draw_labels(pop, share, seed, s, r)
            _add_posteriors(pop, kept, seed, share, names, tallies)
            if {"latent", "latent-class", *VARIANTS} & set(names):
                for name, by_model in latent_intervals(pop, kept, seed, f"{share}/{r}", names).items():
                    for model, (lo, hi) in by_model.items():
                        tallies[(name, share)].add(model, lo <= pop.truth[model] <= hi, (hi - lo) / 2)
    return [tallies[(name, share)].row(name, share) for share in shares for name in names]


def _add_posteriors(pop: Population, kept: pd.DataFrame, seed: int, share: float, names: list[str],
                    tallies: dict[tuple[str, float], Tally]) -> None:
    """The published and v1 intervals (one scoring), and the hierarchical one, of one repeat."""
    if "published" in names or "v1" in names:
        v1 = _calibrated(pop, kept, "v1", seed)
        if "v1" in names:
            tallies[("v1", share)].add_scores(v1, "posterior_covered", "posterior_half_width")
        if "published" in names:
            t = tallies[("published", share)]
            if v1["score"].isna().any():
                t.failed += 1
            else:
                t.add_scores(v1, "covered", "half_width")
    if "hierarchical" in names:
        h = _calibrated(pop, kept, "hierarchical", seed)
        tallies[("hierarchical", share)].add_scores(h, "posterior_covered", "posterior_half_width")


def _print_rows(rows: list[dict[str, Any]]) -> None:
    """The figures as a Markdown table (with the half-width's ratio to the full jury's, under a cascade)."""
    ratio = any("width_ratio" in r for r in rows)
    print("| interval | share | labels | coverage % | se | mean half-width (points) |"
          + (" x full jury |" if ratio else "") + " intervals | failed repeats |")
    print("|---|---|---|---|---|---|" + ("---|" if ratio else "") + "---|---|")
    for r in rows:
        print(f"| {r['interval']} | {r['share']:g} | {r.get('labels', '')} | {100 * r['coverage']:.1f} | "
              f"{100 * r['coverage_se']:.1f} | "
              f"{r['half_width']:.2f} |" + (f" {r['width_ratio']:.2f} |" if ratio else "")
              + f" {r['intervals']} | {r['failed_repeats']} |")


def _measure_cascade(pop: Population, full: list[dict[str, Any]], order: tuple[str, ...], args: argparse.Namespace,
                     shares: list[float], names: list[str]) -> dict[str, Any]:
    """One order's cascade: its calls against the full jury's, and every interval's figures beside the full jury's."""
    band = _band(args.unsure)
    seen = cascaded(pop, order, args.first, args.unasked, band, args.seed, args.random, args.rotate_seed)
    calls, full_calls = len(seen.tables.judgments), len(pop.tables.judgments)
    saved = 1 - calls / full_calls
    up = seen.jury["both_correct_judges"].to_numpy() > args.first
    unsure = ("" if band is None else f", unsure {band[0]:g}-{band[1]:g} escalated") + (
        "" if args.random is None else f", a random {args.random:g} of the settled escalated")
    rotated = "" if seen.heads is None else f" seed {args.rotate_seed}"
    print(f"\ncascade {', '.join(order)}{rotated} (first {args.first}, unasked verdicts {args.unasked}{unsure}): "
          f"{calls} of the full jury's {full_calls} judge calls ({100 * saved:.1f}% saved; "
          f"{100 * up.mean():.1f}% of predictions escalated)")
    full_judges = int(pop.rows[f"{pop.field}_judges"].max())
    print(f"labelled rows settled against their label: {contradicted(seen, args.first)} (the full jury's unanimous "
          f"rows against their label: {contradicted(pop, full_judges)})")
    width = {(r["interval"], r["share"]): r["half_width"] for r in full}
    with seen_by(seen):
        measured = measure(seen, shares, args.repeats, args.seed, names, args.order, args.split)
    rows = [r | {"width_ratio": r["half_width"] / width[(r["interval"], r["share"])],
                 "labels": kept_count(seen, r["share"], args.order)} for r in measured]
    _print_rows(rows)
    return {"order": list(order), "first": args.first, "unasked": args.unasked, "unsure": args.unsure,
            "random": args.random, "rotate_seed": None if seen.heads is None else args.rotate_seed,
            "contradicted": contradicted(seen, args.first), "calls": calls,
            "full_calls": full_calls, "saved": saved, "rows": rows}


def _band(spec: str | None) -> tuple[float, float] | None:
    """``--unsure LO,HI`` as (lo, hi), 0 <= lo < hi <= 1 (None: not given)."""
    if spec is None:
        return None
    try:
        lo, hi = (float(x) for x in spec.split(","))
    except ValueError:
        raise SystemExit(f"--unsure: two numbers LO,HI, got {spec!r}") from None
    if not 0.0 <= lo < hi <= 1.0:
        raise SystemExit(f"--unsure: 0 <= LO < HI <= 1, got {spec!r}")
    return lo, hi


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    shares = [float(s) for s in args.shares.split(",")]
    names = [n.strip() for n in args.intervals.split(",")]
    _band(args.unsure)  # a bad band is refused before anything is measured
    if (args.cascade or "").startswith("auto") and args.first != 2:
        raise SystemExit(f"--cascade auto chooses a first pair: --first 2, got {args.first}")
    if args.random is not None and not 0.0 <= args.random <= 1.0:
        raise SystemExit(f"--random: a share from 0 to 1, got {args.random:g}")
    unknown = sorted(set(names) - set(INTERVALS) - set(VARIANTS))
    if unknown:
        raise SystemExit(f"--intervals: unknown {', '.join(unknown)} (known: {', '.join(INTERVALS + VARIANTS)})")
    pop = population(args.file, args.split, args.min_labels, args.field)
    print(f"{args.file}, {args.field}: {len(pop.truth)} models with >= {args.min_labels} labels "
          f"({', '.join(f'{m} {len(pop.labels[pop.labels.model == m])}' for m in sorted(pop.truth))}); "
          f"{args.repeats} repeats, seed {args.seed}, labels kept in {args.order} order")
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    if args.cascade and args.full:
        rows = [r | {"failed_repeats": 0, "models": {}} for r in json.loads(Path(args.full).read_text())["rows"]
                if not r.get("cascade")]
    else:
        rows = measure(pop, shares, args.repeats, args.seed, names, args.order, args.split)
    for r in rows:
        r["labels"] = kept_count(pop, r["share"], args.order)
    _print_rows(rows)
    cascades = []
    if args.cascade:
        print("\neach judge's verdicts equal to the label: " + ", ".join(
            f"{j} {100 * a:.2f}%" for j, a in sorted(judge_agreement(pop).items(), key=lambda x: -x[1])))
        for order in judge_orders(pop, args.cascade, args.first):
            cascades.append(_measure_cascade(pop, rows, order, args, shares, names))
        rows = rows + [r | {"cascade": c["order"]} for c in cascades for r in c["rows"]]
    seconds = time.perf_counter() - t0
    print("\nmodels covered less than 94% of the time:")
    for r in rows:
        low = {m: c for m, c in r["models"].items() if c < 0.94}
        if low:
            print(f"  {r['interval']} at {r['share']:g}: " + ", ".join(f"{m} {100 * c:.1f}%" for m, c in low.items()))
    print(f"\n{seconds:.1f} s wall; load average {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end "
          f"({os.cpu_count()} cores)")
    if args.json:
        keep = ("interval", "share", "labels", "coverage", "coverage_se", "half_width", "intervals", "cascade",
                "width_ratio")
        write_json(args.json, {
            "default": CalibrationParams().posterior,
            "cascades": [{k: c[k] for k in ("order", "first", "unasked", "unsure", "random", "rotate_seed",
                                            "contradicted", "calls", "full_calls", "saved")}
                         for c in cascades],
            "rows": [{k: r[k] for k in keep if k in r} for r in rows],
            "models": [{"interval": r["interval"], "share": r["share"], "model": m, "coverage": c}
                       for r in rows for m, c in r["models"].items()]})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
