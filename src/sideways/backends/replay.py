"""``replay``: predictions or verdicts someone already has, read from a file instead of paid for.

``path`` (relative to the repository root) is a JSONL, JSON, CSV or Parquet file in one of two
layouts:

- ours: ``riddle_id, answer, justification`` (predictions) or
  ``riddle_id, is_answer_correct, is_justification_correct`` (verdicts);
- layton-eval's raw output: ``custom_id`` (the riddle id) and ``answer``, a JSON string holding
  the reply; it is parsed like a model reply, so a broken one becomes ``status=parse_error``.

An optional ``model`` column selects rows (matching the params key, the model name, or the
option ``match_model``); a verdict file may hold several models. Every riddle the stage needs
must be present: the error names the missing ones. Replayed rows cost nothing here, so tokens
and ``cost_usd`` are null; ``request_hash`` is the digest of the replayed row.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict, cast

import pandas as pd

from sideways.artifacts.rows import judgment_row, prediction_row
from sideways.artifacts.schema import JUDGMENTS, PREDICTIONS
from sideways.backends.base import RunContext
from sideways.config.options import ReplayOptions, expect_options
from sideways.config.params import JudgeSpec, ModelSpec
from sideways.core.errors import ReplayError, SidewaysError
from sideways.core.jsonl import read_jsonl
from sideways.llm.cache import canonical_json
from sideways.llm.extract_requests import ROW_COLUMNS, parse_extraction
from sideways.llm.parsing import parse_prediction, parse_verdict, prediction_from, verdict_from


def read_any(path: Path) -> pd.DataFrame:
    """A table from JSONL/JSON/CSV/Parquet, chosen by suffix; errors name the file."""
    if not path.is_file():
        raise ReplayError(f"{path}: replay file not found")
    if path.suffix not in (".parquet", ".csv", ".jsonl", ".ndjson", ".json"):
        raise ReplayError(f"{path}: unknown replay format {path.suffix!r} (use .jsonl, .json, .csv or .parquet)")
    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        if path.suffix == ".csv":
            return pd.read_csv(path, dtype=str, keep_default_na=False)
        if path.suffix in (".jsonl", ".ndjson"):
            return pd.DataFrame(read_jsonl(path))  # the one JSON Lines reader (core.jsonl)
        return _json_table(json.loads(path.read_bytes()), path)
    except SidewaysError as exc:
        raise ReplayError(str(exc)) from exc
    except Exception as exc:  # pandas and pyarrow raise many types on a file someone sent
        why = f"{type(exc).__name__}: {str(exc)[:120]}"
        raise ReplayError(f"{path}: not a readable {path.suffix} table ({why})") from exc


def _json_table(data: object, path: Path) -> pd.DataFrame:
    """A ``.json`` replay file's table: a list of row objects, or an object of columns of one length. Checked
    here, not left to pandas, which pads rows of other shapes with NaN (and will refuse them)."""
    if isinstance(data, list):
        for i, row in enumerate(data):
            if not isinstance(row, dict):
                raise ReplayError(f"{path}: row {i} is a JSON {type(row).__name__}, not an object")
        return pd.DataFrame(data)
    if isinstance(data, dict):
        lengths = {k: len(v) if isinstance(v, list) else None for k, v in data.items()}
        if any(n is None for n in lengths.values()) or len(set(lengths.values())) > 1:
            raise ReplayError(f"{path}: an object of columns needs a list for every column, all of one length "
                              f"(got {', '.join(f'{k!r}: {n}' for k, n in list(lengths.items())[:5])})")
        return pd.DataFrame(data)
    raise ReplayError(f"{path}: a JSON {type(data).__name__}, not a list of rows or an object of columns")


def _options(spec: ModelSpec | JudgeSpec, where: str) -> tuple[Path, list[str]]:
    """The replay file, and the model names its rows may carry (``match_model``, else key and name)."""
    o = expect_options(spec.options, ReplayOptions, where)
    return Path(o.path), [o.match_model] if o.match_model else [spec.key, spec.name]


def _normalise(df: pd.DataFrame, path: Path, names: list[str] | None) -> pd.DataFrame:
    """Rows keyed by riddle id (from ``riddle_id`` or ``custom_id``), filtered to the model if named."""
    if "riddle_id" not in df.columns:
        if "custom_id" not in df.columns:
            raise ReplayError(f"{path}: needs a riddle_id column (or layton-eval's custom_id); "
                              f"has {', '.join(map(str, df.columns))}")
        df = df.rename(columns={"custom_id": "riddle_id"})
    df = df.assign(riddle_id=df["riddle_id"].astype(str))
    if names is not None and "model" in df.columns:
        df = df[df["model"].astype(str).isin(names)]
    dup = df["riddle_id"].duplicated()
    if dup.any():
        raise ReplayError(f"{path}: riddle {df.loc[dup, 'riddle_id'].iloc[0]!r} appears more than once"
                          + (f" for model {names[0]!r}" if names and "model" in df.columns else ""))
    return df.set_index("riddle_id", drop=False)


def _require(df: pd.DataFrame, wanted: list[str], path: Path, what: str) -> None:
    missing = [r for r in wanted if r not in df.index]
    if missing:
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        raise ReplayError(f"{path}: no {what} for {len(missing)} riddle(s) the stage needs: {shown}")


def _row(df: pd.DataFrame, rid: str) -> dict[str, Any]:
    """The row of riddle ``rid`` as {column: value}.

    pandas types the keys as ``Hashable``; a replay file's columns are strings (JSON keys, a
    CSV header, Parquet field names), so the row is typed as such here.
    """
    return cast(dict[str, Any], df.loc[rid].to_dict())


def _digest(row: Mapping[str, Any]) -> str:
    clean = {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
    return hashlib.sha256(canonical_json(clean)).hexdigest()


def _str(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    return str(value)


def plain(value: Any) -> Any:
    """A replay file's cell as the JSON value it stands for: NumPy scalars and arrays (Parquet) as
    Python values and lists, a missing value (null, NaN, an absent cell) as None."""
    if hasattr(value, "tolist"):  # NumPy scalars and arrays alike
        value = value.tolist()
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def reply_text(value: Any) -> str | None:
    """A raw reply read from a replay file: text as it is; no value is no reply; any other value
    (a number, true, an object) as its JSON text, then parsed like a live reply."""
    value = plain(value)
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


class ReplayPredictor:
    def predict(self, riddles: pd.DataFrame, model: ModelSpec, ctx: RunContext) -> pd.DataFrame:
        path, names = _options(model, f"params.yaml: models.{model.key}")
        df = _normalise(read_any(path), path, names)
        _require(df, [str(r) for r in riddles["riddle_id"]], path, "prediction")
        raw_layout = "justification" not in df.columns
        rows = []
        for rid in riddles["riddle_id"].astype(str):
            src = _row(df, rid)
            reply = _raw_reply(src) if raw_layout else _our_reply(src)
            rows.append(prediction_row(riddle_id=rid, model=model.key, provider=model.provider,
                                       model_name=model.name, n_hints=model.n_hints, **reply,
                                       request_hash=_digest(src)))
        return pd.DataFrame(rows, columns=PREDICTIONS.names)


class _Reply(TypedDict):
    """The reply columns of a replayed prediction row."""

    answer: str | None
    justification: str | None
    raw: str | None
    status: str
    error: str | None


def _raw_reply(src: Mapping[str, Any]) -> _Reply:
    """A layton-eval raw row: its ``answer`` is the model's reply, parsed like a live one."""
    raw = reply_text(src.get("answer"))
    parsed = parse_prediction(raw)
    return {"answer": parsed.answer, "justification": parsed.justification, "raw": raw,
            "status": "ok" if parsed.ok else "parse_error", "error": parsed.error}


