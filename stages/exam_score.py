"""exam_score: each exam's results for every model that takes it (docs/exams.md, "Results").

metrics/exams.json (DVC metrics, by exam then model: the four multiple-choice metrics with se,
the short-answer score, latency and cost, and the tie groups on the exam score: docs/method.md §8),
metrics/headline_exams/<exam>.json (DVC metrics: each model's exam score, the narrow view),
metrics/exam_topics.json (per-topic breakdown, by
exam) and data/exam/detail/<exam>/<model>.parquet (per-question detail, one file per model, with
the pairs apart in data/exam/detail/<exam>/ties.json). With ``exams: {}`` both metrics files are ``{}``.
"""

import shutil
from typing import Any

from sideways.artifacts import paths
from sideways.artifacts.failures import with_results
from sideways.artifacts.io import read_table, write_json
from sideways.artifacts.schema import EXAM_ITEMS
from sideways.config.params import load_params
from sideways.core import stage
from sideways.exams.results import headline
from sideways.exams.reuse import exam_results


def main() -> None:
    args = stage.arguments()
    params = load_params(args.params)
    metrics: dict[str, Any] = {}
    topics: dict[str, Any] = {}
    paths.EXAM_DETAIL_DIR.mkdir(parents=True, exist_ok=True)
    paths.EXAM_HEADLINE_DIR.mkdir(parents=True, exist_ok=True)
    for stale in paths.EXAM_HEADLINE_DIR.glob("*.json"):  # an exam no longer in exams: (a run by hand)
        if stale.stem not in params.exams:
            stale.unlink()
    for stale in paths.EXAM_DETAIL_DIR.iterdir():  # the same, and a detail of one file per exam (before)
        if stale.is_dir() and stale.name not in params.exams:
            shutil.rmtree(stale)
        elif stale.is_file():
            stale.unlink()
    for exam in params.exams:
        keys = with_results([m.key for m in params.models_taking(exam)], exam)  # less its failed jobs
        items = read_table(paths.exam_items(exam), EXAM_ITEMS)
        # unchanged models' rows, metrics and pairs apart reused; tie groups on the exam score included
        metrics[exam], topics[exam] = exam_results(exam, items, keys)
        write_json(paths.exam_headline(exam), headline(metrics[exam]))
    write_json(paths.EXAM_METRICS, metrics)
    write_json(paths.EXAM_TOPICS, topics)


if __name__ == "__main__":
    stage.run(main)
