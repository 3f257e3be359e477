"""Every artifact's schema, in one place (docs/design.md, "Artifacts").

Each table is a :class:`TableSchema`: ordered typed columns, which may be null, and the key
that must be unique. :func:`conform` checks a DataFrame against a schema and returns it with
exactly the schema's columns, in order, with stable dtypes; every error names the source (a
file path or a stage) and the column or row at fault. Reading and writing live in
:mod:`sideways.artifacts.io`; this module does no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
import pyarrow as pa
from pandas.api.extensions import ExtensionDtype

from sideways.core.errors import SchemaError

SPLITS = ("llm", "vlm")

Field = Literal["answer_correct", "justification_correct", "both_correct"]
"""A scored verdict field: each has jury votes and a calibrated score."""
FIELDS: tuple[Field, ...] = get_args(Field)

Status = Literal["ok", "parse_error", "api_error"]
"""A prediction's or verdict's row status: failures are rows too, never dropped."""
STATUSES: tuple[Status, ...] = get_args(Status)

Kind = Literal["riddle", "mcq", "short_answer"]
"""A benchmark item's kind: riddles (answer and justification, graded by a jury), multiple choice
(a letter, scored without a judge) and short answers (graded by judges against a rubric)."""
KINDS: tuple[Kind, ...] = get_args(Kind)
EXAM_KINDS: tuple[Kind, ...] = ("mcq", "short_answer")

Strategy = Literal["baseline", "chain_of_thought", "rubric_anchored"]
"""How a judge is prompted to grade a short answer against its rubric."""
STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)

Method = Literal["layton", "exact"]
"""How a score's interval was computed (the SCORES ``method`` column): seeded Monte Carlo as
published (layton), or exact (no sampling)."""
METHODS: tuple[Method, ...] = get_args(Method)

IntervalName = Literal["posterior", "published"]
"""Which 95% interval a leaderboard ranks by: the beta-binomial posterior (the default, it covers
the truth in simulation) or the published one of ``method`` (docs/method.md §4, §6)."""
INTERVALS: tuple[IntervalName, ...] = get_args(IntervalName)

PosteriorName = Literal["hierarchical", "latent", "v1"]
"""How the posterior interval sets each bin's prior (docs/method.md §6): issue 10's pool rate worth
at most four labels (v1, the default), or partially pooled across models with a prior weight
chosen by the data (hierarchical: narrower, but it covers less where judges are poor, so not the
default), or started from a latent-class model of every judge's answer and justification verdicts
(latent: needs the judgments, not only the jury's vote counts)."""
POSTERIORS: tuple[PosteriorName, ...] = get_args(PosteriorName)

EmptyBin = Literal["error", "nearest"]
"""What calibration does with a jury-score bin that has no labels: fail, or borrow the nearest
bin. A scoring setting, defined here beside Method so scoring needs nothing above artifacts."""
EMPTY_BINS: tuple[EmptyBin, ...] = get_args(EmptyBin)

#: The column types an artifact may have.
Dtype = Literal["string", "int64", "float64", "bool", "binary"]

_ARROW: dict[Dtype, pa.DataType] = {
    "string": pa.string(),
    "int64": pa.int64(),
    "float64": pa.float64(),
    "bool": pa.bool_(),
    "binary": pa.binary(),
}
#: The dtype each column gets in memory (the objects ``astype`` makes of "object", "Int64", ...).
_PANDAS: dict[Dtype, np.dtype[np.generic] | ExtensionDtype] = {
    "string": np.dtype("object"),
    "int64": pd.Int64Dtype(),
    "float64": np.dtype("float64"),
    "bool": pd.BooleanDtype(),
    "binary": np.dtype("object"),
}


@dataclass(frozen=True)
class Column:
    """One typed column; ``nullable=False`` means no row may be null."""

    name: str
    dtype: Dtype
    nullable: bool = False


@dataclass(frozen=True)
class TableSchema:
    """An artifact's columns, in order, and the key that must be unique."""

    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def arrow(self) -> pa.Schema:
        return pa.schema([pa.field(c.name, _ARROW[c.dtype], nullable=c.nullable) for c in self.columns])


def _cols(*specs: tuple[str, Dtype] | tuple[str, Dtype, bool]) -> tuple[Column, ...]:
    return tuple(Column(*s) for s in specs)


_USAGE: tuple[tuple[str, Dtype, bool], ...] = (
    ("request_hash", "string", True),
    ("input_tokens", "int64", True),
    ("output_tokens", "int64", True),
    ("cost_usd", "float64", True),
)

RIDDLES = TableSchema(
    "riddles",
    _cols(
        ("riddle_id", "string"),
        ("split", "string"),
        ("category", "string"),
        ("title", "string"),
        ("description", "string"),
        ("answer", "string"),
        ("solution", "string"),
        ("justification", "string"),
        ("first_hint", "string", True),
        ("second_hint", "string", True),
        ("third_hint", "string", True),
        ("special_hint", "string", True),
        ("image", "binary", True),
        ("picarats", "int64", True),
        ("game", "string", True),
        ("source", "string"),
        ("url", "string", True),
        ("license", "string"),
    ),
    key=("riddle_id",),
)

#: The wiki's riddles after the extract stage: RIDDLES plus what curation needs to decide
#: (``number``, ``image_error``), the solution picture, and what the extractor found: the flags,
#: whether a person should look (``needs_review``, ``review`` says why) and who extracted
#: (``heuristic`` or the model's name), with the request behind it and its cost. ``split`` is
#: still empty: curation decides it.
EXTRACTED = TableSchema(
    "extracted",
    tuple(Column(c.name, c.dtype, True) if c.name == "split" else c for c in RIDDLES.columns)  # curation splits
    + _cols(
        ("number", "string", True),
        ("image_error", "string", True),
        ("solution_image", "binary", True),
        ("needs_game_engine", "bool"),
        ("needs_image", "bool"),
        ("needs_review", "bool"),
        ("review", "string", True),
        ("extracted_by", "string"),
        *_USAGE,
    ),
    key=("riddle_id",),
)

PREDICTIONS = TableSchema(
    "predictions",
    _cols(
        ("riddle_id", "string"),
        ("model", "string"),
        ("provider", "string"),
        ("model_name", "string"),
        ("n_hints", "int64"),
        ("answer", "string", True),
        ("justification", "string", True),
        ("raw", "string", True),
        ("status", "string"),
        ("error", "string", True),
        *_USAGE,
    ),
    key=("riddle_id", "model"),
)

JUDGMENTS = TableSchema(
    "judgments",
    _cols(
        ("riddle_id", "string"),
        ("model", "string"),
        ("judge", "string"),
        ("judge_provider", "string"),
        ("is_answer_correct", "bool", True),
        ("is_justification_correct", "bool", True),
        ("both_correct", "bool", True),
        ("score", "float64", True),
        ("status", "string"),
        ("error", "string", True),
        ("raw", "string", True),
        *_USAGE,
    ),
    key=("riddle_id", "model", "judge"),
)

ANNOTATIONS = TableSchema(
    "annotations",
    _cols(
        ("riddle_id", "string"),
        ("model", "string"),
        ("provider", "string"),
        ("human_answer_correct", "bool"),
        ("human_justification_correct", "bool"),
        ("human_both_correct", "bool"),
        ("annotator", "string"),
    ),
    key=("riddle_id", "model"),
)

JURY = TableSchema(
    "jury",
    _cols(
        ("riddle_id", "string"),
        ("model", "string"),
        ("provider", "string"),
        ("model_name", "string"),
        ("n_hints", "int64"),
        ("panel", "string"),
        *[(f"{f}_{part}", "int64") for f in FIELDS for part in ("votes", "judges")],
        *[(f"{f}_score", "float64", True) for f in FIELDS],
    ),
    key=("riddle_id", "model"),
)

SCORES = TableSchema(
    "scores",
    _cols(
        ("model", "string"),
        ("provider", "string"),
        ("model_name", "string"),
        ("n_hints", "int64"),
        ("field", "string"),
        # the published interval (method layton or exact); null when it failed on an empty bin
        # while the leaderboard ranks by the posterior interval
        ("score", "float64", True),
        ("lo", "float64", True),
        ("hi", "float64", True),
        ("half_width", "float64", True),
        ("score_pct", "float64", True),
        ("ci_pct", "float64", True),
        # the posterior interval (docs/method.md §6), always present
        ("posterior_score", "float64"),
        ("posterior_lo", "float64"),
        ("posterior_hi", "float64"),
        ("posterior_half_width", "float64"),
        ("posterior_score_pct", "float64"),
        ("posterior_ci_pct", "float64"),
        ("interval", "string"),
        # which posterior (calibration.posterior) the posterior_* columns hold: the diff and the
        # pairwise comparisons draw from the same one
        ("posterior", "string"),
        # the hierarchical or latent posterior's prior of the model, as JSON (null: v1's prior): the
        # paired draws (docs/method.md §8) read it, so they follow the scores exactly
        ("posterior_prior", "string", True),
        ("n", "int64"),
        ("n_labelled", "int64"),
        ("n_pool", "int64"),
        ("method", "string"),
        ("bootstrap", "int64"),
        ("seed", "int64"),
        ("true_score", "float64", True),
        ("covered", "bool", True),
        ("posterior_covered", "bool", True),
    ),
    key=("model", "field"),
)

EXAM_ITEMS = TableSchema(
    "exam_items",
    _cols(
        ("item_id", "string"),
        ("exam", "string"),
        ("kind", "string"),
        ("topic", "string"),
        ("points", "float64"),
        ("question", "string"),
        ("choices", "string", True),  # mcq: JSON {letter: text} as presented (shuffled, E last)
        ("gold", "string", True),  # mcq: the presented letter of the right choice
        ("answer", "string"),
        ("rubric", "string", True),  # short_answer: JSON list of criteria
    ),
    key=("item_id",),
)

_LATENCY: tuple[str, Dtype, bool] = ("latency_s", "float64", True)

EXAM_PREDICTIONS = TableSchema(
    "exam_predictions",
    _cols(
        ("item_id", "string"),
        ("model", "string"),
        ("provider", "string"),
        ("model_name", "string"),
        ("kind", "string"),
        ("text", "string", True),
        ("status", "string"),
        ("error", "string", True),
        _LATENCY,
        *_USAGE,
    ),
    key=("item_id", "model"),
)

EXAM_GRADES = TableSchema(
    "exam_grades",
    _cols(
        ("item_id", "string"),
        ("model", "string"),
        ("judge", "string"),
        ("judge_provider", "string"),
        ("strategy", "string"),
        ("points", "float64"),
        ("earned", "float64", True),
        ("status", "string"),
        ("error", "string", True),
        ("raw", "string", True),
        _LATENCY,
        *_USAGE,
    ),
    key=("item_id", "model", "judge", "strategy"),
)

EXAM_DETAIL = TableSchema(
    "exam_detail",
    _cols(
        ("model", "string"),
        ("item_id", "string"),
        ("kind", "string"),
        ("topic", "string"),
        ("points", "float64"),
        ("letters", "string", True),  # mcq: the letters extracted, joined by ","
        ("gold", "string", True),
        ("trad", "float64", True),
        ("idk", "float64", True),
        ("idk_freq", "float64", True),
        ("extract_fail", "float64", True),
        ("earned", "float64"),  # points earned (mcq: points if right; short answer: the judges' mean)
        ("judges", "int64"),  # short answer: verdicts that count (0: ungraded, earns 0)
        ("status", "string"),
        _LATENCY,
        ("cost_usd", "float64", True),
    ),
    key=("model", "item_id"),
)

ALL = {s.name: s for s in (RIDDLES, PREDICTIONS, JUDGMENTS, ANNOTATIONS, JURY, SCORES, EXAM_ITEMS,
                           EXAM_PREDICTIONS, EXAM_GRADES, EXAM_DETAIL)}


def conform(df: pd.DataFrame, schema: TableSchema, source: str) -> pd.DataFrame:
    """Check ``df`` against ``schema`` and return it with the schema's columns, in order.

    Extra columns are dropped. Raises :class:`SchemaError` naming ``source`` and the missing
    column, the first null in a non-null column, the first value of a wrong type, or the first
    duplicate key.
    """
    missing = [c for c in schema.names if c not in df.columns]
    if missing:
        raise SchemaError(f"{source}: {schema.name} table is missing column(s) {', '.join(missing)}")
    out = pd.DataFrame(index=range(len(df)))
    for col in schema.columns:
        out[col.name] = _coerce(df[col.name].reset_index(drop=True), col, schema, source)
    dup = out.duplicated(list(schema.key), keep="first")
    if dup.any():
        row = out.loc[int(dup.argmax()), list(schema.key)].to_dict()  # out's index is 0..n-1
        raise SchemaError(f"{source}: duplicate {schema.name} key {row}")
    return out


def records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """``df.to_dict("records")``, the same values, column by column: one dict per row.

    ``to_dict`` boxes value after value (about 26 µs a row of RIDDLES); ``tolist`` converts a
    whole column to Python objects at once, six times faster, which matters where a stage
    builds 1,000 prompts before its first request. A masked column's ``pd.NA`` becomes None,
    as ``to_dict`` gives it. Every artifact's columns are named by strings (:class:`Column`),
    so the rows are typed as such here, once.
    """
    columns = [str(c) for c in df.columns]
    values = [_python_values(df.iloc[:, i]) for i in range(len(columns))]
    return [dict(zip(columns, row, strict=True)) for row in zip(*values, strict=True)] if columns else (
        [{} for _ in range(len(df))])


def _python_values(column: pd.Series) -> list[Any]:
    """The column as Python objects, missing values as ``to_dict`` gives them."""
    out = column.tolist()
    if isinstance(column.dtype, pd.api.extensions.ExtensionDtype) and any(v is pd.NA for v in out):
        return [None if v is pd.NA else v for v in out]
    return out


def records_by(df: pd.DataFrame, key: str) -> dict[str, dict[str, Any]]:
    """``df.set_index(key).to_dict("index")``: key value -> the row's other columns, the same values,
    built on :func:`records` (``to_dict`` took 0.4 s for the 14,042 questions of an MMLU-size exam).

    Typed as :func:`records` is, for a ``key`` column of strings (such as ``riddle_id``); a key
    value twice is a ValueError, as ``to_dict`` raises it."""
    out = {row.pop(key): row for row in records(df)}
    if len(out) != len(df):
        raise ValueError(f"records_by: column {key!r} has a value twice")
    return out


def _is_int(v: object) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) or (
        isinstance(v, (float, np.floating)) and float(v).is_integer()
    )


