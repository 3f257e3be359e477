"""Do the judges' rates transfer between riddle sets and between the models they grade? Read on real labels.

Usage:
  python benchmarks/studies/judge_rates.py [--file F] [--split llm] [--sets REGEX] [--against F2 [--against-split S]]
                                           [--json OUT]

The file is any layton-eval-ppi calibration file (default: the LLM split vendored in
reproductions/layton-eval/data/), read by the project's own importer. Every judge's verdicts on the labelled
predictions are checked against the labels (taken for the truth), per field (answer, justification) and truth (the
label right: a sensitivity; wrong: a false-positive rate), and compared (lab.judge_rates):

- between two riddle sets, the riddles whose id matches --sets (default `W`: layton-eval's weekly puzzles) and the
  rest: does a judge's rate on one set hold on the other?
- between the models the judge grades: how far does its rate move with the model (tau, the between-model sd of
  the logit rate: the scale of the simulator's `model_spread`)?
- and, as a control, between two random halves of the riddles (seeded): X^2 / df about 1 by construction;
- with --against F2, between this file and another calibration file judged by the same judges (another split, or
  another benchmark): does a judge's rate on one hold on the other?

Prints one line per (judge, field, truth) and the tests pooled (X^2 / df, its z against the null, the median tau),
read against the same test on tables drawn at this file's counts with rates that transfer (spread 0) and that lean
by 0.7 logits per group (`--repeats` tables each);
`--json OUT` writes them. Seeded: the same arguments give the same output. Seconds to run.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab

from lab.judge_rates import labelled_verdicts, pooled, riddle_set, simulated_ratios, spreads  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.layton_eval.convert import import_ppi  # noqa: E402
from sideways.layton_eval.source import read_ppi  # noqa: E402

DEFAULT_FILE = REPO / "reproductions" / "layton-eval" / "data" / "layton-eval-ppi-llm.figures.jsonl"
COMPARISONS = ("sets", "models", "halves")
#: The spreads (logit sd of a judge's rates across the groups) the observed test is read against: none, and the grid's
#: "judges' rates depend on the model" setting.
SPREADS = (0.0, 0.7)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", default="W", type=regex_argument,
                   help="riddle ids matching this regular expression are one set (default: W)")
    p.add_argument("--repeats", type=int, default=200,
                   help="tables drawn per spread to read the observed X^2 / df against (default: 200)")
    p.add_argument("--seed", type=int, default=0, help="the seed of the random halves and the drawn tables")
    p.add_argument("--file", default=str(DEFAULT_FILE), help="a layton-eval-ppi file (default: the vendored LLM split)")
    p.add_argument("--split", default="llm", help="the split to read when the file has a split column")
    p.add_argument("--against", metavar="F2", help="also compare each judge's rates with its rates in this file")
    p.add_argument("--against-split", default="llm", help="the split of --against when it has a split column")
    p.add_argument("--json", metavar="OUT", help="also write the figures to OUT")
    return p.parse_args(argv)


def regex_argument(text: str) -> str:
    """``text`` if it is a regular expression (argparse reports the error otherwise)."""
    try:
        re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"not a regular expression: {text!r} ({e})") from None
    return text


def file_verdicts(path: str, split: str) -> pd.DataFrame:
    """:func:`labelled_verdicts` of a calibration file, read by the project's importer."""
    tables = import_ppi(read_ppi(path, split=split), source=path)
    verdicts = labelled_verdicts(tables.judgments, tables.annotations)
    if verdicts.empty:
        raise SystemExit(f"{path}: no labelled prediction has a judge's verdict")
    return verdicts


def _predictions(verdicts: pd.DataFrame) -> int:
    """How many labelled predictions ``verdicts`` are about."""
    return int(verdicts[["riddle_id", "model"]].drop_duplicates().shape[0])


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    verdicts = file_verdicts(args.file, args.split)
    riddles = np.array(sorted(verdicts["riddle_id"].unique()))
    half = set(np.random.default_rng(args.seed).permutation(riddles)[: len(riddles) // 2])
    verdicts = verdicts.assign(set=riddle_set(verdicts["riddle_id"], args.sets),
                               half=verdicts["riddle_id"].isin(half))
    in_set = verdicts.drop_duplicates(["riddle_id", "model"])["set"]
    print(f"{args.file}: {len(verdicts)} verdicts on {_predictions(verdicts)} "
          f"labelled predictions, {verdicts['judge'].nunique()} judges, {verdicts['model'].nunique()} models; "
          f"riddle set {args.sets!r}: {int(in_set.sum())} of them")
    out: dict[str, object] = {"file": str(args.file), "sets": args.sets}
    comparisons = [(name, by, verdicts) for name, by in zip(COMPARISONS, ("set", "model", "half"), strict=True)]
    if args.against:
        other = file_verdicts(args.against, args.against_split)
        both = pd.concat([verdicts.assign(file="file"), other.assign(file="against")], ignore_index=True)
        both = both[both["judge"].isin(set(verdicts["judge"]) & set(other["judge"]))]
        print(f"against {args.against}: {len(other)} verdicts on {_predictions(other)} labelled predictions")
        comparisons.append(("files", "file", both))
        out["against"] = str(args.against)
    for name, by, frame in comparisons:
        table = spreads(frame, by)
        total: dict[str, Any] = dict(pooled(table))
        print(f"\nbetween {name}: X^2 / df {total['ratio']:.2f} ({total['x2']:.1f} on {total['df']}, "
              f"z {total['z']:+.1f}), median tau {total['median_tau']:.2f}")
        for spread in SPREADS:
            drawn = simulated_ratios(frame, by, spread, args.repeats, args.seed)
            total[f"spread_{spread}"] = {"median": float(np.median(drawn)), "p05": float(np.quantile(drawn, 0.05)),
                                         "p95": float(np.quantile(drawn, 0.95)),
                                         "at_least_observed": float(np.mean(drawn >= total["ratio"]))}
            t = total[f"spread_{spread}"]
            print(f"  drawn with spread {spread}: X^2 / df {t['median']:.2f} (5-95%: {t['p05']:.2f}-{t['p95']:.2f}), "
                  f"{100 * t['at_least_observed']:.1f}% of draws at or above the observed")
        for r in table.to_dict("records"):
            kind = "sensitivity" if r["truth"] else "false-positive rate"
            print(f"  {r['judge']:<28} {r['field']:<13} {kind:<19} {r['rate']:.3f} of {r['verdicts']:>4}  "
                  f"X^2 {r['x2']:6.1f} on {r['df']}  tau {r['tau']:.2f}")
        out[name] = {"pooled": total, "rows": table.to_dict("records")}
    if args.json:
        write_json(args.json, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
