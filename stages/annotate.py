"""annotate@<split>: human labels, simulated (default) or read from data/labels/<split>.jsonl|parquet
(``annotations.source``, one for every split or one per split); no label file yet is zero labels."""

import sys

import pandas as pd

from sideways.annotation.labels import label_file, no_labels_yet, read_label_file, seeded_sample, simulate_labels
from sideways.artifacts import paths
from sideways.artifacts.failures import with_results
from sideways.artifacts.io import read_table, read_tables, write_table
from sideways.artifacts.schema import ANNOTATIONS, PREDICTIONS, RIDDLES, conform
from sideways.config.params import load_params
from sideways.core import stage
from sideways.core.errors import SchemaError


def main() -> None:
    args = stage.arguments("split")
    params = load_params(args.params)
    riddles = read_table(paths.split_table(args.split), RIDDLES)
    if params.annotations.source_for(args.split) == "file":
        found = label_file(paths.LABELS, args.split)
        if found is None:  # a split nobody labelled yet is valid: zero labels
            print(f"annotate@{args.split}: {no_labels_yet(paths.LABELS, args.split)}", file=sys.stderr)
            labels = conform(pd.DataFrame(columns=ANNOTATIONS.names), ANNOTATIONS, "no labels")
        else:
            labels = read_label_file(found, riddles)
    else:
        sim = with_results([m.key for m in params.models_taking(args.split) if m.capabilities.simulated], args.split)
        if not sim:
            raise SchemaError(
                f"annotations.source is 'sim' for {args.split} but no model there has backend 'sim' (simulated "
                f"annotators label simulated predictions only); set annotations.source: {{{args.split}: file}} "
                f"and label with `sideways annotate serve --split {args.split}`"
            )
        sources = [paths.predictions(args.split, k) for k in sim]
        predictions = read_tables(sources, PREDICTIONS, f"{args.split} predictions")
        sample = seeded_sample(predictions, params.annotations.share, params.seed, args.split)
        labels = simulate_labels(sample, riddles, params.seed, params.annotations.noise)
    write_table(labels, ANNOTATIONS, paths.annotations(args.split))


if __name__ == "__main__":
    stage.run(main)
