"""The report's audit of the raters (docs/method.md §6, "Raters audited"): per split, every annotator's error
rates and flag (:mod:`sideways.scoring.annotator_audit`, from the labels calibration used) and every judge's
sensitivity and specificity per field, graded provider and reply length (:mod:`sideways.scoring.judge_audit`),
as plain data for the analytics tab (rendered by ``assets/audit.js``, every name as text)."""

from __future__ import annotations

from typing import Any

from sideways.core.errors import SidewaysError
from sideways.report.inputs import SplitTables
from sideways.scoring.annotator_audit import audit_annotators
from sideways.scoring.judge_audit import audit_judges, posterior_rows


def audit_summary(t: SplitTables, seed: int, split: str) -> dict[str, Any]:
    """``{"annotators": [...], "judges": [...]}`` of one split; empty lists when the split has no verdict (or no
    label, for the annotators)."""
    try:
        annotators = audit_annotators(t.jury, t.judgments, t.annotations, seed=seed, stream=split)
        rates = posterior_rows(t.jury, t.judgments, t.annotations, seed=seed, stream=split)
    except (SidewaysError, ValueError):  # a split without a single verdict: nothing to audit
        return {"annotators": [], "judges": []}
    judges = audit_judges(rates, t.jury, t.judgments, t.predictions)
    return {
        "annotators": [{"annotator": a.annotator, "labels": a.labels, "flagged": list(a.flagged),
                        "evidence": a.evidence(),
                        "error": {f: {"mean": r.mean, "lo": r.lo, "hi": r.hi} for f, r in a.error.items()}}
                       for a in annotators],
        "judges": [{k: (float(v) if k in ("estimate", "lo", "hi", "n") else str(v)) for k, v in row.items()}
                   for row in judges.to_dict("records")],
    }
