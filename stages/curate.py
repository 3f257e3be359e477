"""curate: riddles from the configured source into one validated table (data/riddles.parquet)."""

from sideways import paths, stage
from sideways.artifacts import write_table
from sideways.errors import ParamsError
from sideways.riddles import load_demo
from sideways.schema import RIDDLES


def main() -> None:
    args = stage.arguments()
    params = stage.load_params(args.params)
    source = params.riddles.get("source", "demo")
    if source != "demo":
        raise ParamsError(f"{args.params}: riddles.source {source!r} is not supported yet")
    riddles = load_demo(params.riddles.get("path", "data/riddles/demo.jsonl"))
    write_table(riddles, RIDDLES, paths.RIDDLES)


if __name__ == "__main__":
    stage.run(main)
