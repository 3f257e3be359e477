"""How often the 95% intervals cover the truth: the simulated pipeline over many seeds, in-process.

Usage:
  python benchmarks/interval_coverage.py --seeds N (--per-riddle K [K ...] | --share S [S ...])
                                --judge-quality Q --models M --interval NAME [--self-bias B]
                                [--riddles R] [--first-seed S0] [--kappa K [K ...]] [--json OUT]
  python benchmarks/interval_coverage.py --grid full|base|hard|quick --seeds N [--first-seed S0] [--json OUT]

- `--grid`: the coverage grid (lab.coverage.GRID: the default and harder worlds,
  among them judges that err together, judges whose rates depend on the model, the fourth class
  and noisy annotators; `quick`: a 4-model one for the tests), one markdown row per cell: every
  posterior (each `calibration.posterior`) and the published interval (exact) on the same runs,
  their coverage ± se and mean half-widths, and each posterior's half-width over v1's; then, per
  posterior, the mean and largest ratio and the lowest coverage.

- Q is `default` (the judges of params.yaml) or a number: sensitivity = specificity of every judge.
- M is a number of simulated models, skills evenly spread over 0.3-0.9, providers in turn
  (openai, gemini, anthropic, mistral, together); `default`: the models of params.yaml.
- `--per-riddle K` is the label budget of the old `annotations.per_riddle`, spent as a share:
  share = min(1, K / M) (per-riddle 1 with 6 models is share 1/6); `--share S` gives it directly
  (default: params.yaml's share). Several budgets (and several `--kappa`) share one simulation:
  each (budget, kappa) is a cell, scored on the same predictions and verdicts.
- NAME is `posterior` (the new interval), `layton` or `exact` (the published one, so computed).
  Both intervals are measured on the same runs; NAME says which one is printed first and which
  computation the published one uses. A run where the published interval meets an empty bin
  (`empty_bin: error`) is a failed run for it: the pipeline ranked by it would stop there.
- `--riddles R`: R riddles per split (the demo's, then renamed copies of them); `--self-bias B`
  every judge's bias towards its own provider; `--kappa K`: v1's prior weight cap;
  `--correlation C`, `--model-spread Z`, `--slip S`, `--label-noise E`, `--hidden-difficulty D`:
  the simulator's hard settings (every judge's, every model's, the annotators'; docs/method.md §6).

Prints, per split and interval: coverage ± binomial standard error (over all intervals; the
models of one run share a pool, so this se is a little optimistic), completed runs, mean
half-width in points; then the wall time and the load average. Runs in-process, without DVC
(lab.coverage), from the bundled demo riddles and params.yaml.

The issue asked for benchmarks/coverage.py: that name shadows the `coverage` package for
everything imported with benchmarks/ on sys.path (numba, under ppi_py, probes `import coverage`),
so the script is interval_coverage.py (tests/test_benchmark_names.py keeps it so).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))


from lab.coverage import (  # noqa: E402
    FULL_GRID,
    GRID,
    HARD_GRID,
    QUICK_GRID,
    Setting,
    interval_names,
    measure,
    setting_params,
    share_for,
    split_riddles,
)
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.config.params import Params, raw_params  # noqa: E402
from sideways.scoring.posterior import KAPPA_MAX  # noqa: E402
from sideways.sources.demo import load_demo  # noqa: E402

GRIDS = {"full": FULL_GRID, "base": GRID, "hard": HARD_GRID, "quick": QUICK_GRID}


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=200, help="runs (seeds) per split (default: 200)")
    p.add_argument("--first-seed", type=int, default=0, help="the first seed (default: 0)")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--per-riddle", type=float, nargs="+", help="labels per riddle: share = min(1, K / models)")
    budget.add_argument("--share", type=float, nargs="+", help="share of each model's predictions labelled")
    p.add_argument("--judge-quality", default="default", help="`default` or sensitivity = specificity")
    p.add_argument("--models", default="default", help="`default` (params.yaml) or a number of models")
    p.add_argument("--interval", choices=("posterior", "layton", "exact"), default="posterior")
    p.add_argument("--self-bias", type=float, help="every judge's self-bias (default: params.yaml)")
    p.add_argument("--riddles", type=int, help="riddles per split (default: the demo's)")
    p.add_argument("--correlation", type=float, help="every judge's chance to follow the riddle's shared difficulty")
    p.add_argument("--model-spread", type=float, help="sd (logit) of the leniency each graded model draws")
    p.add_argument("--slip", type=float, help="every model's P(gold justification | wrong answer)")
    p.add_argument("--label-noise", type=float, help="the annotators' chance to get a field wrong")
    p.add_argument("--hidden-difficulty", type=float,
                   help="sd (logit) of the difficulty each riddle draws for every model (real riddles: about 3)")
    p.add_argument("--kappa", type=float, nargs="+", default=[KAPPA_MAX],
                   help=f"the posterior's prior weight cap (default: KAPPA_MAX = {KAPPA_MAX:g})")
    p.add_argument("--json", metavar="OUT", help="also write the setting and the results to OUT")
    p.add_argument("--grid", choices=tuple(GRIDS),
                   help="run a grid and print its table (full: every cell; base: issue 30's; hard: the hard "
                        "settings'; quick: a tiny one); the budget and setting options are ignored")
    return p.parse_args(argv)


def _setting(args: argparse.Namespace) -> Setting:
    models = None if args.models == "default" else int(args.models)
    quality = None if args.judge_quality == "default" else float(args.judge_quality)
    return Setting(models=models, judge_quality=quality, self_bias=args.self_bias, riddles=args.riddles,
                   correlation=args.correlation, model_spread=args.model_spread, slip=args.slip,
                   label_noise=args.label_noise, hidden_difficulty=args.hidden_difficulty)


def _cells(args: argparse.Namespace, params: Params, base: dict[str, Any]) -> list[tuple[float, float]]:
    """(share, kappa) of every cell: each label budget with each kappa."""
    shares = ([share_for(k, len(params.models)) for k in args.per_riddle] if args.per_riddle
              else args.share or [float(base["annotations"]["share"])])
    return [(share, kappa) for share in shares for kappa in args.kappa]


def _line(split: str, name: str, s: dict[str, Any]) -> str:
    return (f"{split:4} {name:12} coverage {100 * s['coverage']:5.1f}% ± {100 * s['se']:.1f}  "
            f"({s['intervals']} intervals, {s['runs'] - s['failed_runs']}/{s['runs']} runs complete)  "
            f"mean half-width {s['mean_half_width']:.2f} points")


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.grid:
        return run_grid(args)
    base = raw_params(REPO / "params.yaml")[0]
    setting = _setting(args)
    params = setting_params(base, setting)
    cells = _cells(args, params, base)
    riddles = _riddles(base, params, setting.riddles)
    published_method = "exact" if args.interval == "exact" else "layton"
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    results = measure(params, riddles, range(args.first_seed, args.first_seed + args.seeds), cells,
                      published_method=published_method)
    seconds, load1 = time.perf_counter() - t0, os.getloadavg()[0]
    order = interval_names()
    print(f"{len(params.models)} models, judges {args.judge_quality}, self-bias "
          f"{args.self_bias if args.self_bias is not None else 'default'}, riddles "
          + ", ".join(f"{s} {len(t)}" for s, t in riddles.items())
          + f", seeds {args.first_seed}..{args.first_seed + args.seeds - 1}")
    for cell in results:
        print(f"\nshare {cell['share']:.4g}, kappa {cell['kappa']:g}:")
        for split, by_name in cell["splits"].items():
            for name in order:
                print(_line(split, published_method if name == "published" else name, by_name[name]))
    print(f"\n{seconds:.1f} s wall for {args.seeds} seeds x {len(riddles)} splits x {len(cells)} cell(s); "
          f"load average {load0:.2f} at the start, {load1:.2f} at the end ({os.cpu_count()} cores)")
    if args.json:
        write_json(args.json, {"setting": {**vars(args), "n_models": len(params.models)}, "results": results,
                               "seconds": round(seconds, 1), "load": [round(load0, 2), round(load1, 2)]})
    return 0


def _riddles(base: dict[str, Any], params: Params, count: int | None) -> dict[str, Any]:
    """Each split's demo riddles (``count`` of them, or all), as the simulator reads them."""
    demo = load_demo(REPO / base["riddles"]["path"])
    return {s: split_riddles(demo, s, count) for s in params.splits}


