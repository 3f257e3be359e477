"""How ``sideways diff`` behaves, measured in simulation, in-process (docs/method.md §8).

- **Null changes.** Version A and version B share the models, their predictions and so the
  truth; what should not matter is redrawn: B's judges and annotators use another seed (other
  judge noise, other predictions labelled). Every row of such a diff should say "no detectable
  change".
- **Power.** B is A with one model truly better by k riddles: k of its wrong predictions are
  replaced by the right ones its stronger self gives (same judges' and annotators' seeds, as a
  rerun of the pipeline would have; or, with ``redraw``, other seeds for them too). The share of
  runs whose diff calls that model "up" is the power to detect a change of k / n.

The same library functions as the pipeline's stages, called directly; no file is read or written.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from lab.coverage import simulate_run
from sideways.annotation.labels import seeded_sample, simulate_labels
from sideways.artifacts.schema import records_by
from sideways.config.options import SimModelOptions
from sideways.config.params import ModelSpec, Params
from sideways.scoring.calibration import score_models
from sideways.scoring.changes import SplitVersion, split_changes
from sideways.scoring.jury import jury_table
from sideways.scoring.verdicts import SAME, UP, Difference, bh_adjusted, verdict
from sideways.simulation.judges import simulate_judgments
from sideways.simulation.models import simulate_predictions
from sideways.simulation.truth import truth

SCORES_STUB = {"interval": "posterior", "posterior_score_pct": 0.0, "posterior_ci_pct": 0.0}


def judge_all(params: Params, riddles: pd.DataFrame, predictions: pd.DataFrame,
              seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the jury table, every judge's verdicts) of ``predictions``, every panel's judges drawing with ``seed``."""
    panels = {m.key: [j.key for j in params.jury.panel(m.provider)] for m in params.models}
    judgments = pd.concat([
        simulate_judgments(riddles, predictions[predictions["model"].isin([k for k, p in panels.items()
                                                                            if j.key in p])], j, seed)
        for j in params.jury.pool if any(j.key in p for p in panels.values())
    ], ignore_index=True)
    return jury_table(judgments, predictions, panels), judgments


def version(name: str, params: Params, riddles: pd.DataFrame, predictions: pd.DataFrame, split: str,
            seed: int, judged: tuple[pd.DataFrame, pd.DataFrame] | None = None) -> SplitVersion:
    """A version of a split: its jury (judges seeded by ``seed``), simulated labels (``seed``) and scores.
    Under a posterior with a prior (latent, hierarchical) the scores are computed as the calibrate stage
    does (its fit seeded by params' seed and the split, as in a rerun), so the paired draws read that prior;
    v1's draws need none (a stub)."""
    jury, judgments = judge_all(params, riddles, predictions, seed) if judged is None else judged
    labels = simulate_labels(seeded_sample(predictions, params.annotations.share, seed, split), riddles, seed,
                             params.annotations.noise)
    cal = params.calibration
    if cal.posterior == "v1":
        scores = pd.DataFrame([{"model": m.key, "field": cal.field, **SCORES_STUB} for m in params.models])
    else:
        with warnings.catch_warnings():  # the published interval's empty bins: not what a diff reads
            warnings.simplefilter("ignore")
            scores = score_models(jury, labels, field=cal.field, method="exact", bootstrap=0, seed=params.seed,
                                  interval="posterior", posterior=cal.posterior, judgments=judgments, stream=split)
    return SplitVersion(name, jury, labels, scores)


def pipeline_version(name: str, params: Params, riddles: pd.DataFrame, split: str = "llm") -> SplitVersion:
    """One version of a split as the pipeline computes it from ``params``: predictions and jury drawn with its seed,
    the labels of ``annotations.share`` (and ``annotations.noise``), and the scores the calibrate stage writes under
    its ``calibration`` (an empty bin takes the nearest, as the posterior interval ranks)."""
    predictions, judgments, jury = simulate_run(params, riddles, params.seed)
    labels = simulate_labels(seeded_sample(predictions, params.annotations.share, params.seed, split), riddles,
                             params.seed, params.annotations.noise)
    cal = params.calibration
    scores = score_models(jury, labels, field=cal.field, method=cal.method, bootstrap=cal.bootstrap,
                          seed=params.seed, empty_bin="nearest", interval=cal.interval, posterior=cal.posterior,
                          judgments=judgments, stream=split)
    return SplitVersion(name, jury, labels, scores)


def verdicts(a: SplitVersion, b: SplitVersion, split: str, *, seed: int, replicates: int) -> dict[str, str]:
    """Each model's verdict in the diff of ``a`` and ``b``, Benjamini-Hochberg over the diff's rows."""
    rows = split_changes(split, a, b, seed=seed, replicates=replicates).rows
    qs = bh_adjusted([r["p"] for r in rows])
    return {r["model"]: verdict(Difference(r["change"], r["lo"], r["hi"], r["se"], r["p"]), q)
            for r, q in zip(rows, qs, strict=True)}


