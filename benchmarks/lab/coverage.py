"""Measured coverage of the 95% intervals: the simulated pipeline run in-process, without DVC.

One run is one seed: every simulated model answers every riddle of a split, its panel judges it,
the seeded annotators label ``share`` of each model's predictions, and both intervals are
computed (:func:`sideways.scoring.calibration.score_models`) against the finite-population truth
(the model's true score on these riddles, :func:`sideways.simulation.truth.true_scores`). The
same library functions as the pipeline's stages, called directly; no file is read or written.

A run whose published interval fails on an empty bin (``empty_bin: error``) is a run the
pipeline ranked by the published interval would not complete: it counts as failed for that
interval and gives it no coverage; the posterior interval never fails.

Every posterior of :data:`sideways.artifacts.schema.POSTERIORS` is measured on every run beside
the published interval (:func:`interval_names`), so a new posterior joins the grid by being
named there. A :class:`Setting` can also make the world harder than the one the methods were
built on: judges whose errors coincide on hard riddles, judges whose rates depend on the model,
models that reason right to a wrong answer, annotators who err.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from sideways.annotation.labels import seeded_sample, simulate_labels
from sideways.artifacts.schema import POSTERIORS
from sideways.config.params import Params, parse_params
from sideways.scoring.calibration import score_models
from sideways.scoring.jury import jury_table
from sideways.simulation.judges import simulate_judgments
from sideways.simulation.models import simulate_predictions
from sideways.simulation.truth import true_scores

#: Providers given to ``--models M`` simulated models, in turn (the default pool's four and one more).
PROVIDERS = ("openai", "gemini", "anthropic", "mistral", "together")


@dataclass(frozen=True)
class Setting:
    """The simulated world of a coverage grid's cells (label budgets are chosen per cell).
    None keeps what the base params.yaml says. The last five are the simulator's hard settings
    (every judge's ``correlation`` and ``model_spread``, every model's ``slip``, the annotators'
    ``noise``, every model's ``hidden_difficulty``; docs/method.md §6)."""

    models: int | None = None
    judge_quality: float | None = None
    self_bias: float | None = None
    riddles: int | None = None
    correlation: float | None = None
    model_spread: float | None = None
    slip: float | None = None
    label_noise: float | None = None
    hidden_difficulty: float | None = None


def share_for(per_riddle: float, n_models: int) -> float:
    """The label share that spends ``per_riddle`` labels per riddle over ``n_models`` models: min(1, K / M)."""
    if per_riddle <= 0 or n_models < 1:
        raise ValueError(f"share_for: need per_riddle > 0 and at least one model, got {per_riddle}, {n_models}")
    return min(1.0, per_riddle / n_models)


def setting_params(base: Mapping[str, Any], setting: Setting) -> Params:
    """``base`` (a loaded params.yaml) changed as ``setting`` says, validated like any params file.

    ``models``: that many simulated models, skills evenly spread over 0.3-0.9, providers in
    turn from :data:`PROVIDERS`; ``judge_quality``: sensitivity = specificity of every judge;
    ``self_bias``: every judge's bias towards its own provider; ``correlation``, ``model_spread``:
    every judge's; ``slip``, ``hidden_difficulty``: every model's; ``label_noise``: ``annotations.noise``.
    """
    data = copy.deepcopy(dict(base))
    if setting.models is not None:
        m = setting.models
        skills = [0.6] if m == 1 else [0.3 + 0.6 * i / (m - 1) for i in range(m)]
        data["models"] = {f"sim-{i:02d}": {"backend": "sim", "provider": PROVIDERS[i % len(PROVIDERS)],
                                           "name": f"sim-{i:02d}", "n_hints": 0, "skill": round(s, 4)}
                          for i, s in enumerate(skills)}
    for judge in data["jury"]["pool"].values():
        if setting.judge_quality is not None:
            judge["sensitivity"] = judge["specificity"] = setting.judge_quality
        if setting.self_bias is not None:
            judge["self_bias"] = setting.self_bias
        for key in ("correlation", "model_spread"):
            if getattr(setting, key) is not None:
                judge[key] = getattr(setting, key)
    for key in ("slip", "hidden_difficulty"):
        if getattr(setting, key) is not None:
            for model in data["models"].values():
                model[key] = getattr(setting, key)
    data["annotations"] = {**data.get("annotations", {}), "source": "sim"}
    if setting.label_noise is not None:
        data["annotations"]["noise"] = setting.label_noise
    return parse_params(data, source="coverage setting")


def resize_riddles(riddles: pd.DataFrame, count: int | None) -> pd.DataFrame:
    """``count`` riddles: the first ones, or all of them again and again as renamed copies
    (``<id>~<k>``: new ids, so every draw on a copy is new)."""
    if count is None:
        return riddles
    if count < 1:
        raise ValueError(f"resize_riddles: need at least one riddle, got {count}")
    parts = [riddles.assign(riddle_id=riddles["riddle_id"] + (f"~{k}" if k else ""))
             for k in range(math.ceil(count / len(riddles)))]
    return pd.concat(parts, ignore_index=True).head(count).reset_index(drop=True)


#: The riddle columns the simulation reads (no image: it is large and nobody simulated looks at it).
SIM_COLUMNS = ("riddle_id", "split", "answer", "justification", "description", "picarats")


def slim_riddles(riddles: pd.DataFrame) -> pd.DataFrame:
    """The riddle columns the simulation reads, as plain Python objects (fast to iterate row by row)."""
    return pd.DataFrame({c: riddles[c].astype(object).tolist() for c in SIM_COLUMNS})


def split_riddles(demo: pd.DataFrame, split: str, count: int | None = None) -> pd.DataFrame:
    """One split's riddles of ``demo`` in id order, slimmed for the simulator (:func:`slim_riddles`) and, with
    ``count``, resized (:func:`resize_riddles`): what every simulated run of a split starts from."""
    return resize_riddles(slim_riddles(demo[demo["split"] == split].sort_values("riddle_id")), count)


def simulate_run(params: Params, riddles: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(predictions, judgments, jury) of one simulated run (``seed``) of one split."""
    models = params.models
    predictions = pd.concat([simulate_predictions(riddles, m, seed) for m in models], ignore_index=True)
    panels = {m.key: [j.key for j in params.jury.panel(m.provider)] for m in models}
    # one call per judge over every model it judges: each verdict is seeded by (judge, model, riddle) alone
    judgments = pd.concat([
        simulate_judgments(riddles, predictions[predictions["model"].isin([k for k, p in panels.items()
                                                                            if j.key in p])], j, seed)
        for j in params.jury.pool if any(j.key in p for p in panels.values())
    ], ignore_index=True)
    return predictions, judgments, jury_table(judgments, predictions, panels)


def interval_names() -> tuple[str, ...]:
    """The intervals measured on every run: each posterior (by its ``calibration.posterior`` name) and
    the published one."""
    return (*POSTERIORS, "published")


def run_split(params: Params, riddles: pd.DataFrame, split: str, seed: int, cells: Sequence[tuple[float, float]],
              *, published_method: str) -> list[pd.DataFrame]:
    """For each (share, kappa_max) of ``cells``, the SCORES rows of one simulated run, truth filled in.

    The simulation is shared; each share draws its own labels (the pipeline's seeded coins, and
    ``annotations.noise``). The posterior ranks, so an empty bin leaves the published interval null
    instead of failing. The rows hold the published interval (``published_method``) in its own
    columns and, for every posterior ``name`` of :data:`POSTERIORS`, ``<name>_covered``,
    ``<name>_half_width`` and ``<name>_score`` (v1 with ``kappa_max``).
    """
    predictions, judgments, jury = simulate_run(params, riddles, seed)
    cal = params.calibration
    truth = true_scores(riddles, predictions, cal.field)
    out = []
    for share, kappa_max in cells:
        labels = simulate_labels(seeded_sample(predictions, share, seed, split), riddles, seed,
                                 params.annotations.noise)
        scores = None
        for name in POSTERIORS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the published interval's empty bins: counted from the nulls
                method = published_method if scores is None else "exact"  # the published interval: once
                got = score_models(jury, labels, field=cal.field, method=method, bootstrap=cal.bootstrap, seed=seed,
                                   empty_bin=cal.empty_bin, interval="posterior", kappa_max=kappa_max,
                                   posterior=name, truth=truth, judgments=judgments, stream=split)
            scores = got if scores is None else scores
            scores = scores.assign(**{f"{name}_covered": got["posterior_covered"].to_numpy(),
                                      f"{name}_half_width": got["posterior_half_width"].to_numpy(),
                                      f"{name}_score": got["posterior_score"].to_numpy()})
        assert scores is not None
        out.append(scores)
    return out


@dataclass
class Tally:
    """Coverage of one interval on one split, summed over runs."""

    runs: int = 0
    failed_runs: int = 0
    covered: int = 0
    intervals: int = 0
    half_widths: list[float] = field(default_factory=list)

    def add(self, covered: Sequence[bool], half_widths: Sequence[float], failed: bool) -> None:
        self.runs += 1
        if failed:
            self.failed_runs += 1
            return
        self.covered += sum(covered)
        self.intervals += len(covered)
        self.half_widths.extend(half_widths)

    def summary(self) -> dict[str, Any]:
        """coverage, its binomial standard error sqrt(c (1 - c) / intervals), and the mean half-width in points."""
        c = self.covered / self.intervals if self.intervals else math.nan
        return {
            "coverage": c,
            "se": math.sqrt(c * (1 - c) / self.intervals) if self.intervals else math.nan,
            "intervals": self.intervals,
            "runs": self.runs,
            "failed_runs": self.failed_runs,
            "mean_half_width": 100 * sum(self.half_widths) / len(self.half_widths) if self.half_widths else math.nan,
        }


def tally_run(scores: pd.DataFrame, tallies: Mapping[str, Tally]) -> None:
    """Add one run's SCORES rows (:func:`run_split`) to ``tallies[name]`` for every name of
    :func:`interval_names`. The published interval fails the run when any model's is null (an empty bin)."""
    for name in POSTERIORS:
        tallies[name].add(scores[f"{name}_covered"].astype(bool).tolist(),
                          scores[f"{name}_half_width"].tolist(), failed=False)
    failed = bool(scores["score"].isna().any())
    tallies["published"].add([] if failed else scores["covered"].astype(bool).tolist(),
                             [] if failed else scores["half_width"].tolist(), failed=failed)


def measure(params: Params, riddles: Mapping[str, pd.DataFrame], seeds: Sequence[int],
            cells: Sequence[tuple[float, float]], *, published_method: str = "layton") -> list[dict[str, Any]]:
    """One result per (share, kappa_max) of ``cells``: ``{"share", "kappa", "splits": {split:
    {name: summary for name in interval_names()}}}`` over ``seeds`` (:meth:`Tally.summary`)."""
    tallies = [{split: {name: Tally() for name in interval_names()} for split in riddles} for _ in cells]
    for split, table in riddles.items():
        for seed in seeds:
            runs = run_split(params, table, split, seed, cells, published_method=published_method)
            for scores, by_split in zip(runs, tallies, strict=True):
                tally_run(scores, by_split[split])
    return [{"share": share, "kappa": kappa,
             "splits": {split: {name: t.summary() for name, t in by_name.items()} for split, by_name in cell.items()}}
            for (share, kappa), cell in zip(cells, tallies, strict=True)]


@dataclass(frozen=True)
class GridRow:
    """One setting of a coverage grid and the label shares measured in it (one simulation per seed for all)."""

    name: str
    setting: Setting
    shares: tuple[float, ...]


#: Issue 30's grid: issue 10's (6 default models; default judges and judges at 0.97; per-riddle 1,
#: 3, 10 with 6 models = shares 1/6, 1/2, 1), issue 30's own cell, and the harder cells, each
#: moving one thing away from the default: 2 and 48 models, shares 0.05 to 0.5, judges at 0.7,
#: 120 and 500 riddles per split. (A row of self-biased judges, 0.97 with self-bias 0.3, was
#: dropped: a panel never holds a judge of the graded model's provider, so it was byte for byte
#: the judges-0.97 row; judges that favour some models are the hard grid's ``model_spread``.)
GRID = (
    GridRow("default", Setting(), (0.05, 1 / 6, 0.5, 1.0)),
    GridRow("judges 0.97", Setting(judge_quality=0.97), (1 / 6, 0.5, 1.0)),
    GridRow("8 models, judges 0.9", Setting(models=8, judge_quality=0.9), (0.25,)),
    GridRow("2 models", Setting(models=2), (0.05, 0.5)),
    GridRow("48 models", Setting(models=48), (0.05, 0.5)),
    GridRow("judges 0.7", Setting(judge_quality=0.7), (1 / 6, 0.5)),
    GridRow("120 riddles", Setting(riddles=120), (0.5,)),
    GridRow("500 riddles", Setting(riddles=500), (0.05, 0.5)),
)

#: The simulator's hard settings, one at a time and all together, at the default's shares 1/6 and 1/2:
#: judges that err together on hard riddles, judges whose rates depend on the model, the fourth
#: class (wrong answer, right justification), noisy annotators (docs/method.md §6).
HARD_GRID = (
    GridRow("judges err together (correlation 0.5)", Setting(correlation=0.5), (1 / 6, 0.5)),
    GridRow("judges 0.8 err together (correlation 0.7)", Setting(judge_quality=0.8, correlation=0.7), (1 / 6, 0.5)),
    GridRow("judges' rates depend on the model (spread 0.7)", Setting(model_spread=0.7), (1 / 6, 0.5)),
    GridRow("fourth class (slip 0.3)", Setting(slip=0.3), (1 / 6, 0.5)),
    GridRow("noisy annotators (0.05)", Setting(label_noise=0.05), (1 / 6, 0.5)),
    GridRow("all four", Setting(correlation=0.5, model_spread=0.7, slip=0.3, label_noise=0.05), (1 / 6, 0.5)),
    GridRow("riddles of real difficulty (sd 3)", Setting(hidden_difficulty=3.0), (1 / 6, 0.5)),
    GridRow("real difficulty, judges err together (sd 3, correlation 0.5)",
            Setting(hidden_difficulty=3.0, correlation=0.5), (1 / 6, 0.5)),
)

#: Every cell: issue 30's and the hard settings'.
FULL_GRID = GRID + HARD_GRID

#: A small grid for a test that pins the method: few models and riddles, two shares.
QUICK_GRID = (
    GridRow("quick", Setting(models=4, riddles=16), (0.25, 0.5)),
)