def _pct(s: dict[str, Any]) -> str:
    return f"{100 * s['coverage']:.1f} ± {100 * s['se']:.1f}"


def _ratios(by: dict[str, Any]) -> dict[str, float | None]:
    """Each posterior's mean half-width over v1's (None where v1's is 0: everything labelled)."""
    v1 = by["v1"]["mean_half_width"]
    return {name: (by[name]["mean_half_width"] / v1 if v1 > 0 else None)
            for name in interval_names() if name not in ("v1", "published")}


def _grid_line(name: str, n_models: int, share: float, split: str, by: dict[str, Any]) -> str:
    """A markdown row of the grid's table: every interval's coverage ± se and half-width, then the ratios."""
    pub = by["published"]
    cells = [f"{_pct(by[n])} | {by[n]['mean_half_width']:.2f}" for n in interval_names()]
    ratios = ["-" if r is None else f"{r:.2f}" for r in _ratios(by).values()]
    return (f"| {name} ({n_models} models) | {split} | {share:.3g} | " + " | ".join(cells)
            + f" | {pub['runs'] - pub['failed_runs']}/{pub['runs']} | " + " | ".join(ratios) + " |")


def grid_header() -> str:
    """The grid table's header: coverage and half-width of every interval, then each posterior's ratio to v1."""
    names = interval_names()
    cols = ["setting", "split", "share", *(c for n in names for c in (f"{n}: coverage %", "± points")),
            "published: runs finished", *(f"{n} / v1" for n in _ratios({n: {"mean_half_width": 1.0}
                                                                          for n in names}))]
    return "| " + " | ".join(cols) + " |\n" + "|---" * len(cols) + "|"