def _our_reply(src: Mapping[str, Any]) -> _Reply:
    """A row in our layout, read as the fields of a live reply (:func:`prediction_from`): the answer
    is text or a number, the justification text (another value: its JSON text); no answer, or one
    that is not text (true, a list, an object), is a parse error."""
    row = {k: plain(v) for k, v in src.items()}
    answer = row.get("answer")
    parsed = prediction_from({"answer": answer, "justification": row.get("justification")})
    if parsed.ok:
        error = None
    elif answer is None or isinstance(answer, str):
        error = "replayed row has no answer"
    else:
        kind = {bool: "boolean", list: "array", dict: "object"}.get(type(answer), type(answer).__name__)
        error = f"replayed answer is not text or a number (a JSON {kind})"
    return {"answer": parsed.answer, "justification": parsed.justification if parsed.ok else None,
            "raw": json.dumps(row, ensure_ascii=False, default=str),
            "status": "ok" if parsed.ok else "parse_error", "error": error}


class ReplayJudge:
    def judge(self, riddles: pd.DataFrame, predictions: pd.DataFrame, judge: JudgeSpec,
              ctx: RunContext) -> pd.DataFrame:
        path, _ = _options(judge, f"params.yaml: jury.pool.{judge.key}")
        table = read_any(path)
        rows = []
        for model, preds in predictions.groupby("model", sort=False):
            df = _normalise(table, path, [str(model)])
            _require(df, [str(r) for r in preds["riddle_id"]], path, f"verdict on model {model!r}")
            for rid in preds["riddle_id"].astype(str):
                src = _row(df, rid)
                text: str | None
                if "is_answer_correct" in src:  # the two values, by the rule of a live verdict
                    fields = {k: plain(src.get(k)) for k in ("is_answer_correct", "is_justification_correct")}
                    text = json.dumps(fields, ensure_ascii=False, default=str)
                    verdict = verdict_from(fields)
                else:
                    text = reply_text(src.get("answer"))
                    verdict = parse_verdict(text)
                both = bool(verdict.is_answer_correct and verdict.is_justification_correct) if verdict.ok else None
                rows.append(judgment_row(
                    riddle_id=rid, model=str(model), judge=judge.key, judge_provider=judge.provider,
                    is_answer_correct=verdict.is_answer_correct if verdict.ok else None,
                    is_justification_correct=verdict.is_justification_correct if verdict.ok else None,
                    both_correct=both, status="ok" if verdict.ok else "parse_error", error=verdict.error,
                    raw=text, request_hash=_digest(src)))
        return pd.DataFrame(rows, columns=JUDGMENTS.names)


