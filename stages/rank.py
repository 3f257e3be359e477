"""rank@<split>: ranks, rank sets, rank spreads and tie groups; the leaderboard metrics (and its narrow
views: each model's score, each model's rank set), pairwise differences and plot data for DVC."""

from sideways.artifacts import paths
from sideways.artifacts.io import read_table, write_json
from sideways.artifacts.schema import ANNOTATIONS, JURY, SCORES
from sideways.core import stage
from sideways.scoring.leaderboard import headline, leaderboard_metrics, plot_rows, rank_set_view, with_pairwise
from sideways.scoring.pairwise import pairwise
from sideways.scoring.ranking import rank_leaderboard


def main() -> None:
    args = stage.arguments("split")
    ranked = rank_leaderboard(read_table(paths.scores(args.split), SCORES))
    pairs = pairwise(ranked, read_table(paths.jury(args.split), JURY),
                     read_table(paths.annotations(args.split), ANNOTATIONS))
    ranked = with_pairwise(ranked, pairs)
    write_json(paths.leaderboard(args.split), leaderboard_metrics(ranked))
    write_json(paths.headline(args.split), headline(ranked))
    write_json(paths.rank_sets(args.split), rank_set_view(ranked))
    write_json(paths.pairwise(args.split), pairs, compact=True)  # 20,000 pairs at 200 models: one line
    write_json(paths.plot(args.split), plot_rows(ranked))


if __name__ == "__main__":
    stage.run(main)
