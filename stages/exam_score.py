"""exam_score: the exam's results for every model (docs/exams.md, "Results").

metrics/exam.json (DVC metrics: the four multiple-choice metrics with se, the short-answer
score, latency and cost per model), metrics/exam_topics.json (per-topic breakdown) and
data/exam/detail.parquet (per-question detail).
"""

from sideways.artifacts import paths
from sideways.artifacts.io import read_table, read_tables, write_json, write_table
from sideways.artifacts.schema import EXAM_DETAIL, EXAM_GRADES, EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.config.params import load_params
from sideways.core import stage
from sideways.exams.results import detail_table, model_metrics, topic_breakdown


def main() -> None:
    args = stage.arguments()
    params = load_params(args.params)
    items = read_table(paths.EXAM_ITEMS, EXAM_ITEMS)
    keys = [m.key for m in params.models]
    predictions = read_tables([paths.exam_predictions(k) for k in keys], EXAM_PREDICTIONS, "exam predictions")
    grades = read_tables([paths.exam_grades(k) for k in keys], EXAM_GRADES, "exam grades")
    detail = detail_table(items, predictions, grades)
    write_table(detail, EXAM_DETAIL, paths.EXAM_DETAIL)
    write_json(paths.EXAM_METRICS, model_metrics(detail))
    write_json(paths.EXAM_TOPICS, topic_breakdown(detail))


if __name__ == "__main__":
    stage.run(main)
