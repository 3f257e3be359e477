"""predict@<model>-<split>: one model answers every riddle of one split."""

from sideways import paths, stage
from sideways.artifacts import read_table, write_table
from sideways.backends import predictor_for
from sideways.checks import require_complete
from sideways.schema import PREDICTIONS, RIDDLES


def main() -> None:
    args = stage.arguments("model", "split")
    params = stage.load_params(args.params)
    model = params.model(args.model)
    riddles = read_table(paths.split_table(args.split), RIDDLES)
    predictions = predictor_for(model).predict(riddles, model, stage.context(params))
    require_complete(predictions, riddles, model.key, f"predict@{model.key}-{args.split}")
    write_table(predictions.sort_values("riddle_id"), PREDICTIONS, paths.predictions(args.split, model.key))


if __name__ == "__main__":
    stage.run(main)
