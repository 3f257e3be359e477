"""annotate@<split>: human labels, simulated (default) or read from data/labels/<split>.jsonl|parquet."""

from sideways.annotation.labels import read_label_file, seeded_sample, simulate_labels
from sideways.artifacts import paths
from sideways.artifacts.failures import with_results
from sideways.artifacts.io import read_table, read_tables, write_table
from sideways.artifacts.schema import ANNOTATIONS, PREDICTIONS, RIDDLES
from sideways.config.params import load_params
from sideways.core import stage
from sideways.core.errors import SchemaError


def main() -> None:
    args = stage.arguments("split")
    params = load_params(args.params)
    riddles = read_table(paths.split_table(args.split), RIDDLES)
    if params.annotations.source == "file":
        candidates = [paths.LABELS / f"{args.split}.{ext}" for ext in ("parquet", "jsonl")]
        found = [p for p in candidates if p.exists()]
        if not found:
            raise SchemaError(f"annotations.source is 'file' but neither {candidates[0]} nor {candidates[1]} exists")
        labels = read_label_file(found[0], riddles)
    else:
        sim = with_results([m.key for m in params.models_taking(args.split) if m.capabilities.simulated], args.split)
        if not sim:
            raise SchemaError(
                "annotations.source is 'sim' but no model has backend 'sim': simulated annotators only "
                "label simulated predictions; set annotations.source: file and write data/labels/<split>.jsonl"
            )
        sources = [paths.predictions(args.split, k) for k in sim]
        predictions = read_tables(sources, PREDICTIONS, f"{args.split} predictions")
        sample = seeded_sample(predictions, params.annotations.share, params.seed, args.split)
        labels = simulate_labels(sample, riddles, params.seed, params.annotations.noise)
    write_table(labels, ANNOTATIONS, paths.annotations(args.split))


if __name__ == "__main__":
    stage.run(main)
