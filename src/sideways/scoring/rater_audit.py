"""The raters' audit of one split as plain data (docs/method.md §6, "Raters audited"): every annotator's error
rates and flag (:mod:`sideways.scoring.annotator_audit`) and every judge's sensitivity and specificity per field,
graded provider and reply length (:mod:`sideways.scoring.judge_audit`), with the digest of the tables it read.

Why here and with a digest: the audit fits the latent-class model once per annotator and once for the judges,
seconds on a large split. The calibrate stage computes it once per split and writes it
(``metrics/audit/<split>.json``); the report, and ``sideways show --judges``, take that record when its digest is
the one of the tables they read themselves, and compute the same function otherwise: one estimator, whoever runs
it. The annotators are audited on ``raters``, every label of the split's label log, second labels included
(:func:`sideways.annotation.rater_labels.audit_labels`), by :func:`annotator_audits`, the function
``sideways annotate stats`` and the app's progress view call on the same log: one flag, one evidence line in the
three views. The judges are audited on the labels calibration reads (each prediction's first).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import pandas as pd

from sideways.core.errors import SidewaysError
from sideways.scoring.annotator_audit import FIELDS as LABEL_FIELDS
from sideways.scoring.annotator_audit import AnnotatorAudit, audit_annotators
from sideways.scoring.judge_audit import COLUMNS, audit_judges, posterior_rows

#: The number columns of a judge row; the others are text.
_NUMBERS = ("estimate", "lo", "hi", "n")


def inputs_digest(jury: pd.DataFrame, judgments: pd.DataFrame, annotations: pd.DataFrame,
                  predictions: pd.DataFrame, *, seed: int, split: str, first: int = 0,
                  raters: pd.DataFrame | None = None) -> str:
    """sha256 of everything the audit reads: the five tables in :func:`canonical` order (columns, types, every
    value; ``raters`` None: ``annotations``), the seed and split its fits are seeded by, and a cascade's first
    judges (0, none: no mark)."""
    cascade = f"\x1fcascade {first}" if first else ""
    h = hashlib.sha256(f"sideways.audit\x1f{seed}\x1f{split}{cascade}".encode())
    for frame in canonical(jury, judgments, annotations, predictions, annotations if raters is None else raters):
        h.update(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
        h.update(len(frame).to_bytes(8, "little"))
        if len(frame.columns) and len(frame):
            h.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return h.hexdigest()


#: The columns each table is sorted by before the audit reads it (stable: a prediction's labels keep their order).
_KEYS = (("riddle_id", "model"), ("riddle_id", "model", "judge"), ("riddle_id", "model"), ("riddle_id", "model"),
         ("riddle_id", "model"))


def canonical(*frames: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
    """The tables (jury, judgments, annotations, predictions, raters: the first ones given) sorted by their keys, so
    that the audit (the fits' row order, the length thirds' ties) does not depend on the order models are listed
    in, nor on who read the files: a prediction's labels keep their order (its first label stays first)."""
    return tuple(f.sort_values(list(k), kind="stable").reset_index(drop=True) if set(k) <= set(f.columns) else f
                 for f, k in zip(frames, _KEYS, strict=False))


def annotator_audits(jury: pd.DataFrame, judgments: pd.DataFrame, raters: pd.DataFrame, *, seed: int, split: str,
                     first: int = 0) -> list[AnnotatorAudit]:
    """Every annotator of ``raters`` audited (:func:`sideways.scoring.annotator_audit.audit_annotators`) on the
    tables in :func:`canonical` order: the one function behind the record, the report, ``sideways annotate stats``
    and the app's progress view (``first``: a cascade's first judges)."""
    empty = pd.DataFrame(columns=["riddle_id", "model"])
    jury, judgments, _, _, raters = canonical(jury, judgments, empty, empty, raters)
    return audit_annotators(jury, judgments, raters, seed=seed, stream=split, first=first)


def judge_audit_table(jury: pd.DataFrame, judgments: pd.DataFrame, annotations: pd.DataFrame,
                predictions: pd.DataFrame | None, *, seed: int, split: str, first: int = 0) -> pd.DataFrame:
    """The judges' audit (:func:`sideways.scoring.judge_audit.audit_judges`) of the tables in :func:`canonical`
    order: the one estimator behind the record, the report and ``sideways show --judges``. ``first``: a cascade's
    first judges (``jury.cascade.first``): the verdicts it did not ask are not asked, not "no verdict"."""
    empty = pd.DataFrame(columns=["riddle_id", "model", "answer", "justification"])
    jury, judgments, annotations, ordered = canonical(jury, judgments, annotations,
                                                      empty if predictions is None else predictions)
    rates = posterior_rows(jury, judgments, annotations, seed=seed, stream=split, first=first)
    return audit_judges(rates, jury, judgments, None if predictions is None else ordered)


