"""Speed of the calibration: the straightforward reference procedure against sideways, same inputs.

Prints seconds per model for each and the ratio, then the issue-3 targets:
  1. layton mode at B = 10,000 vs the reference (per replicate: pandas sampling by bin + ppi_py's
     power-tuned PPI++, as layton-eval's compute_final_benchmark.py does). The reference runs at a
     reduced B (--ref-bootstrap) and is extrapolated linearly per replicate: its cost is
     B x (one replicate), nothing is amortised across replicates.
  2. 2 splits x 20 models at B = 10,000, including reading and writing Parquet.
  3. exact mode, per model.
  4. the whole `sideways leaderboard` command on the LLM file, wall clock (a fresh process).
Inputs: the published LLM calibration file ($SIDEWAYS_PPI_FILE or the copy vendored in
reproductions/layton-eval/data/) when present; otherwise a synthetic one of the same shape (said in the output).

Usage: python benchmarks/ppi_speed.py [--ref-bootstrap 200] [--ref-models 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sideways.artifacts.io import read_table, write_table  # noqa: E402
from sideways.artifacts.schema import ANNOTATIONS, FIELDS, JURY, SCORES  # noqa: E402
from sideways.layton_eval.convert import import_ppi  # noqa: E402
from sideways.layton_eval.source import read_ppi  # noqa: E402
from sideways.scoring.calibration import score_models  # noqa: E402
from sideways.scoring.jury import jury_table  # noqa: E402
from sideways.scoring.ranking import rank_leaderboard  # noqa: E402

DEFAULT_PPI = REPO / "reproductions" / "layton-eval" / "data" / "layton-eval-ppi-llm.figures.jsonl"
FIELD = "both_correct"
B = 10_000


def synthetic_ppi(n_models: int, n_riddles: int = 186, seed: int = 0, split: str = "llm") -> pd.DataFrame:
    """A layton-eval-ppi-shaped table: 4 judges, panels by provider, ~1/3 of rows human-labelled
    for the first models (some providers unlabelled, as in the published data)."""
    rng = np.random.default_rng(seed)
    judges = {"mistral-large-2512": "mistral", "claude-opus-4-5-20251101": "anthropic",
              "gpt-5.1-2025-11-13": "openai", "gemini-3-pro-preview": "gemini"}
    providers = ["openai", "anthropic", "gemini", "mistral", "together", "groq"]
    rows = []
    for m in range(n_models):
        provider = providers[m % len(providers)]
        panel = [j for j, p in judges.items() if p != provider][:3]
        skill = rng.uniform(0.2, 0.9)
        labelled = m < 2 * n_models // 3 and provider not in ("together", "groq")
        for r in range(n_riddles):
            truth = bool(rng.random() < skill)
            row = {"riddle_id": f"{split}-{r:03d}", "provider": provider, "model": f"model-{m:02d}", "n_hints": 0}
            for j in judges:
                for prefix in ("is_answer_correct_", "is_justification_correct_", "both_correct_"):
                    row[prefix + j] = (truth if rng.random() < 0.88 else not truth) if j in panel else None
            h = truth if labelled and rng.random() < 0.45 else None
            for f in FIELDS:
                row[f"human_{f}"] = h
            rows.append(row)
    return pd.DataFrame(rows).astype(object).where(lambda d: d.notna(), None)


def reference_inputs(jury: pd.DataFrame, annotations: pd.DataFrame, model: str) -> tuple[np.ndarray, pd.DataFrame, str]:
    """Float jury scores of ``model``, the whole table (provider, jury_score, human or NaN) and its provider."""
    provider = jury.loc[jury["model"] == model, "provider"].iloc[0]
    scores = jury.loc[(jury["model"] == model) & (jury[f"{FIELD}_judges"] > 0), f"{FIELD}_score"].to_numpy(float)
    table = jury.merge(annotations[["riddle_id", "model", f"human_{FIELD}"]], on=["riddle_id", "model"], how="left")
    table = table[table[f"{FIELD}_judges"] > 0]
    return scores, pd.DataFrame({"provider": table["provider"].to_numpy(),
                                 "jury_score": table[f"{FIELD}_score"].to_numpy(float),
                                 "human": table[f"human_{FIELD}"].astype(float).to_numpy()}), provider


def bench_reference(jury, annotations, models, ref_b) -> float | None:
    """Seconds per model at B = 10,000, extrapolated from ``ref_b`` replicates; None without ppi_py."""
    try:
        import ppi_py  # noqa: F401

        from lab.ppi_reference import reference_replicates
    except ImportError:
        print("  reference: ppi_py is not installed (pip install ppi-python==0.2.3, a test dependency); skipped")
        return None
    reference_replicates(*_args(jury, annotations, models[0], 2))  # warm-up: ppi_py's imports and numba
    per_rep = []
    exact = score_models(jury, annotations, field=FIELD, method="exact", bootstrap=0, seed=0).set_index("model")
    for model in models:
        args = _args(jury, annotations, model, ref_b)
        t = time.perf_counter()
        reps = reference_replicates(*args)
        per_rep.append((time.perf_counter() - t) / ref_b)
        lo, hi = np.percentile(reps, [2.5, 97.5])
        print(f"  same answer? {model}: reference [{lo:.4f}, {hi:.4f}] at B={ref_b}, "
              f"exact [{exact.loc[model, 'lo']:.4f}, {exact.loc[model, 'hi']:.4f}]")
    per_model = float(np.mean(per_rep)) * B
    print(f"  reference (pandas + ppi_py): {1e3 * np.mean(per_rep):.3f} ms per replicate, measured at B={ref_b} "
          f"on {len(models)} model(s), extrapolated to B={B}: {per_model:.2f} s per model")
    return per_model


def _args(jury, annotations, model, b):
    scores, table, provider = reference_inputs(jury, annotations, model)
    return scores, table, provider, b, 0


def bench_ours(jury, annotations, method: str, repeat: int = 5) -> float:
    n_models = jury["model"].nunique()
    score_models(jury, annotations, field=FIELD, method=method, bootstrap=B, seed=0)  # warm-up
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        score_models(jury, annotations, field=FIELD, method=method, bootstrap=B, seed=0)
        best = min(best, time.perf_counter() - t)
    return best / n_models


def bench_two_splits(tmp: Path) -> float:
    """2 splits x 20 models, B = 10,000: read jury + annotations Parquet, score, rank, write scores."""
    for split in ("llm", "vlm"):
        t = import_ppi(synthetic_ppi(20, seed=1 if split == "llm" else 2, split=split))
        write_table(jury_table(t.judgments, t.predictions, t.panels), JURY, tmp / f"jury_{split}.parquet")
        # object columns of Python bools: see the report on schema.conform and numpy 2's np.bool
        write_table(t.annotations.astype(object), ANNOTATIONS, tmp / f"annotations_{split}.parquet")
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for split in ("llm", "vlm"):
            jury = read_table(tmp / f"jury_{split}.parquet", JURY)
            annotations = read_table(tmp / f"annotations_{split}.parquet", ANNOTATIONS)
            scores = score_models(jury, annotations, field=FIELD, method="layton", bootstrap=B, seed=0)
            rank_leaderboard(scores)
            write_table(scores.astype({"covered": object}), SCORES, tmp / f"scores_{split}.parquet")
        best = min(best, time.perf_counter() - start)
    return best


def bench_command(ppi_file: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sideways.cli", "leaderboard", "--ppi-file", str(ppi_file),
                    "--bootstrap", str(B)], check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref-bootstrap", type=int, default=200, help="replicates for the reference (default 200)")
    parser.add_argument("--ref-models", type=int, default=3, help="models timed with the reference (default 3)")
    args = parser.parse_args()

    ppi_file = Path(os.environ.get("SIDEWAYS_PPI_FILE") or DEFAULT_PPI)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        if ppi_file.exists():
            print(f"inputs: {ppi_file.resolve()}")
        else:
            print(f"inputs: synthetic (9 models x 186 riddles; {ppi_file} not found)")
            ppi_file = tmp / "synthetic.jsonl"
            synthetic_ppi(9).to_json(ppi_file, orient="records", lines=True)
        t = import_ppi(read_ppi(ppi_file))
        jury = jury_table(t.judgments, t.predictions, t.panels)
        models = sorted(jury["model"].unique())

        print(f"\n1. layton mode, B = {B}, field {FIELD}, {len(models)} models")
        ref = bench_reference(jury, t.annotations, models[: args.ref_models], args.ref_bootstrap)
        ours = bench_ours(jury, t.annotations, "layton")
        print(f"  sideways layton: {1e3 * ours:.3f} ms per model")
        if ref is not None:
            print(f"  ratio: {ref / ours:,.0f}x faster (target >= 1000x)")

        print("\n2. 2 splits x 20 models, B = 10,000, with Parquet I/O")
        two = bench_two_splits(tmp)
        print(f"  {two:.3f} s (target < 0.5 s)")

        print("\n3. exact mode")
        ex = bench_ours(jury, t.annotations, "exact")
        print(f"  sideways exact: {1e3 * ex:.3f} ms per model (target < 5 ms)")

        print("\n4. `sideways leaderboard` (layton, B = 10,000), fresh process")
        wall = min(bench_command(ppi_file) for _ in range(3))
        print(f"  {wall:.2f} s wall (target < 3 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