def null_run(params: Params, riddles: pd.DataFrame, split: str, seed: int, *, replicates: int) -> list[str]:
    """The verdicts of one null diff: predictions of ``seed``; judges and labels of ``seed`` in A,
    of another seed in B."""
    predictions = pd.concat([simulate_predictions(riddles, m, seed) for m in params.models], ignore_index=True)
    a = version("A", params, riddles, predictions, split, seed)
    b = version("B", params, riddles, predictions, split, seed + 1_000_003)
    return list(verdicts(a, b, split, seed=seed, replicates=replicates).values())


def _right(riddles: pd.DataFrame, predictions: pd.DataFrame) -> np.ndarray:
    by_id = records_by(riddles, "riddle_id")
    return np.array([all(truth(by_id[p["riddle_id"]], p["answer"], p["justification"]))
                     for p in predictions.to_dict("records")])


def improved(riddles: pd.DataFrame, model: ModelSpec, seed: int, k: int) -> tuple[pd.DataFrame, int]:
    """``model``'s predictions with up to ``k`` wrong ones (a seeded choice) replaced by its
    stronger self's right ones, and how many were replaced."""
    opts = model.options
    assert isinstance(opts, SimModelOptions)
    strong = replace(model, options=replace(opts, skill=0.999, vision_skill=0.999, justification=1.0))
    weak, good = simulate_predictions(riddles, model, seed), simulate_predictions(riddles, strong, seed)
    candidates = np.flatnonzero(~_right(riddles, weak) & _right(riddles, good))
    chosen = np.random.default_rng([seed, k]).permutation(candidates)[:k]
    out = weak.copy()
    out.iloc[chosen] = good.iloc[chosen].to_numpy()
    return out, len(chosen)


def power_run(params: Params, riddles: pd.DataFrame, split: str, seed: int, model: str, k: int, *,
              replicates: int, redraw: bool = False) -> tuple[int, str, list[str]]:
    """(riddles changed, the changed model's verdict, the other models' verdicts) of one diff;
    ``redraw``: B's judges and annotators also draw with another seed (a change plus a null one)."""
    spec = next(m for m in params.models if m.key == model)
    others = pd.concat([simulate_predictions(riddles, m, seed) for m in params.models if m.key != model],
                       ignore_index=True)
    before = pd.concat([others, simulate_predictions(riddles, spec, seed)], ignore_index=True)
    changed, done = improved(riddles, spec, seed, k)
    after = pd.concat([others, changed], ignore_index=True)
    seed_b = seed + 1_000_003 if redraw else seed
    a = version("A", params, riddles, before, split, seed, judge_all(params, riddles, before, seed))
    b = version("B", params, riddles, after, split, seed_b, judge_all(params, riddles, after, seed_b))
    got = verdicts(a, b, split, seed=seed, replicates=replicates)
    return done, got.pop(model), list(got.values())


def null_rate(params: Params, riddles: pd.DataFrame, split: str, seeds: Sequence[int], *,
              replicates: int) -> dict[str, Any]:
    """Rows called "no detectable change" over null diffs of ``seeds``: ``{rows, same, rate, runs_clean}``."""
    runs = [null_run(params, riddles, split, s, replicates=replicates) for s in seeds]
    rows = [v for run in runs for v in run]
    same = sum(v == SAME for v in rows)
    return {"rows": len(rows), "same": same, "rate": same / len(rows) if rows else float("nan"),
            "runs_clean": sum(all(v == SAME for v in run) for run in runs), "runs": len(runs)}


def power(params: Params, riddles: pd.DataFrame, split: str, seeds: Sequence[int], model: str, points: float, *,
          replicates: int, redraw: bool = False) -> dict[str, Any]:
    """Share of ``seeds`` whose diff calls ``model`` up when it truly gained ``points`` (rounded to
    whole riddles, at least one), and the other models' false calls."""
    k = max(1, round(points / 100 * len(riddles)))
    runs = [power_run(params, riddles, split, s, model, k, replicates=replicates, redraw=redraw) for s in seeds]
    full = [r for r in runs if r[0] == k]
    others = [v for r in full for v in r[2]]
    return {"points": points, "redraw": redraw, "riddles": len(riddles), "k": k, "true_change": 100 * k / len(riddles),
            "runs": len(full), "detected": sum(r[1] == UP for r in full),
            "power": sum(r[1] == UP for r in full) / len(full) if full else float("nan"),
            "others_called": sum(v != SAME for v in others), "others": len(others)}
