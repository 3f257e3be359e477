"""Where every artifact lives (docs/design.md, "Artifacts"): one function per artifact, no I/O.

No ``from __future__ import annotations`` here: it would bind the name ``annotations`` that the
function below uses, and nothing in this module needs postponed annotations.
"""

from pathlib import Path

DATA = Path("data")
METRICS = Path("metrics")
RIDDLES = DATA / "riddles.parquet"
CHECKED = DATA / "checked.txt"  # the check stage's output: params.yaml passed `sideways check`
LABELS = DATA / "labels"


def split_table(split: str) -> Path:
    return DATA / "split" / f"{split}.parquet"


def predictions(split: str, model: str) -> Path:
    return DATA / "predictions" / split / f"{model}.parquet"


def judgments(split: str, model: str) -> Path:
    return DATA / "judgments" / split / f"{model}.parquet"


def annotations(split: str) -> Path:
    return DATA / "annotations" / f"{split}.parquet"


def jury(split: str) -> Path:
    return DATA / "jury" / f"{split}.parquet"


def scores(split: str) -> Path:
    return DATA / "scores" / f"{split}.parquet"


def leaderboard(split: str) -> Path:
    return METRICS / f"leaderboard_{split}.json"


def headline(split: str) -> Path:
    """``{model: score}`` of a split: the narrow DVC metric that ``dvc metrics show`` prints in 120 columns."""
    return METRICS / f"headline_{split}.json"


def rank_sets(split: str) -> Path:
    """``{model: rank set}`` of a split (``"1-2"``, 95% for every model at once): the narrow DVC metric
    printed beside the headline, one short column per model."""
    return METRICS / f"rank_sets_{split}.json"


def pairwise(split: str) -> Path:
    """Every pair of models of a split: paired difference, interval, apart or tied; tie groups (a
    folder of one file per split, so the report can depend on every split's without naming them)."""
    return METRICS / "pairwise" / f"{split}.json"


def audit(split: str) -> Path:
    """The raters' audit of a split and the digest of the tables it read (the calibrate stage's; a folder of one
    file per split, as :func:`pairwise`)."""
    return METRICS / "audit" / f"{split}.json"


def plot(split: str) -> Path:
    return METRICS / "plots" / f"scores_{split}.json"


RAW_WIKI = DATA / "raw" / "wiki"
CURATION_METRICS = METRICS / "curation.json"
CURATION_DROPPED = DATA / "curation" / "dropped.json"
CURATION_REVIEW = DATA / "curation" / "review.json"  # riddles the extractor marked for a person to check
EXTRACTED = DATA / "extracted" / "riddles.parquet"  # the wiki's riddles with extracted answers and flags
EXTRACT_ANSWERS = DATA / "extracted" / "answers.jsonl"  # the answered requests behind it (they travel)
EXTRACT_COST = METRICS / "cost" / "extract.json"


def cost(stage: str, split: str, model: str) -> Path:
    """Tokens and USD of one job of a paid coarse stage (``predict``, ``judge``) or of the exam's
    jobs that ride in them (``exam_predict``, ``exam_judge``): one folder each, a DVC output, and in
    it a folder per benchmark, as the answers (``<model>-<split>.json`` let models ``m`` and ``m-x``
    on exams ``x-y`` and ``y`` share one file)."""
    return METRICS / "cost" / stage / split / f"{model}.json"


def answers(stage: str, split: str, model: str) -> Path:
    """The answered requests a paid stage used (``predict`` or ``judge``), shared with its results."""
    return DATA / "answers" / stage / split / f"{model}.jsonl"


# The exams (``exams:``, one folder level per exam key; docs/exams.md). An exam's answers and
# costs use its key where a riddle job uses its split: answers(kind, exam, model), cost(kind, exam, model).
EXAM = DATA / "exam"
EXAM_ITEMS_DIR = EXAM / "items"  # <exam>.parquet, the exam_items stage's output folder
EXAM_DETAIL_DIR = EXAM / "detail"  # <exam>/<model>.parquet and <exam>/ties.json, exam_score's
EXAM_METRICS = METRICS / "exams.json"  # {exam: {model: metrics}}: what dvc metrics show and diff read
EXAM_TOPICS = METRICS / "exam_topics.json"  # {exam: {model: {topic: ...}}}
EXAM_HEADLINE_DIR = METRICS / "headline_exams"  # <exam>.json, {model: exam score}: a DVC metrics folder
# The DVC stage each kind of exam job runs in: the riddles' paid stages, so that a repro waits two
# rounds of batches, not four (docs/design.md, "Every batch in flight"). Folders keep the kind's name.
EXAM_JOB_STAGE = {"exam_predict": "predict", "exam_judge": "judge"}


def dvc_stage(kind: str) -> str:
    """The DVC stage whose dvc.lock entry records the outputs of the jobs of ``kind``."""
    return EXAM_JOB_STAGE.get(kind, kind)


def exam_items(exam: str) -> Path:
    """The presented items of exam ``exam`` (choices shuffled, "I don't know" added)."""
    return EXAM_ITEMS_DIR / f"{exam}.parquet"


def exam_predictions(exam: str, model: str) -> Path:
    return EXAM / "predictions" / exam / f"{model}.parquet"


def exam_grades(exam: str, model: str) -> Path:
    return EXAM / "grades" / exam / f"{model}.parquet"


def exam_headline(exam: str) -> Path:
    """``{model: exam score}`` of ``exam``: one row of ``dvc metrics show metrics/headline_exams``,
    which prints in 120 columns as the riddle splits' headlines do."""
    return EXAM_HEADLINE_DIR / f"{exam}.json"


def exam_detail_dir(exam: str) -> Path:
    """Exam ``exam``'s per-question results: one file per model, and the pairs apart."""
    return EXAM_DETAIL_DIR / exam


def exam_detail(exam: str, model: str) -> Path:
    """Every question's result for ``model`` on ``exam``: one file per model, so adding a model
    writes (and DVC caches and pushes) one model's rows, not every model's again."""
    return exam_detail_dir(exam) / f"{model}.parquet"


def exam_pairs_apart(exam: str) -> Path:
    """The pairs of models found apart on ``exam``'s score, with the inputs of each model they were
    found from: what the next run reuses (``exams.reuse``)."""
    return exam_detail_dir(exam) / "ties.json"


REPORT = Path("report")


def calibration_plot(split: str) -> Path:
    """Rows of the calibration plot (human-positive rate per jury-score bin), written by the report stage."""
    return METRICS / "plots" / "calibration" / f"{split}.json"


def exam_sample(exam: str, model: str) -> Path:
    """The frozen sample design of ``model`` on a sampled ``exam`` (:mod:`sideways.exams.frozen`): the
    order its questions are asked in and the ease it was drawn on, fixed at the model's first run."""
    return EXAM / "samples" / exam / f"{model}.json"


def exam_sample_size(exam: str) -> Path:
    """How many questions each model is asked on a sampled ``exam`` (written by exam_items beside its
    items, so that a changed ``sample`` reaches predict, which depends on the items folder, not on ``exams``)."""
    return EXAM_ITEMS_DIR / f"{exam}.sample.json"


def exam_imported(exam: str, model: str, kind: str) -> Path:
    """The predictions (``kind`` exam_predict) or grades (exam_judge) of run ``model`` of an imported ``exam``,
    read from the run by exam_items beside the items, so the run files are read once, before any paid stage,
    and the exam's jobs in predict and judge (which depend on the items folder) copy them."""
    table = "predictions" if kind == "exam_predict" else "grades"
    return EXAM_ITEMS_DIR / f"{exam}.runs" / f"{model}.{table}.parquet"
