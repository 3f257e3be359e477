"""How many human labels each annotation queue needs to reach a mean half-width.

Usage:
  python benchmarks/studies/label_policies.py [--seeds N] [--first-seed S0] [--splits llm vlm] [--posterior latent]
                                              [--target POINTS] [--step 3]
                                              [--policies random,holes,width,uncertain,latent,lookahead]
                                              [--refit N] [--json OUT] [--quick]

One simulated run per seed and split (params.yaml's 6 models and judges, the demo riddles, the
in-process pipeline of lab.coverage). Six policies order the predictions to label:

- `random`: a seeded shuffle (what labelling a random sample does);
- `holes`: the annotation app's queue before issue 30 (empty jury-score bins first, then spread);
- `width`: the label expected to narrow v1's posterior intervals most (v1's closed form);
- `latent`: the label expected to narrow the latent posterior's intervals most (the `width` gain with each
  (model, bin)'s rate and its uncertainty from the latent-class fit on the verdicts, refitted as `uncertain` is;
  the labels since the last fit counted in closed form);
- `lookahead`: the app's default queue: the label expected to narrow the latent posterior's own interval most,
  looking up to 8 labels ahead in a cell with outcomes under 1% left out (sideways.annotation_app.lookahead, the
  latent-class fit on the verdicts alone as each row's start, its gains updated after every label);
- `uncertain`: the predictions whose truth the latent-class model,
  fitted on the verdicts (and, with `--refit N`, again every N labels on the labels so far, as the app refits in
  the background), is least sure of (largest p (1 - p)), ties by the queue's seeded coin. A label there
  teaches the judges' behaviour on the patterns that are rare and ambiguous, for every model at once.

Every policy but `random` is the app's own queue (`sideways.annotation_app.queue.next_item`,
one annotator, labels = the simulated truth). The target is today's mean half-width: the v1 posterior interval with the
pipeline's default labels (`annotations.share` 0.5, the seeded sample), averaged over the models.
For each policy the script finds the fewest labels after which the leaderboard's mean half-width,
by the posterior interval `--posterior` (default: latent), is at or under that target (`--target`
points instead of today's, when given), by bisection over multiples of `step` labels (the half-width
shrinks with labels, up to noise), and prints the mean over seeds and the saving against random.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # lab: the shared code of benchmarks/lab

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from lab.coverage import Setting, setting_params, simulate_run, split_riddles  # noqa: E402
from sideways.annotation.labels import seeded_sample, simulate_labels  # noqa: E402
from sideways.annotation.log import Event  # noqa: E402
from sideways.annotation.rater_labels import event_labels  # noqa: E402
from sideways.annotation_app import lookahead  # noqa: E402
from sideways.annotation_app.latent_gain import fit_for as latent_fit_for  # noqa: E402
from sideways.annotation_app.queue import Candidate, Plan, next_item  # noqa: E402
from sideways.annotation_app.uncertain import fit_for  # noqa: E402
from sideways.artifacts.io import write_json  # noqa: E402
from sideways.config.params import Params, raw_params  # noqa: E402
from sideways.scoring.calibration import jury_bins, score_models  # noqa: E402
from sideways.simulation.truth import truth  # noqa: E402
from sideways.sources.demo import load_demo  # noqa: E402

POLICIES = ("random", "holes", "width", "uncertain", "latent", "lookahead")
FIELD = "both_correct"


def candidates(jury: pd.DataFrame) -> list[Candidate]:
    """Every prediction with a jury score for the field, as the app's queue sees it."""
    scored = jury[jury[f"{FIELD}_judges"] > 0]
    bins = jury_bins(scored[f"{FIELD}_votes"].to_numpy(), scored[f"{FIELD}_judges"].to_numpy())
    return [Candidate(r, m, p, b) for r, m, p, b in
            zip(scored["riddle_id"], scored["model"], scored["provider"], bins, strict=True)]


def order(policy: str, pool: list[Candidate], right: dict[tuple[str, str], bool], seed: int, split: str,
          limit: int) -> list[Candidate]:
    """The first ``limit`` predictions ``policy`` has labelled, in order."""
    if policy == "random":
        return [pool[i] for i in np.random.default_rng(seed).permutation(len(pool))[:limit]]
    plan = Plan(seed, split, len(pool), 0.0, policy=policy, field=FIELD)
    events: list[Event] = []
    chosen: list[Candidate] = []
    while len(chosen) < limit:
        c = next_item(plan, pool, events, "sim")
        if c is None:
            break
        chosen.append(c)
        events.append(truth_label(c, right, len(events) + 1))
    return chosen


