"""exam_items: each exam of ``exams:`` read, validated and presented (data/exam/items/<exam>.parquet).

An exam comes from the course notebook's JSON or from a Hugging Face dataset (docs/exams.md). A
sampled exam also gets ``<exam>.sample.json`` (how many questions each model is asked).
Multiple-choice choices are shuffled here, seeded per question, with E) "I don't know" last
when the exam's ``idk`` is true, so every model sees the same presentation. An imported exam
(runs made by lm-evaluation-harness or inspect) gets its items from its runs, and each run's
predictions and grades beside them (``<exam>.runs/<model>.{predictions,grades}.parquet``), which
its jobs in predict and judge copy. With ``exams: {}`` the folder is empty.
"""

from sideways.artifacts import paths
from sideways.artifacts.io import write_json, write_table
from sideways.artifacts.schema import EXAM_GRADES, EXAM_ITEMS, EXAM_PREDICTIONS
from sideways.config.params import load_params
from sideways.core import stage
from sideways.exams.items import items_table
from sideways.exams.source import describe, load_exam_spec
from sideways.imports.exam import imported_exam


def main() -> None:
    args = stage.arguments()
    params = load_params(args.params)
    paths.EXAM_ITEMS_DIR.mkdir(parents=True, exist_ok=True)
    for spec in params.exams.values():
        if spec.source == "imported":
            got = imported_exam(spec)
            write_table(got.items, EXAM_ITEMS, paths.exam_items(spec.key))
            for model, table in got.predictions.items():
                write_table(table, EXAM_PREDICTIONS, paths.exam_imported(spec.key, model, "exam_predict"))
            for model, table in got.grades.items():
                write_table(table, EXAM_GRADES, paths.exam_imported(spec.key, model, "exam_judge"))
            continue
        exam = load_exam_spec(spec)
        asked = spec.sample_size(len(exam.questions))  # a sample larger than the exam: one line naming the field
        write_table(items_table(exam, params.seed, spec.idk, describe(spec)), EXAM_ITEMS, paths.exam_items(spec.key))
        if spec.sample is not None:  # predict reads exams: through this folder (docs/exams.md, "Exams on a sample")
            write_json(paths.exam_sample_size(spec.key), {"asked": asked, "questions": len(exam.questions)})


if __name__ == "__main__":
    stage.run(main)