_TYPE_CHECKS: dict[Dtype, Callable[[object], bool]] = {
    "string": lambda v: isinstance(v, str),
    "binary": lambda v: isinstance(v, (bytes, bytearray)),
    "bool": lambda v: isinstance(v, (bool, np.bool_)),
    "int64": _is_int,
    "float64": lambda v: isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)),
}


def _typed(values: pd.Series, dtype: Dtype) -> bool:
    """True when the column's own dtype guarantees that every non-null value is a ``dtype``.

    Columns read from Parquet arrive typed (string, integer, float, boolean): checking them value
    by value cost seconds per million values (the report stage reads every table of a split).
    Object columns, such as those built in Python, are still checked one value at a time.
    """
    d = values.dtype
    is_int = pd.api.types.is_integer_dtype(d) and not pd.api.types.is_bool_dtype(d)
    return {
        "string": isinstance(d, pd.StringDtype),
        "int64": is_int,
        "float64": is_int or pd.api.types.is_float_dtype(d),
        "bool": pd.api.types.is_bool_dtype(d),
        "binary": False,
    }[dtype]


def _all_strings(values: pd.Series, dtype: Dtype) -> bool:
    """True when ``values`` is a string column of Python strings and nulls: pandas' C scan
    (``infer_dtype``) decides it a hundred times faster than checking value by value in Python, which
    cost seconds on every write and read of a detail of millions of rows (a column of anything
    else is still checked one value at a time, so the error names the first wrong value)."""
    return dtype == "string" and values.dtype == object and pd.api.types.infer_dtype(values, skipna=True) == "string"


def _coerce(values: pd.Series, col: Column, schema: TableSchema, source: str) -> pd.Series:
    nulls = values.isna()
    if not col.nullable and nulls.any():
        raise SchemaError(f"{source}: {schema.name} column {col.name!r} is null at row {int(nulls.argmax())}")
    ok_type = _TYPE_CHECKS[col.dtype]
    for i, v in ([] if _typed(values, col.dtype) or _all_strings(values, col.dtype) else values[~nulls].items()):
        if not ok_type(v):
            raise SchemaError(
                f"{source}: {schema.name} column {col.name!r} at row {i} should be {col.dtype}, got {v!r:.60}"
            )
    if col.dtype == "binary":
        return values.map(lambda v: None if v is None or v is pd.NA or (isinstance(v, float) and v != v) else bytes(v))
    if col.dtype == "string":
        return values.astype("object").where(~nulls, None)
    return values.astype(_PANDAS[col.dtype])