def truth_label(c: Candidate, right: dict[tuple[str, str], bool], line: int) -> Event:
    """The simulated annotator's label of ``c``: the truth, on both fields, as line ``line`` of the log."""
    ok = right[c.key]
    return Event("label", c.riddle_id, c.model, "sim", line,
                 {"human_answer_correct": ok, "human_justification_correct": ok})


def uncertain_order(pool: list[Candidate], jury: pd.DataFrame, judgments: pd.DataFrame,
                    right: dict[tuple[str, str], bool], seed: int, split: str, refit: int = 0,
                    limit: int | None = None, policy: str = "uncertain") -> list[Candidate]:
    """The app's ``uncertain`` queue (one annotator whose labels are the truth): the latent-class model's uncertainty
    about each prediction, fitted on the verdicts alone, largest p (1 - p) first, ties by the queue's coin; with
    ``refit`` > 0 the model is fitted again every ``refit`` labels on the labels so far (the app's background refit).
    ``policy="latent"``: the app's ``latent`` queue on the same fits (its per-cell fit, the labels since counted)."""
    fit: Any = (latent_fit_for if policy == "latent" else fit_for)(jury, judgments, FIELD, seed, split)
    plan = Plan(seed, split, len(pool), 0.0, policy=policy, field=FIELD)
    events: list[Event] = []
    chosen: list[Candidate] = []
    scores = fit(pd.DataFrame())
    limit = len(pool) if limit is None else limit
    while len(chosen) < limit:
        if refit and chosen and len(chosen) % refit == 0:
            scores = fit(event_labels(events))
        c = (next_item(plan, pool, events, "sim", fit=scores) if policy == "latent"
             else next_item(plan, pool, events, "sim", scores=scores))
        if c is None:
            break
        chosen.append(c)
        events.append(truth_label(c, right, len(events) + 1))
    return chosen


def lookahead_order(pool: list[Candidate], jury: pd.DataFrame, judgments: pd.DataFrame,
                    right: dict[tuple[str, str], bool], seed: int, split: str,
                    limit: int | None = None) -> list[Candidate]:
    """The app's ``lookahead`` queue (one annotator whose labels are the truth): every row started at the
    latent-class fit of the verdicts alone, its gains updated after every label (the app updates them in the
    background as each label lands); the first ``limit`` (default: every prediction)."""
    gains = lookahead.fit_for(pool, jury, judgments, FIELD, seed, split)
    plan = Plan(seed, split, len(pool), 0.0, policy="lookahead", field=FIELD)
    events: list[Event] = []
    chosen: list[Candidate] = []
    fit = gains(pd.DataFrame())
    limit = len(pool) if limit is None else limit
    while len(chosen) < limit and (c := next_item(plan, pool, events, "sim", fit=fit)) is not None:
        chosen.append(c)
        events.append(truth_label(c, right, len(events) + 1))
        fit = gains(event_labels(events))
    return chosen


