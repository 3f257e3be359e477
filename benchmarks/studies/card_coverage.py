"""Judge cards on real judges: a card from one set of riddles' labels, the intervals on another's.

Usage:
  python benchmarks/studies/card_coverage.py [--file F] [--split llm]
                                             [--card-riddles REGEX | --card-file F2 [--card-split S]]
                                             [--shares 0.125,0.25,0.5] [--repeats 100] [--seed 0] [--min-labels 50]
                                             [--json OUT]

The file is any layton-eval-ppi calibration file (default: the LLM split vendored in reproductions/layton-eval/data/).
Its labelled predictions on riddles whose id matches --card-riddles (default `W`: layton-eval's weekly puzzles) make
the card (lab.cards: each judge's rates per field against the labels); the population is the labelled
predictions on the other riddles, each model with at least --min-labels of them, measured as
benchmarks/studies/real_coverage.py measures (a share of each model's labels kept, the rest hidden, the interval for
the share right among the model's population rows; both-correct). With --card-file the card comes from every labelled
prediction of another calibration file instead (another split judged by the same judges: do their rates carry between
splits?), and the population is every labelled prediction of --file. Intervals, on the same repeats:

- `card`: the latent posterior's machinery (vote bins, the pool's offsets, the (kappa, sigma) grid weighed by the kept
  labels; lab.width_parts.binned_intervals) started from the card's rows: each row's P(both right | its
  verdicts) under the card's rates, its model's class shares by EM on the model's verdicts there, no label;
- `card-rows`: the same rows trusted one by one: the kept labels' sum plus the Poisson-binomial of the hidden rows;
- `latent`: the latent posterior as built, its fit reading every verdict of the file, the kept labels and every label
  of the card's riddles (so that it knows what the card knows; with --card-file, the kept labels only);
- `v1`: the v1 posterior on the population rows.

Prints coverage ± se and mean half-width (points) per interval and share; `--json OUT` writes them as
real_coverage.py does. Seeded: the same arguments give the same output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))

import judge_rates  # noqa: E402
import real_coverage  # noqa: E402

from lab.cards import Card, card_predictions, estimate_card  # noqa: E402
from lab.judge_rates import riddle_set  # noqa: E402
from lab.width_parts import binned_intervals  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.layton_eval.convert import PpiTables  # noqa: E402
from sideways.scoring import latent_prior  # noqa: E402
from sideways.scoring.hierarchy import poisson_binomial  # noqa: E402
from sideways.scoring.posterior import shortest_set  # noqa: E402

FIELD = "both_correct"
INTERVALS = ("card", "card-rows", "latent", "v1")


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--card-riddles", default="W", type=judge_rates.regex_argument,
                   help="riddle ids matching this regular expression make the card")
    p.add_argument("--card-file", help="make the card from every labelled prediction of this file instead")
    p.add_argument("--card-split", default="llm", help="the split of --card-file when it has a split column")
    p.add_argument("--shares", default="0.125,0.25,0.5", help="label shares kept, comma-separated")
    p.add_argument("--repeats", type=int, default=100, help="repeats per share (default: 100)")
    p.add_argument("--seed", type=int, default=0, help="the seed of the label draws and the samplers")
    p.add_argument("--min-labels", type=int, default=50, help="models with this many population labels are measured")
    p.add_argument("--file", default=str(real_coverage.DEFAULT_FILE), help="a layton-eval-ppi file")
    p.add_argument("--split", default="llm", help="the split to read when the file has a split column")
    p.add_argument("--json", metavar="OUT", help="also write the figures to OUT")
    return p.parse_args(argv)


def card_population(pop: real_coverage.Population, pattern: str, min_labels: int,
                    ) -> tuple[real_coverage.Population, pd.DataFrame]:
    """(the population on the riddles not matching ``pattern``, its measured models those with ``min_labels``
    labels there; the labels of the riddles matching it, the card's)."""
    in_card = riddle_set(pop.labels["riddle_id"], pattern).to_numpy()
    card_labels, labels = pop.labels[in_card], pop.labels[~in_card]
    sizes = labels.groupby("model").size()
    measured = sorted(m for m in pop.truth if sizes.get(m, 0) >= min_labels)
    if not measured or card_labels.empty:
        raise SystemExit(f"--card-riddles {pattern!r}: needs labelled rows on both sides, and models with "
                         f"{min_labels} or more labels outside it")
    truth = {m: float(labels.loc[labels["model"] == m, f"human_{FIELD}"].astype(bool).mean()) for m in measured}
    rows = pop.rows[~riddle_set(pop.rows["riddle_id"], pattern).to_numpy()]
    return real_coverage.Population(FIELD, pop.tables, pop.jury, labels, truth, rows), card_labels


def _providers(tables: PpiTables) -> dict[str, str]:
    """model -> its provider, to tell a judge's own models apart."""
    return dict(zip(tables.predictions["model"], tables.predictions["provider"], strict=True))


def card_of(tables: PpiTables, labels: pd.DataFrame) -> Card:
    """Each judge's card from its verdicts in ``tables`` on the rows ``labels`` labels."""
    return estimate_card(tables.judgments, labels, _providers(tables))


def card_rows(pop: real_coverage.Population, card: Card, pattern: str | None) -> pd.DataFrame:
    """(riddle_id, model, predicted) of every judged row (labelled or not: the class shares' EM reads them all) under
    ``card``, on the riddles not matching ``pattern`` (every riddle when it is None)."""
    judgments = pop.tables.judgments
    if pattern is not None:
        judgments = judgments[~riddle_set(judgments["riddle_id"], pattern).to_numpy()]
    return card_predictions(judgments, _providers(pop.tables), card)


def repeat_intervals(pop: real_coverage.Population, card_labels: pd.DataFrame, started: pd.DataFrame,
                     kept: pd.DataFrame, seed: int, stream: str) -> dict[str, dict[str, tuple[float, float]]]:
    """name -> model -> (lo, hi) of one repeat (``kept``: the population labels kept)."""
    models = sorted(pop.truth)
    label = f"human_{FIELD}"
    given = started.merge(kept[["riddle_id", "model", label]], on=["riddle_id", "model"], how="left")
    given["label_right"] = [np.nan if pd.isna(v) else float(bool(v)) for v in given[label]]
    out: dict[str, dict[str, tuple[float, float]]] = {}
    got = binned_intervals(pop.rows, kept, given.drop(columns=[label]), FIELD, models)
    out["card"] = {m: (lo / n, hi / n) for m, (lo, hi, n) in got.items()}
    start = dict(zip(zip(started["model"], started["riddle_id"], strict=True), started["predicted"], strict=True))
    kept_keys = set(zip(kept["model"], kept["riddle_id"], strict=True))
    out["card-rows"] = {}
    for model in models:
        mine = pop.labels[pop.labels["model"] == model]
        keys = list(zip(mine["model"], mine["riddle_id"], strict=True))
        known = np.array([k in kept_keys for k in keys])
        base = int(mine.loc[known, label].astype(bool).sum())
        lo, hi = shortest_set(poisson_binomial(np.array([start[k] for k, seen in zip(keys, known, strict=True)
                                                         if not seen])))
        out["card-rows"][model] = ((base + lo) / len(keys), (base + hi) / len(keys))
    fitted = latent_prior.predictions(pop.jury, pop.tables.judgments, pd.concat([kept, card_labels], ignore_index=True),
                                      FIELD, seed=seed, stream=stream)
    got = binned_intervals(pop.rows, kept, fitted, FIELD, models)
    out["latent"] = {m: (lo / n, hi / n) for m, (lo, hi, n) in got.items()}
    return out


def measure(pop: real_coverage.Population, started: pd.DataFrame, card_labels: pd.DataFrame, shares: list[float],
            repeats: int, seed: int) -> list[dict[str, Any]]:
    """Every interval's tally per share over ``repeats`` seeded label draws (``started``: the card's rows;
    ``card_labels``: the labels the latent posterior reads beside the kept ones)."""
    tallies = {(name, share): real_coverage.Tally() for share in shares for name in INTERVALS}
    for s, share in enumerate(shares):
        for r in range(repeats):
            kept = real_coverage.draw_labels(pop, share, seed, s, r)
            for name, by_model in repeat_intervals(pop, card_labels, started, kept, seed, f"{share}/{r}").items():
                for model, (lo, hi) in by_model.items():
                    tallies[(name, share)].add(model, lo <= pop.truth[model] <= hi, (hi - lo) / 2)
            tallies[("v1", share)].add_scores(real_coverage._calibrated(pop, kept, "v1", seed), "posterior_covered",
                                              "posterior_half_width")
    return [tallies[(name, share)].row(name, share) for share in shares for name in INTERVALS]


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.card_file:
        other = real_coverage.population(args.card_file, args.card_split, 1, FIELD)
        pop = real_coverage.population(args.file, args.split, args.min_labels, FIELD)
        started = card_rows(pop, card_of(other.tables, other.labels), None)
        card_labels = pop.labels.iloc[:0]
        print(f"{args.file}: card from {len(other.labels)} labelled predictions of {args.card_file}; population "
              f"{len(pop.labels)}, {len(pop.truth)} models; {args.repeats} repeats, seed {args.seed}")
    else:
        whole = real_coverage.population(args.file, args.split, 1, FIELD)
        pop, card_labels = card_population(whole, args.card_riddles, args.min_labels)
        started = card_rows(pop, card_of(pop.tables, card_labels), args.card_riddles)
        print(f"{args.file}: card from {len(card_labels)} labelled predictions on riddles {args.card_riddles!r}; "
              f"population {len(pop.labels)} on the others, {len(pop.truth)} models; {args.repeats} repeats, "
              f"seed {args.seed}")
    rows = measure(pop, started, card_labels, [float(s) for s in args.shares.split(",")], args.repeats, args.seed)
    print("| interval | share | coverage % | se | mean half-width (points) | intervals |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['interval']} | {r['share']:g} | {100 * r['coverage']:.1f} | {100 * r['coverage_se']:.1f} | "
              f"{r['half_width']:.2f} | {r['intervals']} |")
    if args.json:
        write_json(args.json, {"rows": [{k: r[k] for k in ("interval", "share", "coverage", "coverage_se",
                                                            "half_width", "intervals")} for r in rows]})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
