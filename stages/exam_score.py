"""exam_score: each exam's results for every model that takes it (docs/exams.md, "Results").

metrics/exams.json (DVC metrics, by exam then model: the four multiple-choice metrics with se,
the short-answer score, latency and cost, and the tie groups on the exam score: docs/method.md §8),
metrics/headline_exams/<exam>.json (DVC metrics: each model's exam score, the narrow view),
metrics/exam_topics.json (per-topic breakdown, by
exam) and data/exam/detail/<exam>.parquet (per-question detail). With ``exams: {}`` both
metrics files are ``{}``.
"""

import json
from typing import Any

from sideways.artifacts import paths
from sideways.artifacts.failures import with_results
from sideways.artifacts.io import read_table, read_tables, write_json, write_table
from sideways.artifacts.schema import EXAM_DETAIL, EXAM_GRADES, EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.config.params import load_params
from sideways.core import stage
from sideways.exams.changes import exam_tie_groups
from sideways.exams.results import detail_table, detail_tables, headline, model_metrics, topic_breakdown
from sideways.exams.reuse import detail_inputs, reusable_detail


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
    for exam in params.exams:
        keys = with_results([m.key for m in params.models_taking(exam)], exam)  # less its failed jobs
        items = read_table(paths.exam_items(exam), EXAM_ITEMS)
        # multiple choice only: no exam_judge job, no grades (sideways.exams.kinds.needs_judges)
        graded = bool((items["kind"] == "short_answer").any())
        no_grades = read_tables([], EXAM_GRADES, f"exam {exam} grades")
        inputs = detail_inputs(exam, keys, graded)
        reused = reusable_detail(exam, inputs)
        # model by model: one model's replies (their texts) in memory at a time, not every model's
        detail = detail_tables(items, (reused[k] if k in reused else detail_table(
            items, read_table(paths.exam_predictions(exam, k), EXAM_PREDICTIONS),
            read_table(paths.exam_grades(exam, k), EXAM_GRADES) if graded else no_grades) for k in sorted(keys)))
        detail = write_table(detail, EXAM_DETAIL, paths.exam_detail(exam), json.dumps(inputs, sort_keys=True))
        metrics[exam], topics[exam] = model_metrics(detail), topic_breakdown(detail)
        for model, groups in exam_tie_groups(detail).items():
            metrics[exam][model]["tie_groups"] = groups
        write_json(paths.exam_headline(exam), headline(metrics[exam]))
    write_json(paths.EXAM_METRICS, metrics)
    write_json(paths.EXAM_TOPICS, topics)


if __name__ == "__main__":
    stage.run(main)
