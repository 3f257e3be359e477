"""What the labels say about the latent prior's (kappa, sigma): its posterior weight over the grid (docs/method.md §6).

Usage:
  python benchmarks/studies/grid_weights.py [--file F] [--split llm] [--min-labels 50] [--field both_correct]
                                            [--shares 0.125,0.25,0.5,1] [--repeats 6]
  python benchmarks/studies/grid_weights.py --simulated [--seeds 8] [--shares 0.1667,0.5,1] [--judge-quality Q]
                                            [--model-spread S] [--models M] [--json OUT]

The latent prior (sideways.scoring.latent_prior) starts each (model, jury-score bin) at the latent-class fit's
prediction and weighs the points of a (kappa, sigma) grid (sideways.scoring.hierarchy.GRID, uniform prior) by the
beta-binomial likelihood of every model's own labels: kappa, how many labels a start is worth; sigma, the sd of a
model's logit shift around its starts. This prints, per source and share, the posterior's mean weight on each
sigma and each kappa, its mean total-variation distance from the uniform prior per run (0: the labels said
nothing; 1: they chose one point), and the weight on kappa <= 4 and on kappa >= 16.

Real (default): a layton-eval calibration file (default: the vendored LLM split), its labelled predictions of the
models with at least `--min-labels` labels as the population, a share of each model's labels kept as
benchmarks/studies/real_coverage.py keeps them (the same seeded draws), `--repeats` draws a share. `--simulated`: the
simulated pipeline's runs (demo riddles, params.yaml's models and judges as changed), both splits, `--seeds` runs a
share. Seeded: the same arguments give the same output.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab

import real_coverage  # noqa: E402  (beside this script)

from lab.coverage import Setting, setting_params, simulate_run, split_riddles  # noqa: E402
from sideways.annotation.labels import seeded_sample, simulate_labels  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.artifacts.schema import FIELDS  # noqa: E402
from sideways.config.params import Params, raw_params  # noqa: E402
from sideways.scoring import hierarchy, latent_prior  # noqa: E402
from sideways.scoring.hierarchy import Prior  # noqa: E402
from sideways.sources.demo import load_demo  # noqa: E402

SIGMAS = sorted({s for _, s in hierarchy.GRID})
KAPPAS = sorted({k for k, _ in hierarchy.GRID})


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--simulated", action="store_true", help="simulated runs instead of a calibration file")
    p.add_argument("--file", default=str(real_coverage.DEFAULT_FILE), help="a layton-eval-ppi file")
    p.add_argument("--split", default="llm", help="the split to read when the file has a split column")
    p.add_argument("--min-labels", type=int, default=50, help="models with at least this many labels are read")
    p.add_argument("--field", default="both_correct", choices=FIELDS, help="the field scored (default: both_correct)")
    p.add_argument("--shares", help="label shares, comma-separated (default: 0.125,0.25,0.5,1; simulated 0.1667,0.5,1)")
    p.add_argument("--repeats", type=int, default=6, help="label draws a share on the file (default: 6)")
    p.add_argument("--seeds", type=int, default=8, help="simulated runs a share and split (default: 8)")
    p.add_argument("--judge-quality", type=float, help="the simulator's judges (default: params.yaml's)")
    p.add_argument("--model-spread", type=float, help="the simulator's model-dependent judge rates (default: 0)")
    p.add_argument("--models", type=int, help="that many simulated models (default: params.yaml's)")
    p.add_argument("--json", metavar="OUT", help="also write the rows to OUT")
    return p.parse_args(argv)


def grid_weights(priors: Mapping[str, Prior]) -> np.ndarray:
    """The posterior weight of every point of :data:`hierarchy.GRID` (points the prior dropped get 0): one split's,
    shared by its models."""
    spread = next(iter(priors.values())).spread
    at = {(k, s): w for k, s, w in spread}
    return np.array([at.get(g, 0.0) for g in hierarchy.GRID])


def summary(runs: Sequence[np.ndarray]) -> dict[str, Any]:
    """Mean weight per sigma and per kappa, the mean total-variation distance from the uniform prior, and the
    mean weight on kappa <= 4 and on kappa >= 16, over ``runs`` (one grid weight vector each)."""
    w = np.stack(runs)
    kap = np.array([k for k, _ in hierarchy.GRID])
    sig = np.array([s for _, s in hierarchy.GRID])
    uniform = 1 / len(hierarchy.GRID)
    return {"runs": len(runs),
            "sigma": {str(s): float(w[:, sig == s].sum(axis=1).mean()) for s in SIGMAS},
            "kappa": {str(k): float(w[:, kap == k].sum(axis=1).mean()) for k in KAPPAS},
            "distance": float((np.abs(w - uniform).sum(axis=1) / 2).mean()),
            "kappa_at_most_4": float(w[:, kap <= 4].sum(axis=1).mean()),
            "kappa_at_least_16": float(w[:, kap >= 16].sum(axis=1).mean())}


def real_runs(pop: real_coverage.Population, repeats: int, share: float, s: int) -> Iterator[np.ndarray]:
    """Grid weights of ``repeats`` label draws at ``share`` (the ``s``-th share) on the file: real_coverage's
    draws and fits (seed 0)."""
    for r in range(repeats):
        kept = real_coverage.draw_labels(pop, share, 0, s, r)
        pred = latent_prior.predictions(pop.jury, pop.tables.judgments, kept, pop.field, seed=0, stream=f"{share}/{r}")
        yield grid_weights(latent_prior.binned_priors(pop.rows, kept, pred, pop.field))


def simulated_world(args: argparse.Namespace) -> tuple[Params, pd.DataFrame]:
    """params.yaml's project with the simulator's settings of ``args``, and the demo riddles."""
    base = raw_params(REPO / "params.yaml")[0]
    params = setting_params(base, Setting(models=args.models, judge_quality=args.judge_quality,
                                          model_spread=args.model_spread))
    return params, load_demo(REPO / base["riddles"]["path"])


def simulated_runs(args: argparse.Namespace, params: Params, demo: pd.DataFrame, share: float,
                   split: str) -> Iterator[np.ndarray]:
    """Grid weights of ``args.seeds`` simulated runs of ``split`` at ``share``."""
    riddles = split_riddles(demo, split)
    for seed in range(args.seeds):
        predictions, judgments, jury = simulate_run(params, riddles, seed)
        labels = simulate_labels(seeded_sample(predictions, share, seed, split), riddles, seed,
                                 params.annotations.noise)
        yield grid_weights(latent_prior.table_priors(jury, judgments, labels, args.field, seed=seed, stream=split))


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    shares = [float(x) for x in (args.shares or ("0.1667,0.5,1" if args.simulated else "0.125,0.25,0.5,1")).split(",")]
    pop = None if args.simulated else real_coverage.population(args.file, args.split, args.min_labels, args.field)
    world = simulated_world(args) if pop is None else None
    rows = []
    print("| source | split | share | " + " | ".join(f"sigma {s:g}" for s in SIGMAS) + " | "
          + " | ".join(f"kappa {k:g}" for k in KAPPAS) + " | distance from the prior | kappa <= 4 | kappa >= 16 |")
    print("|---" * (6 + len(SIGMAS) + len(KAPPAS)) + "|")
    for index, share in enumerate(shares):
        for split in (("llm", "vlm") if pop is None else (args.split,)):
            if pop is not None:
                runs = list(real_runs(pop, args.repeats, share, index))
            else:
                assert world is not None  # built above whenever there is no file
                runs = list(simulated_runs(args, *world, share, split))
            row = {"source": "simulated" if args.simulated else Path(args.file).name, "split": split,
                   "share": share, **summary(runs)}
            rows.append(row)
            print(f"| {row['source']} | {split} | {share:g} | "
                  + " | ".join(f"{row['sigma'][str(s)]:.2f}" for s in SIGMAS) + " | "
                  + " | ".join(f"{row['kappa'][str(k)]:.2f}" for k in KAPPAS)
                  + f" | {row['distance']:.2f} | {row['kappa_at_most_4']:.2f} | {row['kappa_at_least_16']:.2f} |",
                  flush=True)
    if args.json:
        write_json(args.json, {"grid": [list(g) for g in hierarchy.GRID], "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
