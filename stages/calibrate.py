"""calibrate@<split>: PPI-calibrated score and 95% interval per model (docs/method.md §3-4), and the raters'
audit of the split (§6, "Raters audited"), which the report and `sideways show --judges` read: the annotators on
every label of the split's label log (second labels too), as `sideways annotate stats` and the app audit them."""

from sideways.annotation.rater_labels import audit_labels
from sideways.artifacts import paths
from sideways.artifacts.failures import with_results
from sideways.artifacts.io import read_table, read_tables, write_json, write_table
from sideways.artifacts.schema import ANNOTATIONS, JUDGMENTS, JURY, PREDICTIONS, RIDDLES, SCORES
from sideways.config.params import load_params
from sideways.core import stage
from sideways.scoring.calibration import score_models
from sideways.scoring.rater_audit import audit_record
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
    # every model's replies and verdicts, read as the report reads them (the audit's digest is of these frames)
    predictions = read_tables([paths.predictions(args.split, k) for k in present], PREDICTIONS,
                              f"{args.split} predictions")
    judgments = read_tables([paths.judgments(args.split, k) for k in present], JUDGMENTS, f"{args.split} judgments")
    truth = None
    if sim:
        riddles = read_table(paths.split_table(args.split), RIDDLES)
        truth = true_scores(riddles, predictions[predictions["model"].isin(sim)], cal.field)
    scores = score_models(
        jury, labels, field=cal.field, method=cal.method, bootstrap=cal.bootstrap,
        seed=params.seed, empty_bin=cal.empty_bin, interval=cal.interval, posterior=cal.posterior,
        truth=truth, judgments=judgments if cal.posterior == "latent" else None, stream=args.split,
        cascade=params.jury.cascade.first,
    )
    raters = audit_labels(params.annotations.source_for(args.split), paths.LABELS, args.split, labels)
    audit = audit_record(jury, judgments, labels, predictions, seed=params.seed, split=args.split,
                         first=params.jury.cascade.first, raters=raters)
    write_table(scores.sort_values("model"), SCORES, paths.scores(args.split))
    write_json(paths.audit(args.split), audit)


if __name__ == "__main__":
    stage.run(main)