def audit_summary(jury: pd.DataFrame, judgments: pd.DataFrame, annotations: pd.DataFrame,
                  predictions: pd.DataFrame, *, seed: int, split: str, first: int = 0,
                  raters: pd.DataFrame | None = None) -> dict[str, Any]:
    """``{"annotators": [...], "judges": [...]}`` of one split: the annotators of ``raters`` (every label the audit
    reads; None: ``annotations``), the judges against ``annotations``; empty lists when the split has no verdict (or
    no label, for the annotators). ``first``: :func:`judge_audit_table`'s."""
    raters = annotations if raters is None else raters
    try:
        annotators = annotator_audits(jury, judgments, raters, seed=seed, split=split, first=first)
        judges = judge_audit_table(jury, judgments, annotations, predictions, seed=seed, split=split, first=first)
    except (SidewaysError, ValueError):  # a split without a single verdict: nothing to audit
        return {"annotators": [], "judges": []}
    return {
        "annotators": [{"annotator": a.annotator, "labels": a.labels, "double": a.double,
                        "agreement": {f: a.agreement[f] for f in LABEL_FIELDS},
                        "flagged": list(a.flagged), "evidence": a.evidence(),
                        "error": {f: {"mean": r.mean, "lo": r.lo, "hi": r.hi} for f, r in a.error.items()}}
                       for a in annotators],
        "judges": [{k: (float(v) if k in _NUMBERS else str(v)) for k, v in row.items()}
                   for row in judges.to_dict("records")],
    }


def audit_record(jury: pd.DataFrame, judgments: pd.DataFrame, annotations: pd.DataFrame,
                 predictions: pd.DataFrame, *, seed: int, split: str, first: int = 0,
                 raters: pd.DataFrame | None = None) -> dict[str, Any]:
    """What the calibrate stage writes: ``{"inputs": digest, "audit": summary}`` (:func:`inputs_digest`,
    :func:`audit_summary`; ``first``: a cascade's first judges; ``raters``: every label the annotators' audit
    reads)."""
    args = (jury, judgments, annotations, predictions)
    return {"inputs": inputs_digest(*args, seed=seed, split=split, first=first, raters=raters),
            "audit": audit_summary(*args, seed=seed, split=split, first=first, raters=raters)}


def check_record(data: Any, where: str) -> dict[str, Any]:
    """``data`` (a parsed audit record, :func:`audit_record`) when it has the record's shape; otherwise a
    one-line :class:`SidewaysError` naming ``where`` and the first field at fault."""
    def fail(field: str, why: str) -> SidewaysError:
        return SidewaysError(f"{where}: {field}: {why} (not the calibrate stage's audit record; rerun "
                             f"`dvc repro calibrate`)")

    if not isinstance(data, dict) or set(data) != {"inputs", "audit"}:
        raise fail("top level", "expected an object with exactly `inputs` and `audit`")
    if not isinstance(data["inputs"], str) or len(data["inputs"]) != 64:
        raise fail("inputs", "expected a sha256 digest")
    audit = data["audit"]
    if not isinstance(audit, dict) or set(audit) != {"annotators", "judges"}:
        raise fail("audit", "expected an object with exactly `annotators` and `judges`")
    for kind in ("annotators", "judges"):
        if not isinstance(audit[kind], list) or not all(isinstance(r, dict) for r in audit[kind]):
            raise fail(f"audit.{kind}", "expected a list of objects")
    for i, row in enumerate(audit["annotators"]):
        _check_annotator(row, lambda f, why, i=i: fail(f"audit.annotators[{i}].{f}", why))
    for i, row in enumerate(audit["judges"]):
        if set(row) != set(COLUMNS):
            raise fail(f"audit.judges[{i}]", f"expected the fields {', '.join(COLUMNS)}")
        for k in COLUMNS:
            ok = _number(row[k], 0.0, math.inf if k == "n" else 1.0) if k in _NUMBERS else isinstance(row[k], str)
            if not ok:
                raise fail(f"audit.judges[{i}].{k}", "expected a finite number in range" if k in _NUMBERS
                           else "expected text")
    return data


def _check_annotator(row: dict[str, Any], fail: Any) -> None:
    """One annotator's entry of an audit record: raises ``fail(field, why)`` at the first field at fault."""
    if set(row) != {"annotator", "labels", "double", "agreement", "flagged", "evidence", "error"}:
        raise fail("(fields)", "expected annotator, labels, double, agreement, flagged, evidence, error")
    if not isinstance(row["annotator"], str) or not isinstance(row["evidence"], str):
        raise fail("annotator", "expected text (and text evidence)")
    for count in ("labels", "double"):
        if not isinstance(row[count], int) or isinstance(row[count], bool) or row[count] < 0:
            raise fail(count, "expected a count")
    agreement = row["agreement"]
    if not isinstance(agreement, dict) or set(agreement) != set(LABEL_FIELDS) \
            or not all(v is None or _number(v, 0.0, 1.0) for v in agreement.values()):
        raise fail("agreement", f"expected {', '.join(LABEL_FIELDS)}: a share in [0, 1] or null")
    flagged = row["flagged"]
    if not isinstance(flagged, list) or not all(isinstance(f, str) and f in LABEL_FIELDS for f in flagged):
        raise fail("flagged", f"expected a list of {', '.join(LABEL_FIELDS)}")
    error = row["error"]
    if not isinstance(error, dict) or set(error) != set(LABEL_FIELDS):
        raise fail("error", f"expected the fields {', '.join(LABEL_FIELDS)}")
    for f, rate in error.items():
        if not isinstance(rate, dict) or set(rate) != {"mean", "lo", "hi"} \
                or not all(_number(rate[k], 0.0, 1.0) for k in ("mean", "lo", "hi")):
            raise fail(f"error.{f}", "expected mean, lo, hi: finite numbers in [0, 1]")


def _number(v: Any, lo: float, hi: float) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and lo <= v <= hi
