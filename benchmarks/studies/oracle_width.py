"""How narrow can an honest interval be? The oracle's interval beside v1's and latent's, same runs (docs/method.md §6).

Usage:
  python benchmarks/studies/oracle_width.py [--seeds N] [--shares 0.1667,0.5] [--judge-quality Q] [--models M]
                                            [--label-noise E] [--slip S] [--model-spread S] [--hidden-difficulty SD]
                                            [--parts] [--unknown-models] [--json OUT]

For each split and label share, over simulated runs (demo riddles, params.yaml's models and judges as
changed): the oracle's 95% set of each model's count of right answers (lab.oracle: every row's
probability of being right given the simulator's own parameters), and the v1 and latent posteriors' intervals.
Prints coverage (± se) and mean half-width (points) of each, and each one's mean half-width over v1's. No
interval built from the same rows can be narrower than the oracle's on average: a width target below its ratio
cannot be met honestly. Judges who err together (correlation) are outside what the oracle computes.

--parts: also where the latent posterior's width goes (lab.width_parts): its interval rebuilt from
the oracle's probabilities as starts, then with sigma 0, then binned by strata of the starts; and binned by
strata of its own fit's predictions.

--unknown-models: also the oracle that knows the judges but not the models (lab.oracle.
unknown_model_counts: each model's skill and its judges' leniency toward it learned from its own rows, the spread of
that leniency itself weighed between 0 and 0.7 by every model's rows), and the latent-class model's own count (its
Gibbs draws' Poisson-binomials, one fit on every label, a labelled row counted as its label: what the latent
posterior would be if it trusted its fit's every row), and the latent posterior started from the first one's rows
(judge_starts: each row's start its P(right) without its model's labels, binned, weighed and counted as built: the
most that judges' rates known before a split is scored could give the built design).

--card-share S: the two oracles without the models read the judges' rates from a card (lab.cards) that
a previous round left (another simulated run of the same split, S of its predictions labelled), not from the
simulator: what a card carried between rounds gives, its noise and the annotators' errors included.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab

from lab.cards import previous_round_card  # noqa: E402
from lab.coverage import Setting, setting_params, simulate_run, split_riddles  # noqa: E402
from lab.oracle import mixed_over_spreads, mixed_rows, oracle_probabilities, unknown_model_counts  # noqa: E402
from lab.width_parts import binned_intervals, given_starts, parts  # noqa: E402
from sideways.annotation.labels import seeded_sample, simulate_labels  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.config.params import raw_params  # noqa: E402
from sideways.scoring import latent_class, latent_prior  # noqa: E402
from sideways.scoring.calibration import score_models  # noqa: E402
from sideways.scoring.hierarchy import poisson_binomial  # noqa: E402
from sideways.scoring.posterior import summarise  # noqa: E402
from sideways.simulation.truth import true_scores  # noqa: E402
from sideways.sources.demo import load_demo  # noqa: E402

POSTERIORS = ("v1", "latent")
PARTS = ("starts", "starts_level", "starts_level_strata", "latent_strata")
UNKNOWN = ("unknown_models", "latent_class", "judge_starts")
#: The spreads of the judges' leniency toward a model the oracle without the models weighs (equal prior): none, or
#: the grid's "judges' rates depend on the model" setting.
SPREADS = (0.0, 0.7)
FIELD = "both_correct"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=20, help="simulated runs per split and share (default: 20)")
    p.add_argument("--shares", default="0.1667,0.5", help="label shares, comma-separated (default: 0.1667,0.5)")
    for name in ("judge-quality", "label-noise", "slip", "model-spread", "hidden-difficulty"):
        p.add_argument(f"--{name}", type=float, help="the simulator's setting (default: params.yaml's)")
    p.add_argument("--models", type=int, help="that many simulated models (default: params.yaml's)")
    p.add_argument("--parts", action="store_true", help="also the latent posterior rebuilt part by part")
    p.add_argument("--unknown-models", action="store_true",
                   help="also the oracle that does not know the models, and the latent-class model's own count")
    p.add_argument("--card-share", type=float, metavar="S",
                   help="with --unknown-models: the judges' rates a card from a previous round with this share "
                        "labelled (lab.cards), not the simulator's")
    p.add_argument("--json", metavar="OUT", help="also write the rows to OUT")
    return p.parse_args(argv)


def run_rows(params: Any, riddles: Any, split: str, seed: int, share: float,
             with_parts: bool = False, with_unknown: bool = False, card_share: float | None = None,
             ) -> list[dict[str, Any]]:
    """One run's rows: per model, each interval's half-width (a fraction) and whether it holds the truth (with
    ``with_parts``, the steps of :func:`lab.width_parts.parts` too; with ``with_unknown``, the
    intervals of :data:`UNKNOWN`)."""
    predictions, judgments, jury = simulate_run(params, riddles, seed)
    labels = simulate_labels(seeded_sample(predictions, share, seed, split), riddles, seed, params.annotations.noise)
    truth = true_scores(riddles, predictions, FIELD)
    probs = oracle_probabilities(params, riddles, predictions, judgments, labels, seed)
    got = {}
    for name in POSTERIORS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the published interval's empty bins: not read here
            sc = score_models(jury, labels, field=FIELD, method="exact", bootstrap=0, seed=seed,
                              empty_bin="nearest", interval="posterior", posterior=name, truth=truth,
                              judgments=judgments, stream=split)
        got[name] = {m: (w, c) for m, w, c in zip(sc["model"], sc["posterior_half_width"], sc["posterior_covered"],
                                                   strict=True)}
    steps = _parts(jury, judgments, labels, probs, oracle_probabilities(params, riddles, predictions, judgments,
                                                                       labels.iloc[:0], seed), split, seed,
                   sorted(got["v1"])) if with_parts else {}
    unknown = _unknown(params, riddles, predictions, judgments, jury, labels, split, seed,
                       card_share) if with_unknown else {}
    rows = []
    for model in sorted(got["v1"]):
        keys = [(model, r) for r in predictions.loc[predictions["model"] == model, "riddle_id"]]
        lo, hi, _ = summarise(poisson_binomial(np.array([probs[k] for k in keys])), 0)
        n, right = len(keys), round(truth[model] * len(keys))
        row = {"oracle": (hi - lo) / (2 * n), "oracle_covered": bool(lo <= right <= hi)}
        for name in POSTERIORS:
            row[name], row[f"{name}_covered"] = float(got[name][model][0]), bool(got[name][model][1])
        for name, by_model in (steps | unknown).items():
            s_lo, s_hi, s_n = by_model[model]
            covered = s_lo <= round(truth[model] * s_n) <= s_hi
            row[name], row[f"{name}_covered"] = (s_hi - s_lo) / (2 * s_n), bool(covered)
        rows.append(row)
    return rows


def _parts(jury: Any, judgments: Any, labels: Any, with_label: dict[Any, float], without: dict[Any, float],
           split: str, seed: int, models: list[str]) -> dict[str, dict[str, tuple[int, int, int]]]:
    """The steps of :func:`lab.width_parts.parts`, the oracle's probabilities as the given starts."""
    fitted = latent_prior.predictions(jury, judgments, labels, FIELD, seed=seed,
                                      stream=latent_prior.stream(split, FIELD))
    given = given_starts(jury, labels, without, with_label)
    got = parts(jury, labels, fitted, given, FIELD, models)
    return {name: got[name] for name in PARTS}