def run_grid(args: argparse.Namespace) -> int:
    """Every cell of the grid, every interval on the same runs; then, per posterior, its mean and largest
    half-width ratio to v1 and its lowest coverage."""
    base = raw_params(REPO / "params.yaml")[0]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    print(grid_header())
    ratios: dict[str, list[float]] = {}
    lowest: dict[str, float] = {}
    results = []
    for row in GRIDS[args.grid]:
        params = setting_params(base, row.setting)
        cells = [(share, KAPPA_MAX) for share in row.shares]
        riddles = _riddles(base, params, row.setting.riddles)
        for cell in measure(params, riddles, seeds, cells, published_method="exact"):
            results.append({"setting": row.name, "n_models": len(params.models), **cell})
            for split, by in cell["splits"].items():
                print(_grid_line(row.name, len(params.models), cell["share"], split, by), flush=True)
                for name, ratio in _ratios(by).items():
                    ratios.setdefault(name, []).extend([] if ratio is None else [ratio])
                for name in interval_names():
                    if name != "published":
                        lowest[name] = min(lowest.get(name, 1.0), by[name]["coverage"])
    seconds = time.perf_counter() - t0
    print()
    for name, rs in ratios.items():
        print(f"half-width ratio {name} / v1 over {len(rs)} cells (v1 > 0): "
              f"mean {sum(rs) / len(rs):.3f}, largest {max(rs):.3f}")
    print("lowest coverage: " + ", ".join(f"{name} {100 * c:.1f}%" for name, c in lowest.items()))
    print(f"{seconds:.1f} s wall, seeds {seeds.start}..{seeds.stop - 1}; load average {load0:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end ({os.cpu_count()} cores)")
    if args.json:
        write_json(args.json, {"grid": args.grid, "seeds": [seeds.start, seeds.stop - 1], "results": results,
                               "ratios": ratios, "seconds": round(seconds, 1)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