class ReplayExtractor:
    """Extractions someone already has (``riddles.extract: {backend: replay, path: ...}``): a table
    with ``riddle_id, answer, justification, needs_game_engine, needs_image`` and optionally
    ``review``; a row whose flags are not booleans is a parse error, like a broken reply."""

    def extract(self, riddles: pd.DataFrame, spec: ModelSpec, ctx: RunContext) -> pd.DataFrame:
        path, _ = _options(spec, "params.yaml: riddles.extract")
        df = _normalise(read_any(path), path, None)
        _require(df, [str(r) for r in riddles["riddle_id"]], path, "extraction")
        rows = []
        for rid in riddles["riddle_id"].astype(str):
            src = _row(df, rid)
            text = json.dumps({k: _flag(v) if k.startswith("needs_") else _str(v) for k, v in src.items()
                               if k in ("answer", "justification", "needs_game_engine", "needs_image", "review")})
            reply = parse_extraction(text)
            rows.append({"riddle_id": rid, **{k: v for k, v in reply.__dict__.items() if k != "error"},
                         "status": "ok" if reply.error is None else "parse_error", "error": reply.error, "raw": text,
                         "request_hash": _digest(src), "input_tokens": None, "output_tokens": None, "cost_usd": None})
        return pd.DataFrame(rows, columns=list(ROW_COLUMNS))


def _flag(value: Any) -> Any:
    """A CSV's "true"/"false" as booleans; anything else as it is (and refused by the parser)."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value.item() if hasattr(value, "item") else value
