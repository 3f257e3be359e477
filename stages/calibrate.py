"""calibrate@<split>: PPI-calibrated score and 95% interval per model (docs/method.md §3-4)."""

from sideways.artifacts import paths
from sideways.artifacts.failures import with_results
from sideways.artifacts.io import read_table, read_tables, write_table
from sideways.artifacts.schema import ANNOTATIONS, JUDGMENTS, JURY, PREDICTIONS, RIDDLES, SCORES
from sideways.config.params import load_params
from sideways.core import stage
from sideways.scoring.calibration import score_models
from sideways.simulation.truth import true_scores


def main() -> None:
    args = stage.arguments("split")
    params = load_params(args.params)
    cal = params.calibration
    jury = read_table(paths.jury(args.split), JURY)
    labels = read_table(paths.annotations(args.split), ANNOTATIONS)
    # as params says, never a glob, less the models whose paid jobs failed (no verdicts yet: off the board)
    present = with_results([m.key for m in params.models_taking(args.split)], args.split)
    sim = [m.key for m in params.models_taking(args.split) if m.capabilities.simulated and m.key in present]
    truth = None
    if sim:
        riddles = read_table(paths.split_table(args.split), RIDDLES)
        sources = [paths.predictions(args.split, k) for k in sim]
        predictions = read_tables(sources, PREDICTIONS, f"{args.split} predictions")
        truth = true_scores(riddles, predictions, cal.field)
    judgments = None
    if cal.posterior == "latent":  # every judge's verdicts, not only the jury's counts (docs/method.md §6)
        judgments = read_tables([paths.judgments(args.split, k) for k in present], JUDGMENTS,
                                f"{args.split} judgments")
    scores = score_models(
        jury, labels, field=cal.field, method=cal.method, bootstrap=cal.bootstrap,
        seed=params.seed, empty_bin=cal.empty_bin, interval=cal.interval, posterior=cal.posterior,
        truth=truth, judgments=judgments, stream=args.split, cascade=params.jury.cascade.first,
    )
    write_table(scores.sort_values("model"), SCORES, paths.scores(args.split))


if __name__ == "__main__":
    stage.run(main)
