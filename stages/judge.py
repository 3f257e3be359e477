"""judge@<model>-<split>: the model's panel (method.md 2) grades each of its predictions."""

import pandas as pd

from sideways import paths, stage
from sideways.artifacts import read_table, write_table
from sideways.backends import judge_for
from sideways.schema import JUDGMENTS, PREDICTIONS, RIDDLES


def main() -> None:
    args = stage.arguments("model", "split")
    params = stage.load_params(args.params)
    model = params.model(args.model)
    riddles = read_table(paths.split_table(args.split), RIDDLES)
    predictions = read_table(paths.predictions(args.split, model.key), PREDICTIONS)
    ctx = stage.context(params)
    verdicts = [judge_for(j).judge(riddles, predictions, j, ctx) for j in params.jury.panel(model.provider)]
    table = pd.concat(verdicts, ignore_index=True).sort_values(["riddle_id", "judge"])
    write_table(table, JUDGMENTS, paths.judgments(args.split, model.key))


if __name__ == "__main__":
    stage.run(main)
