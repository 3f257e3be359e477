"""CPU seconds of the calibrate stage's work (score_models) per posterior, on one simulated split.

Usage:
  python benchmarks/studies/posterior_speed.py [--models default,48] [--share 0.1667] [--repeats 3] [--seed 0]

For each model count (`default`: params.yaml's models, or a number of simulated models, as in
benchmarks/interval_coverage.py), one simulated run of the llm split (the demo's riddles,
params.yaml's judges), labels drawn at `--share`; then `score_models` as the calibrate stage
calls it, for every `calibration.posterior` (v1, hierarchical, latent). Prints the least CPU
seconds (process time: what the work costs, whatever else runs on the machine) and wall seconds
over `--repeats`, and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab


from lab.coverage import Setting, setting_params, simulate_run, split_riddles  # noqa: E402
from sideways.annotation.labels import seeded_sample, simulate_labels  # noqa: E402
from sideways.artifacts.schema import POSTERIORS  # noqa: E402
from sideways.config.params import raw_params  # noqa: E402
from sideways.scoring.calibration import score_models  # noqa: E402
from sideways.sources.demo import load_demo  # noqa: E402

SPLIT = "llm"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="default,48", help="model counts, comma-separated (`default`: params.yaml's)")
    p.add_argument("--share", type=float, default=1 / 6, help="share of each model's predictions labelled")
    p.add_argument("--repeats", type=int, default=3, help="timed calls per posterior (the least is printed)")
    p.add_argument("--seed", type=int, default=0, help="the simulated run's seed")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    base = raw_params(REPO / "params.yaml")[0]
    demo = load_demo(REPO / base["riddles"]["path"])
    riddles = split_riddles(demo, SPLIT)
    load0 = os.getloadavg()[0]
    print("| models | predictions | labels | posterior | CPU s | wall s |\n|---|---|---|---|---|---|")
    for count in args.models.split(","):
        params = setting_params(base, Setting(models=None if count == "default" else int(count)))
        predictions, judgments, jury = simulate_run(params, riddles, args.seed)
        labels = simulate_labels(seeded_sample(predictions, args.share, args.seed, SPLIT), riddles, args.seed,
                                 params.annotations.noise)
        for posterior in POSTERIORS:
            cpu, wall = [], []
            for _ in range(args.repeats):
                c0, w0 = time.process_time(), time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the published interval's empty bins
                    score_models(jury, labels, field="both_correct", method="exact", bootstrap=0, seed=args.seed,
                                 posterior=posterior, judgments=judgments, stream=SPLIT)
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            print(f"| {len(params.models)} | {len(jury)} | {len(labels)} | {posterior} | {min(cpu):.2f} | "
                  f"{min(wall):.2f} |", flush=True)
    print(f"\nload average {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end ({os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
