"""The report's audit of the raters (docs/method.md §6, "Raters audited"): per split, every annotator's error
rates and flag and every judge's sensitivity and specificity per field, graded provider and reply length
(:func:`sideways.scoring.rater_audit.audit_summary`), as plain data for the analytics tab (rendered by
``assets/audit.js``, every name as text). The calibrate stage's record of the split (``metrics/audit/<split>.json``)
is taken when its digest is the one of the tables the report read (the label log's every label among them:
``t.raters``); otherwise the audit is computed here, by the same function."""

from __future__ import annotations

from typing import Any

from sideways.report.inputs import SplitTables
from sideways.scoring.rater_audit import audit_summary as compute_summary
from sideways.scoring.rater_audit import inputs_digest


def audit_summary(t: SplitTables, seed: int, split: str, first: int = 0) -> dict[str, Any]:
    """``{"annotators": [...], "judges": [...]}`` of one split: the calibrate stage's record when it was computed
    from these very tables (``t.audit``), the same function's answer otherwise (``first``: a cascade's first
    judges)."""
    frames = (t.jury, t.judgments, t.annotations, t.predictions)
    digest = inputs_digest(*frames, seed=seed, split=split, first=first, raters=t.raters)
    if t.audit is not None and t.audit["inputs"] == digest:
        out: dict[str, Any] = t.audit["audit"]
        return out
    return compute_summary(*frames, seed=seed, split=split, first=first, raters=t.raters)
