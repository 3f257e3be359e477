"""Everything the report shows, as plain data: per split, the leaderboard, analytics and explorer;
per exam, its page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sideways.artifacts.failures import FailedJob
from sideways.config.params import Params
from sideways.report import analytics as an
from sideways.report.audit import audit_summary
from sideways.report.exam_page import exam_page
from sideways.report.explorer import explorer
from sideways.report.inputs import ExamTables, SplitTables
from sideways.report.leaderboard import leaderboard_rows
from sideways.report.outcomes import prediction_outcomes
from sideways.scoring.costs import design_summary, split_costs
from sideways.scoring.display import model_label
from sideways.scoring.pairwise import agrees, pairwise
from sideways.scoring.ranking import rank_leaderboard


@dataclass(frozen=True)
class Report:
    """The report's data: ``summary`` (loaded first), explorer ``chunks`` per split, ``images``,
    and each exam's question chunks by exam key."""

    summary: dict[str, Any]
    chunks: dict[str, list[list[dict[str, Any]]]]
    images: dict[str, bytes]
    exam_chunks: dict[str, list[list[dict[str, Any]]]] = field(default_factory=dict)
    #: each exam's reply files (``exam_replies``), by relative path, ready to write
    exam_files: dict[str, bytes] = field(default_factory=dict)


def split_analytics(t: SplitTables, outcomes: Any, field: str, models: list[str], seed: int = 0,
                    split: str = "", first: int = 0) -> dict[str, Any]:
    """The analytics tab of one split (``first``: a cascade's first judges, for the raters' audit)."""
    riddle = t.riddles.set_index("riddle_id")
    by_riddle = outcomes["riddle_id"].map
    hints = outcomes[["riddle_id", "model"]].merge(t.predictions[["riddle_id", "model", "n_hints"]], how="left")
    return {
        "by_category": an.breakdown(outcomes, by_riddle(riddle["category"]), models),
        "by_picarats": an.breakdown(outcomes, by_riddle(riddle["picarats"].map(an.picarats_band)), models),
        "by_hints": an.breakdown(outcomes, hints["n_hints"].map(lambda h: f"{h} hint(s)"), models),
        "answer_vs_justification": an.answer_vs_justification(outcomes, models),
        "judges": an.judge_agreement(t.judgments, t.annotations, field),
        "calibration": an.calibration_bins(t.jury, t.annotations, field),
        "costs": an.costs(t.predictions, t.judgments),
        "failures": an.failures(t.predictions, t.judgments, models),
        "audit": audit_summary(t, seed, split, first),
    }


def design(params: Params, split: str, t: SplitTables) -> dict[str, Any]:
    """Each model's cost on ``split`` against the full design, and the label count (as ``sideways show`` prints)."""
    shown = set(t.predictions["model"])  # a model whose job failed has no row to cost
    costs = [c for c in split_costs(params, split, t.predictions, t.judgments) if c.model in shown]
    return design_summary(costs, len(t.annotations))


def missing_rows(failed: Sequence[FailedJob], benchmark: str) -> list[dict[str, str]]:
    """A row per model missing from ``benchmark``: the first of its jobs there that failed, and why."""
    seen: dict[str, FailedJob] = {}
    for f in failed:
        if f.benchmark == benchmark and f.model not in seen:
            seen[f.model] = f
    return [{"model": m, "label": model_label(m), "job": f.job, "line": f.line()} for m, f in seen.items()]


def build_report(splits: dict[str, SplitTables], params: Params, header: dict[str, Any],
                 exams: Sequence[ExamTables] = (), compare: dict[str, Any] | None = None,
                 failed: Sequence[FailedJob] = ()) -> Report:
    """The whole report from each split's tables and each exam's (a page each, in the order
    given; none without exams); ``header`` says what produced it. ``compare`` (``sideways report
    --compare REV``): the rows of ``sideways diff REV`` for the compare page. ``failed``: the paid
    jobs that failed (docs/design.md, "Failed jobs"): each leaderboard names the models they leave out."""
    field = params.calibration.field
    models = [m.key for m in params.models]
    summary: dict[str, Any] = {
        "header": {**header, "field": field, "method": params.calibration.method,
                   "interval": params.calibration.interval, "posterior": params.calibration.posterior},
        "models": [{"key": m.key, "label": model_label(m.key), "name": m.name, "provider": m.provider,
                    "backend": m.backend} for m in params.models],
        "splits": {},
    }
    chunks: dict[str, list[list[dict[str, Any]]]] = {}
    images: dict[str, bytes] = {}
    for split, t in splits.items():
        taking = [m.key for m in params.models_taking(split)]  # the others have no rows here to show
        ranked = rank_leaderboard(t.scores)
        outcomes = prediction_outcomes(t.predictions, t.jury, t.annotations, t.judgments, field)
        index, chunks[split], split_images = explorer(t.riddles, t.predictions, outcomes, t.judgments, field, models)
        images |= split_images
        # the rank stage's table when it was made for these scores (it costs O(models^2) to redo): the
        # leaderboard's rank sets and tie groups and the Compare tab's cells, from one set of draws
        pairs = t.pairwise if agrees(t.pairwise, ranked) else pairwise(ranked, t.jury, t.annotations)
        summary["splits"][split] = {
            "leaderboard": leaderboard_rows(t.scores, field, pairs),
            "models": taking,
            "analytics": split_analytics(t, outcomes, field, taking, params.seed, split, params.jury.cascade.first)
            | {"design": design(params, split, t)},
            "index": index,
            "chunks": len(chunks[split]),
            "pairwise": pairs,
            "missing": missing_rows(failed, split),
        }
    summary["failed"] = [{"job": f.job, "line": f.line()} for f in failed]
    summary["compare"] = compare
    summary["exams"], exam_chunks = [], {}
    exam_files: dict[str, bytes] = {}
    for e in exams:
        page, exam_chunks[e.key], replies = exam_page(e, models)
        summary["exams"].append(page)
        exam_files |= replies
    return Report(summary, chunks, images, exam_chunks, exam_files)
