"""jury@<split>: per (riddle, model), the panel's vote counts for each field (docs/method.md §2)."""

from sideways.artifacts import paths
from sideways.artifacts.checks import require_each_complete
from sideways.artifacts.failures import with_results
from sideways.artifacts.io import read_table, read_tables, write_table
from sideways.artifacts.schema import JUDGMENTS, JURY, PREDICTIONS, RIDDLES
from sideways.config.params import load_params
from sideways.core import stage
from sideways.scoring.jury import jury_table


def main() -> None:
    args = stage.arguments("split")
    params = load_params(args.params)
    riddles = read_table(paths.split_table(args.split), RIDDLES)
    # as params says, never a glob (docs/design.md), less the models whose jobs failed (docs/design.md, "Failed jobs")
    keys = with_results([m.key for m in params.models_taking(args.split)], args.split)
    sources = {k: paths.predictions(args.split, k) for k in keys}
    predictions = read_tables(list(sources.values()), PREDICTIONS, f"{args.split} predictions")
    require_each_complete(predictions, riddles["riddle_id"], sources)
    judgments = read_tables([paths.judgments(args.split, k) for k in keys], JUDGMENTS, f"{args.split} judgments")
    panels = {m.key: [j.key for j in params.jury.panel(m.provider)] for m in params.models_taking(args.split)
              if m.key in keys}
    table = jury_table(judgments, predictions, panels)
    write_table(table.sort_values(["model", "riddle_id"]), JURY, paths.jury(args.split))


if __name__ == "__main__":
    stage.run(main)