def mean_half_width(jury: pd.DataFrame, labels: pd.DataFrame, seed: int, posterior: str,
                    judgments: pd.DataFrame | None = None, split: str = "") -> float:
    """The leaderboard's mean posterior half-width in points."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = score_models(jury, labels, field=FIELD, method="exact", bootstrap=1, seed=seed,
                              empty_bin="nearest", interval="posterior", posterior=posterior,
                              judgments=judgments, stream=split)
    return 100 * float(scores["posterior_half_width"].mean())


def labels_needed(chosen: list[Candidate], predictions: pd.DataFrame, riddles: pd.DataFrame, jury: pd.DataFrame,
                  seed: int, target: float, step: int, posterior: str = "latent",
                  judgments: pd.DataFrame | None = None, split: str = "") -> int | None:
    """The fewest labels (a multiple of ``step``, by bisection) of ``chosen`` whose mean half-width is <= ``target``."""
    index = predictions.set_index(["riddle_id", "model"])

    def reached(n: int) -> bool:
        sample = index.loc[[c.key for c in chosen[:n]]].reset_index()
        return mean_half_width(jury, simulate_labels(sample, riddles, seed), seed, posterior, judgments,
                               split) <= target

    lo, hi = 0, -(-len(chosen) // step)  # in steps: reached(hi) is checked, reached(lo) assumed not
    if not reached(min(hi * step, len(chosen))):
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reached(mid * step) else (mid, hi)
    return min(hi * step, len(chosen))


def one_run(params: Params, riddles: pd.DataFrame, split: str, seed: int, step: int, posterior: str = "latent",
            target: float | None = None, policies: tuple[str, ...] = POLICIES, refit: int = 0) -> dict[str, Any]:
    """Target and labels needed per policy, for one seed and split."""
    predictions, judgments, jury = simulate_run(params, riddles, seed)
    by_id = riddles.set_index("riddle_id").to_dict("index")
    right = {(r, m): all(truth(by_id[r], a, j)) for r, m, a, j in
             zip(predictions["riddle_id"], predictions["model"], predictions["answer"], predictions["justification"],
                 strict=True)}
    today = simulate_labels(seeded_sample(predictions, params.annotations.share, seed, split), riddles, seed)
    target = mean_half_width(jury, today, seed, "v1") if target is None else target
    pool = candidates(jury)
    out: dict[str, Any] = {"split": split, "seed": seed, "target": target, "today_labels": len(today)}
    for policy in policies:
        if policy == "lookahead":
            chosen = lookahead_order(pool, jury, judgments, right, seed, split)
        elif policy in ("uncertain", "latent"):
            chosen = uncertain_order(pool, jury, judgments, right, seed, split, refit, policy=policy)
        else:
            chosen = order(policy, pool, right, seed, split, len(pool))
        out[policy] = labels_needed(chosen, predictions, riddles, jury, seed, target, step, posterior, judgments, split)
    return out


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--splits", nargs="+", default=["llm", "vlm"])
    p.add_argument("--step", type=int, default=3, help="check the half-width every STEP labels (default 3)")
    p.add_argument("--posterior", default="latent", help="the posterior whose mean half-width counts (default: latent)")
    p.add_argument("--target", type=float, help="the mean half-width to reach, in points (default: today's, v1)")
    p.add_argument("--policies", default=",".join(POLICIES), help="which orders, comma-separated (default: all)")
    p.add_argument("--refit", type=int, default=0,
                   help="uncertain, latent: fit the latent-class model again every REFIT labels "
                   "(default 0: verdicts alone)")
    p.add_argument("--quick", action="store_true", help="3 models, 12 riddles, 2 seeds: a smoke run for the tests")
    p.add_argument("--json", metavar="OUT")
    return p.parse_args(argv)


def _summary(runs: list[dict[str, Any]], split: str) -> str:
    mine = [r for r in runs if r["split"] == split]
    done = {p: [r[p] for r in mine if r.get(p) is not None] for p in POLICIES}
    mean = {p: (sum(v) / len(v) if v else float("nan")) for p, v in done.items()}
    cells = " | ".join(f"{mean[p]:.1f} ({len(done[p])}/{len(mine)})" for p in POLICIES)
    saving = {p: 1 - mean[p] / mean["random"] if done["random"] and done[p] else float("nan")
              for p in POLICIES[2:]}
    today = sum(r["today_labels"] for r in mine) / len(mine)
    target = sum(r["target"] for r in mine) / len(mine)
    savings = " | ".join(f"{100 * saving[p]:.0f}%" for p in POLICIES[2:])
    return f"| {split} | {target:.2f} | {today:.1f} | {cells} | {savings} |"


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    base = raw_params(REPO / "params.yaml")[0]
    setting = Setting(models=3, riddles=12) if args.quick else Setting()
    params = setting_params(base, setting)
    demo = load_demo(REPO / base["riddles"]["path"])
    policies = tuple(p.strip() for p in args.policies.split(","))
    if set(policies) - set(POLICIES):
        raise SystemExit(f"--policies: unknown {', '.join(sorted(set(policies) - set(POLICIES)))}")
    seeds = range(args.first_seed, args.first_seed + (2 if args.quick else args.seeds))
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    runs = []
    for split in args.splits:
        riddles = split_riddles(demo, split, setting.riddles)
        runs += [one_run(params, riddles, split, seed, args.step, args.posterior, args.target, policies, args.refit)
                 for seed in seeds]
    print(f"{len(params.models)} models, seeds {seeds.start}..{seeds.stop - 1}, the {args.posterior} posterior's "
          f"mean half-width, labels counted in steps of {args.step}; uncertain refits every {args.refit or 'never'}")
    print("| split | target: mean half-width, points | today's labels | labels to reach it: "
          + " | ".join(POLICIES) + " | " + " | ".join(f"{p} saves vs random" for p in POLICIES[2:]) + " |")
    print("|---" * (3 + len(POLICIES) + len(POLICIES[2:])) + "|")
    for split in args.splits:
        print(_summary(runs, split))
    seconds = time.perf_counter() - t0
    print(f"\n{seconds:.1f} s wall; load average {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
    if args.json:
        write_json(args.json, {"runs": runs, "seconds": round(seconds, 1)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
