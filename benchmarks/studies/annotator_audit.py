"""Does the annotator audit flag a careless and a random annotator, where they bias a score, and not the careful?

Usage:
  python benchmarks/studies/annotator_audit.py [--seeds N] [--first-seed S0] [--riddles R] [--share S [S ...]]
                                               [--justification P] [--rate E] [--double D] [--first-double K]
                                               [--json OUT]

One run is one seed of the simulated llm split (the default params.yaml world, R riddles: the demo's and renamed
copies, in-process, lab.coverage), labelled at each share by five annotators
(lab.annotators): three careful, one careless (the justification label copied from the answer label) and one random
(each field flipped with probability E, default 0.05), each prediction to one of them by a seeded coin, a careful
second label on a share D of them, and each annotator's K first labels (default 50, params.yaml's
annotations.first_double) second labels on predictions another annotator labelled first. Per run and share:

- the audit (sideways.scoring.annotator_audit: both flag rules fixed in its docstring before this was run);
- the bias each bad annotator causes: every model's default (latent) posterior score with that annotator's labels,
  minus the score with the same predictions labelled by the truth; "biases" when some model moves by more than
  the half-width of its interval under the true labels.

Prints per share: labels per annotator, the share of runs where the careless (random) annotator biases a score
past its half-width, the share where it is flagged (and flagged in runs where it biases), the careful annotators'
false-flag rate over all of them, and the wall time; then, per count of pairs, what the pair rule can see at all:
the fewest disagreements it flags, and the chance that an annotator erring at E on a field reaches it.
`--justification P` sets every model's P(gold justification
| right answer) (default: the models' own, 0.9 for most): the careless annotator errs on right answers with a wrong
justification, so the lower P, the more it errs. Seeded: the same arguments give the same figures.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab

from lab.annotators import Annotator, relabel, team  # noqa: E402
from lab.coverage import Setting, setting_params, simulate_run, split_riddles  # noqa: E402
from sideways.annotation.labels import seeded_sample, simulate_labels  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.config.params import raw_params  # noqa: E402
from sideways.scoring.annotator_audit import FLAG_RATIO, PAIR_LEVEL, audit_annotators, pair_p  # noqa: E402
from sideways.scoring.calibration import score_models  # noqa: E402
from sideways.sources.demo import load_demo  # noqa: E402

SPLIT = "llm"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=10, help="runs (default: 10)")
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--riddles", type=int, default=120, help="riddles of the split (default: 120)")
    p.add_argument("--share", type=float, nargs="+", default=[0.25, 0.5, 0.75],
                   help="label shares (default: 0.25 0.5 0.75)")
    p.add_argument("--justification", type=float, help="every model's P(gold justification | right answer)")
    p.add_argument("--rate", type=float, default=0.05, help="the random annotator's flip rate per field")
    p.add_argument("--double", type=float, default=0.1, help="share of predictions labelled twice (default: 0.1)")
    p.add_argument("--first-double", type=int, default=50,
                   help="each annotator's first labels that are second labels (default: 50, as params.yaml)")
    p.add_argument("--json", metavar="OUT", help="also write the figures to OUT")
    return p.parse_args(argv)


def _scores(jury: pd.DataFrame, judgments: pd.DataFrame, labels: pd.DataFrame, seed: int) -> pd.DataFrame:
    first = labels.drop_duplicates(["riddle_id", "model"], keep="first")
    return score_models(jury, first, field="both_correct", method="exact", bootstrap=0, seed=seed,
                        empty_bin="nearest", interval="posterior", posterior="latent", judgments=judgments,
                        stream=SPLIT).set_index("model")


def _only(people: tuple[Annotator, ...], bad: str) -> tuple[Annotator, ...]:
    """The team with every annotator but ``bad`` careful (the same names: the same rows each)."""
    return tuple(p if p.name == bad else Annotator(p.name, "careful") for p in people)


def one_run(params: Any, riddles: pd.DataFrame, seed: int, share: float, people: tuple[Annotator, ...],
            double: float, first_double: int) -> dict[str, Any]:
    predictions, judgments, jury = simulate_run(params, riddles, seed)
    truth = simulate_labels(seeded_sample(predictions, share, seed, SPLIT), riddles, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clean = _scores(jury, judgments, relabel(truth, _only(people, ""), seed), seed)
        out: dict[str, Any] = {"audit": {}, "bias": {}}
        for bad in ("careless-1", "random-1"):
            moved = _scores(jury, judgments, relabel(truth, _only(people, bad), seed), seed)
            ratio = ((moved["posterior_score"] - clean["posterior_score"]).abs() / clean["posterior_half_width"])
            out["bias"][bad] = float(ratio.max())
    labels = relabel(truth, people, seed, double, first_double)
    audit = audit_annotators(jury, judgments, labels, seed=seed, stream=SPLIT)
    out["audit"] = {a.annotator: {"labels": a.labels, "flagged": list(a.flagged),
                                  "latent": [f for f in a.flagged if a.error[f].lo > FLAG_RATIO * a.reference[f]],
                                  "pairs": {f: [q.d, q.n, q.others_d, q.others_n, q.p, q.charged]
                                            for f, q in a.pairs.items()},
                                  "error": {f: [r.mean, r.lo, r.hi] for f, r in a.error.items()}} for a in audit}
    return out


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    base = raw_params(REPO / "params.yaml")[0]
    params = setting_params(base, Setting(riddles=args.riddles))
    if args.justification is not None:
        params = _with_justification(params, args.justification)
    demo = load_demo(REPO / base["riddles"]["path"])
    riddles = split_riddles(demo, SPLIT, args.riddles)
    people = team(rate=args.rate)
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    figures: dict[str, Any] = {"shares": {}}
    print(f"{args.seeds} seeds, {len(riddles)} riddles x {len(params.models)} models of {SPLIT}; annotators: "
          f"{', '.join(p.name for p in people)} (random: {args.rate} a field); double share {args.double}, "
          f"first {args.first_double} labels double")
    for share in args.share:
        runs = [one_run(params, riddles, s, share, people, args.double, args.first_double)
                for s in range(args.first_seed, args.first_seed + args.seeds)]
        figures["shares"][str(share)] = runs
        labels = {p.name: sum(r["audit"][p.name]["labels"] for r in runs) / len(runs) for p in people}
        print(f"\nshare {share:g}: labels per annotator {', '.join(f'{k} {v:.0f}' for k, v in labels.items())}")
        for bad in ("careless-1", "random-1"):
            biases = [r["bias"][bad] > 1 for r in runs]
            flags = [bool(r["audit"][bad]["flagged"]) for r in runs]
            both = sum(b and f for b, f in zip(biases, flags, strict=True))
            rate = [r["audit"][bad]["error"] for r in runs]
            latent = sum(bool(r["audit"][bad]["latent"]) for r in runs)
            print(f"  {bad:<11} biases a score past its half-width in {sum(biases)} of {len(runs)} runs "
                  f"(largest move / half-width, median {_median([r['bias'][bad] for r in runs]):.2f})")
            print(f"  {'':<11} flagged in {sum(flags)} of {len(runs)} ({both} of the {sum(biases)} it biases; "
                  f"{latent} by the latent rule); error a/j {_median([e['answer'][0] for e in rate]):.3f} / "
                  f"{_median([e['justification'][0] for e in rate]):.3f}; {_pairs(runs, bad)}")
        careful = [p.name for p in people if p.kind == "careful"]
        false = sum(bool(r["audit"][c]["flagged"]) for r in runs for c in careful)
        print(f"  careful     flagged {false} of {len(runs) * len(careful)} (false flags); {_pairs(runs, *careful)}")
    _reach(args.rate, figures)
    seconds, load1 = time.perf_counter() - t0, os.getloadavg()[0]
    print(f"\n{seconds:.1f} s wall; load average {load0:.2f} at the start, {load1:.2f} at the end")
    if args.json:
        write_json(args.json, {**figures, "seconds": round(seconds, 1)})
    return 0


def _pairs(runs: list[dict[str, Any]], *names: str) -> str:
    """Median double labels, disagreements and charged errors a/j of ``names`` over ``runs``, and the others'
    charged errors (justification)."""
    got = [r["audit"][n]["pairs"] for r in runs for n in names]
    return (f"double {_median([g['answer'][1] for g in got]):.0f}, differ a/j "
            f"{_median([g['answer'][0] for g in got]):.1f} / {_median([g['justification'][0] for g in got]):.1f}, "
            f"charged {_median([g['answer'][5] for g in got]):.1f} / "
            f"{_median([g['justification'][5] for g in got]):.1f}"
            f" (others {_median([g['justification'][2] for g in got]):.1f} of "
            f"{_median([g['justification'][3] for g in got]):.0f})")


def _reach(rate: float, figures: dict[str, Any]) -> None:
    """What the pair rule can see at each count of double labels: against others' labels never charged an error
    (careful simulated annotators write the truth), the fewest charged errors flagged (p < PAIR_LEVEL), the
    expected count of an annotator erring at ``rate`` on a field (each error charged to it), and the chance it
    reaches the fewest on one field / on either (the two fields' flips independent)."""
    print(f"\nwhat the pair rule can see (others: 75 double labels, none charged; an annotator erring {rate} a field):")
    figures["reach"] = []
    for n in (10, 25, 50, 100, 200):
        least = next((d for d in range(n + 1) if (pair_p(d, n, 0, 75) or 1.0) < PAIR_LEVEL), n + 1)
        one = sum(math.comb(n, k) * rate**k * (1 - rate)**(n - k) for k in range(least, n + 1))
        either = 1 - (1 - one) ** 2
        figures["reach"].append({"pairs": n, "least": least, "expected": n * rate, "one": one, "either": either})
        print(f"  {n:>3} double labels: flags {least}+ charged errors; expected {n * rate:.2f}; reached on one field "
              f"{one:.3f}, on either {either:.3f}")
    careful = 0.02  # two careful annotators each erring 1% a field disagree about 2% of the time
    n = next(n for n in range(1, 5000) if _power(n, careful, rate + careful) >= 0.8)
    figures["known_rates_pairs"] = n
    print(f"  with both rates known (pairs differ {careful:.0%} between careful annotators, {rate + careful:.0%} "
          f"with this one): {n} pairs on one field to flag it 4 times in 5 at 1% false flags")


def _power(n: int, p0: float, p1: float) -> float:
    """The chance that Binomial(n, p1) reaches the fewest disagreements Binomial(n, p0) reaches at most 1% of the
    time (a one-sided exact test with both rates known)."""
    def tail(p: float, c: int) -> float:
        return sum(math.comb(n, k) * p**k * (1 - p)**(n - k) for k in range(c, n + 1))

    c = next(c for c in range(n + 2) if c > n or tail(p0, c) <= 0.01)
    return tail(p1, c) if c <= n else 0.0


def _with_justification(params: Any, p: float) -> Any:
    """``params`` with every simulated model's P(gold justification | right) at ``p``."""
    models = tuple(replace(m, options=replace(m.options, justification=p)) for m in params.models)
    return replace(params, models=models)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    return (ordered[n // 2] + ordered[(n - 1) // 2]) / 2 if n else float("nan")


if __name__ == "__main__":
    raise SystemExit(main())
