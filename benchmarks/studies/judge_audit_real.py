"""The judges audited on real calibration data: the latent posterior's rates of each judge against the rates its
verdicts show on the human labels of a layton-eval-ppi calibration file.

Usage:
  python benchmarks/studies/judge_audit_real.py [--file F] [--split llm] [--seed S] [--json OUT]

The file (default: the LLM split vendored in reproductions/layton-eval/data/) is read by the project's importer;
the jury is built from each model's panel (the judges that gave it a verdict). Per judge, field (answer,
justification) and measure (sensitivity, specificity), overall and per graded provider:

- `labels`: the judge's verdicts on the labelled predictions against their labels, taken for the truth (Jeffreys
  95% interval);
- `posterior`: sideways.scoring.judge_audit on every prediction, labelled or not (the latent posterior's truth).

Prints both side by side and how often the label rate falls in the posterior's interval. The vendored file has no
answer text (removed), so the length groups are not measured. Seeded: the same arguments give the same figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
from scipy.stats import beta

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab

from lab.judge_rates import labelled_verdicts  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.layton_eval.convert import import_ppi  # noqa: E402
from sideways.layton_eval.source import read_ppi  # noqa: E402
from sideways.scoring.judge_audit import audit_judges, posterior_rows  # noqa: E402
from sideways.scoring.jury import jury_table  # noqa: E402

DEFAULT_FILE = REPO / "reproductions" / "layton-eval" / "data" / "layton-eval-ppi-llm.figures.jsonl"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--file", default=str(DEFAULT_FILE), help="a layton-eval-ppi file (default: the vendored LLM split)")
    p.add_argument("--split", default="llm", help="the split to read when the file has a split column")
    p.add_argument("--seed", type=int, default=0, help="the latent posterior's seed (default: 0)")
    p.add_argument("--json", metavar="OUT", help="also write the figures to OUT")
    return p.parse_args(argv)


def label_rates(judgments: pd.DataFrame, annotations: pd.DataFrame, providers: pd.Series) -> pd.DataFrame:
    """Per (judge, group, value, field, measure): the verdicts' rate against the labels, Jeffreys interval."""
    v = labelled_verdicts(judgments, annotations)
    v = v.assign(provider=v["model"].map(providers))
    out = []
    for group, by in (("all", None), ("provider", "provider")):
        keys = ["judge", "field", "truth"] + ([by] if by else [])
        for key, rows in v.groupby(keys, sort=True):
            judge, field, truth = key[0], key[1], key[2]
            hits = int((rows["said"] == truth).sum())
            n = len(rows)
            out.append({"judge": judge, "group": group, "value": key[3] if by else "all", "field": field,
                        "measure": "sensitivity" if truth else "specificity", "label_rate": hits / n,
                        "label_lo": float(beta.ppf(0.025, hits + 0.5, n - hits + 0.5)),
                        "label_hi": float(beta.ppf(0.975, hits + 0.5, n - hits + 0.5)), "label_n": n})
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    t0, load0 = time.perf_counter(), os.getloadavg()[0]
    tables = import_ppi(read_ppi(args.file, split=args.split), source=args.file)
    jury = jury_table(tables.judgments, tables.predictions, {m: list(p) for m, p in tables.panels.items()})
    rates = posterior_rows(jury, tables.judgments, tables.annotations, seed=args.seed, stream=args.split)
    post = audit_judges(rates, jury, tables.judgments)
    providers = jury.drop_duplicates("model").set_index("model")["provider"]
    both = post.merge(label_rates(tables.judgments, tables.annotations, providers),
                      on=["judge", "group", "value", "field", "measure"], how="left")
    both["inside"] = (both["label_rate"] >= both["lo"]) & (both["label_rate"] <= both["hi"])
    print(f"{args.file}: {len(jury)} predictions, {len(tables.annotations)} labelled, "
          f"{tables.judgments['judge'].nunique()} judges")
    print(f"\n{'judge':<28} {'rows':<18} {'field':<13} {'measure':<11} {'posterior':<18} {'labels':<18} n")
    for r in both.itertuples():
        rows = "all" if r.group == "all" else f"model of {r.value}"
        label = "-" if pd.isna(r.label_rate) else f"{r.label_rate:.3f} [{r.label_lo:.2f}, {r.label_hi:.2f}]"
        print(f"{r.judge[:28]:<28} {rows[:18]:<18} {r.field:<13} {r.measure:<11} "
              f"{r.estimate:.3f} [{r.lo:.2f}, {r.hi:.2f}] {label:<18} {'' if pd.isna(r.label_n) else int(r.label_n)}")
    known = both[both["label_rate"].notna()]
    for group in ("all", "provider"):
        g = known[known["group"] == group]
        print(f"\n{group}: the label rate inside the posterior's 95% interval in {int(g['inside'].sum())} of {len(g)}; "
              f"mean |posterior - label rate| {float((g['estimate'] - g['label_rate']).abs().mean()):.3f}")
    seconds = time.perf_counter() - t0
    print(f"\n{seconds:.1f} s wall; load average {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
    if args.json:
        figures: dict[str, Any] = {"rows": both.to_dict("records"), "seconds": round(seconds, 1)}
        write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
