"""Replayed exam replies: a model's raw text per question, read from ``exam_path``.

The file (JSONL, JSON, CSV or Parquet) has a question id column (``item_id``, ``id`` or
``question_id``) and the raw reply (``text``, ``raw``, ``response`` or ``answer``); an optional
``model`` column selects rows as for riddles. Replies are parsed like live ones: a multiple-
choice reply goes through the same letter extraction, a short answer to the judges. A replay
judge reads its verdicts the same way (``exam_path``, else ``path``), one text per question and
model graded.
"""

from __future__ import annotations

from pathlib import Path

from sideways.backends.replay import read_any, reply_text
from sideways.config.options import ReplayOptions, expect_options
from sideways.config.params import JudgeSpec, ModelSpec
from sideways.core.errors import ReplayError

ID_COLUMNS = ("item_id", "id", "question_id")
TEXT_COLUMNS = ("text", "raw", "response", "answer")


def replayed_texts(item_ids: list[str], exam: str, model: ModelSpec) -> dict[str, str]:
    """The replayed reply of ``model`` to every item of ``item_ids`` of exam ``exam``; errors name the file."""
    where = f"params.yaml: models.{model.key}"
    o = expect_options(model.options, ReplayOptions, where)
    path = o.exam_replies(exam)
    if not path:
        raise ReplayError(f"{where}.exam_path: a replay model that takes exam {exam!r} needs the file of its "
                          "raw replies to it")
    names = [o.match_model] if o.match_model else [model.key, model.name]
    return texts_from(Path(path), item_ids, names, model.key)


def replayed_verdicts(item_ids: list[str], exam: str, model: ModelSpec, judge: JudgeSpec) -> dict[str, str]:
    """A replay judge's verdict text on each short answer of ``model`` on ``exam`` (its file's
    ``model`` column names the model graded)."""
    o = expect_options(judge.options, ReplayOptions, f"params.yaml: jury.pool.{judge.key}")
    path = Path(o.exam_replies(exam) or o.path)
    return texts_from(path, item_ids, [model.key, model.name], model.key)


def texts_from(path: Path, item_ids: list[str], names: list[str], who: str) -> dict[str, str]:
    """Per item of ``item_ids``, the text of the file's row for it (rows of another model skipped)."""
    df = read_any(path)
    id_col = next((c for c in ID_COLUMNS if c in df.columns), None)
    text_col = next((c for c in TEXT_COLUMNS if c in df.columns), None)
    if id_col is None or text_col is None:
        raise ReplayError(f"{path}: needs a question id column ({', '.join(ID_COLUMNS)}) and a reply column "
                          f"({', '.join(TEXT_COLUMNS)}); has {', '.join(map(str, df.columns))}")
    if "model" in df.columns:
        df = df[df["model"].astype(str).isin(names)]
    texts: dict[str, str] = {}
    for qid, text in zip(df[id_col].astype(str), df[text_col], strict=True):
        if qid in texts:
            raise ReplayError(f"{path}: question {qid!r} appears more than once for model {who!r}")
        texts[qid] = reply_text(text) or ""
    missing = [i for i in item_ids if i not in texts]
    if missing:
        raise ReplayError(f"{path}: no reply for {len(missing)} question(s) of model {who!r}: "
                          + ", ".join(missing[:10]))
    return {i: texts[i] for i in item_ids}
