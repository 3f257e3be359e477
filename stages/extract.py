"""extract: answers, gold justifications and flags for the wiki's riddles, when riddles.source is wiki.

Reads the raw scrape (data/raw/wiki), runs the extractor of riddles.extract (the offline
heuristic by default, or a model through the request layer) and writes data/extracted/: the
riddles with answer, justification, needs_game_engine, needs_image and needs_review, and the
answered requests behind them (restored first by a rerun, so nothing is paid twice). With
another source it writes empty files.
"""

import sys

from sideways.artifacts import paths
from sideways.artifacts.io import write_json, write_table
from sideways.artifacts.schema import EXTRACTED
from sideways.config.params import load_params
from sideways.core import stage
from sideways.jobs.context import run_context
from sideways.jobs.extract import run_extraction
from sideways.llm import budget
from sideways.llm.answers import restore_previous, used, write_answers
from sideways.llm.cache import RequestCache
from sideways.llm.failures import check_failure_share
from sideways.llm.pricing import cost_totals
from sideways.sources.extraction import no_riddles, summary
from sideways.sources.wiki.build import build_riddles


def main() -> None:
    args = stage.arguments()
    params = load_params(args.params)
    cfg, spec = params.riddles, params.extractor
    if cfg.source != "wiki":
        print(f"extract: riddles.source is {cfg.source}: nothing to extract", file=sys.stderr)
        write_table(no_riddles(), EXTRACTED, paths.EXTRACTED)
        write_answers(paths.EXTRACT_ANSWERS, [])
        write_json(paths.EXTRACT_COST, {})
        return
    riddles = build_riddles(paths.RAW_WIKI, license=cfg.wiki.license, region=cfg.wiki.region)
    cache = RequestCache(params.requests.cache_dir)
    if spec is not None and (restored := restore_previous("extract", paths.EXTRACT_ANSWERS, cache)):
        print(f"extract: {restored} answers restored from the previous results", file=sys.stderr)
    budget.install(budget.open_budget("extract", params.requests))  # its requests count toward the spending cap
    table, rows = run_extraction(riddles, spec, run_context(params))
    budget.finish()
    if spec is not None and rows is not None:  # a model extracted: its failures are counted like any stage's
        check_failure_share(rows, params.requests.max_failure_share, f"extract with {spec.name}",
                            replay=spec.capabilities.replays)
    write_table(table, EXTRACTED, paths.EXTRACTED)
    write_answers(paths.EXTRACT_ANSWERS, used(table["request_hash"], cache))
    write_json(paths.EXTRACT_COST, cost_totals({"extract": rows}, by="model") if rows is not None else {})
    print(f"extract: {summary(table)}", file=sys.stderr)


if __name__ == "__main__":
    stage.run(main)