def _unknown(params: Any, riddles: Any, predictions: Any, judgments: Any, jury: Any, labels: Any, split: str,
             seed: int, card_share: float | None = None) -> dict[str, dict[str, tuple[int, int, int]]]:
    """name -> model -> (lo, hi, rows) of each interval of :data:`UNKNOWN` (the judges' rates a previous round's card
    with ``card_share``)."""
    card = previous_round_card(params, riddles, seed, card_share) if card_share is not None else None
    with_labels = {s: unknown_model_counts(params, riddles, predictions, judgments, labels, seed, s, card)
                   for s in SPREADS}
    without = {s: unknown_model_counts(params, riddles, predictions, judgments, labels.iloc[:0], seed, s, card)
               for s in SPREADS}
    counts = mixed_over_spreads(with_labels)
    starts = given_starts(jury, labels, mixed_rows(without), mixed_rows(with_labels))
    out: dict[str, dict[str, tuple[int, int, int]]] = {
        "unknown_models": {}, "latent_class": {},
        "judge_starts": binned_intervals(jury, labels, starts, FIELD, sorted(counts))}
    for model, pmf in counts.items():
        lo, hi, _ = summarise(pmf, 0)
        out["unknown_models"][model] = (lo, hi, len(pmf) - 1)
    rows = latent_class.table_evidence(jury, judgments, labels)
    draws = latent_class.sample(rows.evidence, FIELD, seed=seed, stream=latent_prior.stream(split, FIELD))
    label = rows.evidence.label
    for model in counts:
        mine = np.flatnonzero(rows.keys["model"].to_numpy() == model)
        known = label[mine] >= 0
        base = int(np.isin(label[mine[known]], latent_class.RIGHT[FIELD]).sum())
        # a row no judge of its panel gave a verdict on is not in the fit's table: a coin, as v1's Jeffreys start
        unjudged = int((predictions["model"] == model).sum()) - len(mine)
        pmf = np.convolve(latent_class.count_pmf(draws.right[:, mine[~known]]),
                          poisson_binomial(np.full(unjudged, 0.5)))
        lo, hi, _ = summarise(pmf, base)
        out["latent_class"][model] = (lo, hi, len(mine) + unjudged)
    return out


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Coverage, its se and mean half-width (points) of each interval, and each one's width over v1's."""
    out: dict[str, float] = {"intervals": len(rows)}
    for name in _names(rows):
        cov = float(np.mean([r[f"{name}_covered"] for r in rows]))
        out |= {f"{name}_coverage": cov, f"{name}_coverage_se": float(np.sqrt(cov * (1 - cov) / len(rows))),
                f"{name}_half_width": 100 * float(np.mean([r[name] for r in rows]))}
    for name in _names(rows):
        if name != "v1":
            out[f"{name}_over_v1"] = out[f"{name}_half_width"] / out["v1_half_width"]
    return out


def _names(rows: list[dict[str, Any]]) -> list[str]:
    """The intervals the rows hold: the oracle's, the posteriors', and the parts' when measured."""
    return ["oracle", *POSTERIORS, *(p for p in (*PARTS, *UNKNOWN) if rows and p in rows[0])]


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    base = raw_params(REPO / "params.yaml")[0]
    setting = Setting(models=args.models, judge_quality=args.judge_quality, label_noise=args.label_noise,
                      slip=args.slip, model_spread=args.model_spread, hidden_difficulty=args.hidden_difficulty)
    params = setting_params(base, setting)
    demo = load_demo(REPO / base["riddles"]["path"])
    results = []
    for share in (float(s) for s in args.shares.split(",")):
        for split in params.splits:
            riddles = split_riddles(demo, split)
            s = summary([r for seed in range(args.seeds)
                         for r in run_rows(params, riddles, split, seed, share, args.parts, args.unknown_models,
                                           args.card_share)])
            results.append({"split": split, "share": share, **s})
            names = ["oracle", *POSTERIORS, *(PARTS if args.parts else ()), *(UNKNOWN if args.unknown_models else ())]
            print(f"{split} share {share:.4f} ({s['intervals']:.0f} intervals): "
                  + "; ".join(f"{n} {100 * s[f'{n}_coverage']:.1f}% ± {100 * s[f'{n}_coverage_se']:.1f} at "
                              f"{s[f'{n}_half_width']:.2f}" for n in names)
                  + "; over v1: " + ", ".join(f"{n} {s[f'{n}_over_v1']:.3f}" for n in names if n != "v1"), flush=True)
    if args.json:
        write_json(args.json, {"setting": vars(args), "rows": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
