"""The cascade's first judges chosen by measurement, measured cross-fitted on a layton-eval calibration file.

Usage:
  python benchmarks/studies/cascade_auto.py [--file F] [--split llm] [--splits 20] [--repeats 4] [--seed 0]
                                            [--shares 0.125,0.25,0.5] [--rules splits,labels,agree,outlier,width]
                                            [--orders O1;O2] [--json OUT]

For each of ``--splits`` seeded splits of the file's riddles into two halves A and B: each rule of
:mod:`lab.cascade_auto` chooses every panel's first pair from half A alone (``splits``: the full jury's verdicts
there, no label; ``labels``: the labels of half A too), the cascade (2 first judges, the third only where they
disagree) is applied to half B, and on half B the latent interval (the default) is measured with the full jury and
under each rule's cascade, on the same ``--repeats`` label draws per share (``real_coverage.py``'s protocol: each
model keeps round(share x its labels on B) of its labels of B). So on half the riddles each model has half its
labels: the full jury's figures here are on half B too, and the two are compared like with like.

Settings fixed before the coverage runs: 2 first judges, the field both_correct, shares 1/8, 1/4, 1/2, 20 splits,
4 draws, seed 0; ties of ``splits`` broken by the fewest escalated rows (the most calls saved) then the panel's order.
The same settings hold, fixed before their runs, for ``agree`` (each panel's pair agreeing most often on both_correct
over half A's rows every panel judge graded; ties: the panel's order) and ``outlier`` (the judge whose both_correct
verdicts agree least with the other judges', its mean pairwise agreement over half A, out of every first pair; within
a panel the ``agree`` pair of the rest), both label-free, measured against the same target; and for ``width``
(:func:`lab.cascade_auto.narrowest`: per panel in turn the pair whose cascade gives the narrowest mean latent
half-width over half A's measured models at label share 1/2 of half A's labels, 2 seeded draws; with labels).
Target per split: judge calls saved >= 30% and the half-width <= 1.15x the full jury's at every share; overall:
coverage >= 94% at every share (pooled over splits; one split's 7 models x repeats are too few to read alone).

Prints, per split, each rule's pairs (when they differ from the first split's), calls saved, labelled rows of B its
first judges settled against their label, and per share its coverage and width ratio beside the full jury's; then
the pooled table. ``--json OUT`` writes every split's figures and the pooled rows, again after each split.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "benchmarks" / "studies"))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import real_coverage  # noqa: E402

from lab import cascade_auto  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402

FIRST = 2
#: The rules measured: lab.cascade_auto's, and ``width`` (lab.cascade_auto.narrowest with :func:`half_width`).
RULES = (*cascade_auto.RULES, "width")
#: ``width``'s label share of the choosing half and its draws (fixed before its run).
WIDTH_SHARE, WIDTH_DRAWS = 0.5, 2


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--file", default=str(real_coverage.DEFAULT_FILE), help="a layton-eval-ppi file")
    p.add_argument("--split", default="llm", help="the split to read when the file has a split column")
    p.add_argument("--splits", type=int, default=20, help="seeded halvings of the riddles (default: 20)")
    p.add_argument("--repeats", type=int, default=4, help="label draws per share and split (default: 4)")
    p.add_argument("--seed", type=int, default=0, help="the seed of the halvings, the label draws and the fits")
    p.add_argument("--shares", default="0.125,0.25,0.5", help="label shares kept, comma-separated")
    p.add_argument("--rules", default=",".join(cascade_auto.RULES),
                   help=f"the rules measured, comma-separated (of {', '.join(RULES)})")
    p.add_argument("--orders", default="", help="fixed orders measured beside the rules on the same halves "
                   "(real_coverage.py --cascade's keys or prefixes; orders separated by ';')")
    p.add_argument("--min-labels", type=int, default=50, help="models with this many labels in the file are measured")
    p.add_argument("--json", metavar="OUT", help="also write every split's figures to OUT")
    return p.parse_args(argv)


def halves(pop: real_coverage.Population, seed: int, i: int) -> tuple[set[str], set[str]]:
    """The ``i``-th seeded halving of the file's riddles: (A, B)."""
    riddles = sorted(set(pop.tables.predictions["riddle_id"]))
    order = np.random.default_rng(np.random.SeedSequence([seed, 59, i])).permutation(len(riddles))
    a = {riddles[k] for k in order[: len(riddles) // 2]}
    return a, set(riddles) - a


def restrict(pop: real_coverage.Population, riddles: set[str]) -> real_coverage.Population:
    """``pop`` on ``riddles`` only: its tables, jury, labels, population rows and truths (the same models)."""
    def on(t: pd.DataFrame) -> pd.DataFrame:
        return t[t["riddle_id"].isin(riddles)].reset_index(drop=True)
    tables = dataclasses.replace(pop.tables, predictions=on(pop.tables.predictions),
                                 judgments=on(pop.tables.judgments), annotations=on(pop.tables.annotations))
    labels = on(pop.labels)
    truth = {m: float(labels.loc[labels["model"] == m, f"human_{pop.field}"].astype(bool).mean()) for m in pop.truth}
    return real_coverage.Population(pop.field, tables, on(pop.jury), labels, truth, on(pop.rows))


def cascaded(pop: real_coverage.Population, panels: dict[str, tuple[str, ...]]) -> real_coverage.Population:
    """``pop`` as a cascade asking each model's ``panels`` in order would see it (its first 2 grade every row)."""
    return real_coverage.cascaded_panels_seen(pop, panels, FIRST)


def hidden(full: real_coverage.Population, seen: real_coverage.Population) -> int:
    """Labelled rows the full jury split on the field that the cascade's first judges settled."""
    f = full.field
    both = full.rows.merge(seen.rows, on=["riddle_id", "model"], suffixes=("", "_seen"))
    split = (both[f"{f}_votes"] > 0) & (both[f"{f}_votes"] < both[f"{f}_judges"])
    return int((split & (both[f"{f}_judges_seen"] == FIRST)).sum())


def half_width(pop: real_coverage.Population, panels: dict[str, tuple[str, ...]], seed: int) -> float:
    """The mean latent half-width over ``pop``'s measured models under a cascade of ``panels``, at label share
    ``WIDTH_SHARE`` over ``WIDTH_DRAWS`` draws seeded by ``seed``: what ``width`` minimises on the choosing half."""
    seen = cascaded(pop, panels)
    widths = []
    for r in range(WIDTH_DRAWS):
        kept = real_coverage.keep_labels(pop.labels, WIDTH_SHARE, np.random.default_rng(np.random.SeedSequence(
            [seed, 59, r])))
        got = real_coverage.latent_intervals(seen, kept, seed, f"width/{r}", ["latent"])["latent"]
        widths += [(hi - lo) / 2 for lo, hi in got.values()]
    return float(np.mean(widths))


def choose(pop: real_coverage.Population, rule: str, seed: int) -> dict[str, tuple[str, ...]]:
    """Each model's panel ordered by ``rule`` from ``pop`` (the choosing half): its labels read by ``labels`` and
    ``width`` only."""
    if rule == "width":
        return cascade_auto.narrowest(pop.tables.panels, lambda panels: half_width(pop, panels, seed), FIRST)
    labels = pop.labels if rule == "labels" else pop.labels.iloc[:0]
    return cascade_auto.chosen_panels(pop.tables.judgments, pop.tables.panels, labels, rule, pop.field, FIRST)


def one_split(pop: real_coverage.Population, i: int, args: argparse.Namespace, shares: list[float],
              rules: list[str], orders: list[tuple[str, ...]]) -> dict[str, Any]:
    """Every rule's choice on half A and its figures on half B, beside the full jury's on half B."""
    a, b = halves(pop, args.seed, i)
    pa, pb = restrict(pop, a), restrict(pop, b)
    full = {r["share"]: r for r in real_coverage.measure(pb, shares, args.repeats, args.seed + i, ["latent"])}
    out: dict[str, Any] = {"split": i, "full": [full[s] for s in shares], "rules": {}}
    measured: dict[tuple[tuple[str, tuple[str, ...]], ...], dict[str, Any]] = {}
    chosen = {rule: choose(pa, rule, args.seed + i) for rule in rules}
    chosen |= {",".join(o): real_coverage.cascaded_panels(pb, o) for o in orders}
    for rule, panels in chosen.items():
        key = tuple(sorted(panels.items()))
        if key not in measured:
            seen = cascaded(pb, panels)
            got = {r["share"]: r for r in real_coverage.measure(seen, shares, args.repeats, args.seed + i, ["latent"])}
            measured[key] = {
                "pairs": sorted({p[:FIRST] for p in panels.values()}),
                "saved": 1 - len(seen.tables.judgments) / len(pb.tables.judgments),
                "contradicted": real_coverage.contradicted(seen, FIRST), "hidden": hidden(pb, seen),
                "rows": [got[s] | {"width_ratio": got[s]["half_width"] / full[s]["half_width"]} for s in shares]}
        out["rules"][rule] = measured[key]
    return out


def meets(rule: dict[str, Any]) -> bool:
    """One split's per-split target: >= 30% calls saved and <= 1.15x the full jury's half-width at every share."""
    return bool(rule["saved"] >= 0.30 and all(r["width_ratio"] <= 1.15 for r in rule["rows"]))


def _print_split(one: dict[str, Any], shares: list[float]) -> None:
    full = " / ".join(f"{100 * r['coverage']:.0f}%" for r in one["full"])
    print(f"split {one['split']}: full jury {full} ({' / '.join(f'{r['half_width']:.2f}' for r in one['full'])} pts)")
    for rule, r in one["rules"].items():
        cov = " / ".join(f"{100 * x['coverage']:.0f}% {x['width_ratio']:.2f}x" for x in r["rows"])
        print(f"  {rule}: {100 * r['saved']:.1f}% saved, {r['hidden']} labelled splits hidden, {r['contradicted']} "
              f"settled against the label; {cov}"
              f"{'' if meets(r) else '  (misses)'}")


def pooled(splits: list[dict[str, Any]], shares: list[float], rules: list[str]) -> list[dict[str, Any]]:
    """Per row (the full jury, each rule) and share: coverage pooled over splits, its se, the mean half-width, the mean
    and worst width ratio; per rule the splits meeting the per-split target and the calls saved."""
    rows = []
    for name in ["full", *rules]:  # rules: the rules' and the fixed orders' names
        for k, share in enumerate(shares):
            got = [(s["full"] if name == "full" else s["rules"][name]["rows"])[k] for s in splits]
            n = sum(g["intervals"] for g in got)
            c = sum(g["coverage"] * g["intervals"] for g in got) / n
            row = {"row": name, "share": share, "coverage": c, "coverage_se": float(np.sqrt(c * (1 - c) / n)),
                   "intervals": n, "half_width": float(np.mean([g["half_width"] for g in got]))}
            if name != "full":
                ratios = [g["width_ratio"] for g in got]
                saved = [s["rules"][name]["saved"] for s in splits]
                row |= {"width_ratio": float(np.mean(ratios)), "worst_ratio": float(max(ratios)),
                        "within_ratio": sum(x <= 1.15 for x in ratios), "saved_min": min(saved),
                        "saved_mean": float(np.mean(saved)), "meets": sum(meets(s["rules"][name]) for s in splits),
                        "contradicted": sum(s["rules"][name]["contradicted"] > 0 for s in splits),
                        "mean_ratio": float(np.mean([g["half_width"] for g in got])
                                            / np.mean([s["full"][k]["half_width"] for s in splits]))}
            rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    shares = [float(s) for s in args.shares.split(",")]
    rules = [r.strip() for r in args.rules.split(",") if r.strip()]
    bad = sorted(set(rules) - set(RULES))
    if bad:
        raise SystemExit(f"--rules: unknown {', '.join(bad)} (known: {', '.join(RULES)})")
    pop = real_coverage.population(args.file, args.split, args.min_labels)
    orders = real_coverage.judge_orders(pop, args.orders, FIRST) if args.orders else []
    for rule in rules:
        panels = choose(pop, rule, args.seed)
        print(f"{rule} on the whole file: " + "; ".join(", ".join(p) for p in sorted({p[:FIRST] for p in
                                                                                        panels.values()})))
    if {"agree", "outlier"} & set(rules):
        rates = cascade_auto.judge_agreement(pop.tables.judgments, pop.field)
        print("mean agreement with the other judges on the whole file: "
              + ", ".join(f"{j} {100 * r:.1f}%" for j, r in sorted(rates.items(), key=lambda x: -x[1])))
    print(f"{args.file}: {len(pop.truth)} models; {args.splits} halvings, {args.repeats} label draws a share, "
          f"seed {args.seed}")
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    splits = []
    for i in range(args.splits):
        splits.append(one_split(pop, i, args, shares, rules, orders))
        _print_split(splits[-1], shares)
        if args.json:  # the halvings so far, pooled: a run stopped early keeps them
            write_json(args.json, {"splits": splits, "rows": pooled(splits, shares, rules + [",".join(o) for o in
                                                                                              orders])})
    rows = pooled(splits, shares, rules + [",".join(o) for o in orders])
    print("\n| row | share | coverage % ± se | mean half-width (points) | x full (of the means; per split: mean, "
          "worst, splits <= 1.15) "
          "| calls saved (min) | splits meeting | splits settling a label against it |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        extra = (f" {r['mean_ratio']:.2f}; {r['width_ratio']:.2f}, {r['worst_ratio']:.2f}, "
                 f"{r['within_ratio']} of {len(splits)} | "
                 f"{100 * r['saved_mean']:.1f}% ({100 * r['saved_min']:.1f}%) | {r['meets']} of {len(splits)} | "
                 f"{r['contradicted']} |") if "width_ratio" in r else " | | | |"
        print(f"| {r['row']} | {r['share']:g} | {100 * r['coverage']:.1f} ± {100 * r['coverage_se']:.1f} | "
              f"{r['half_width']:.2f} |" + extra)
    print(f"\n{time.perf_counter() - t0:.1f} s wall; load average {load0:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end ({os.cpu_count()} cores)")
    if args.json:
        write_json(args.json, {"splits": [{k: v for k, v in s.items()} for s in splits], "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
