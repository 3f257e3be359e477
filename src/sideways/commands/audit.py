"""The raters' audit as the commands print it: every annotator (``sideways annotate stats``) and every judge
(``sideways show --judges``), read from the split's tables the pipeline wrote (docs/method.md §6, "Raters
audited")."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from sideways.annotation.log import Event
from sideways.annotation.rater_labels import audit_labels, event_labels
from sideways.annotation_app.audit_field import split_tables
from sideways.artifacts import paths
from sideways.artifacts.io import read_table, read_tables
from sideways.artifacts.schema import ANNOTATIONS, PREDICTIONS
from sideways.config.params import Params
from sideways.core.errors import SidewaysError
from sideways.report.inputs import read_audit
from sideways.scoring.annotator_audit import annotator_lines
from sideways.scoring.judge_audit import COLUMNS
from sideways.scoring.rater_audit import annotator_audits, inputs_digest, judge_audit_table


def print_annotator_audit(params: Params, split: str, events: list[Event]) -> None:
    """``annotate stats``'s audit: per annotator, agreement and the latent posterior's error rates."""
    print("\nannotators audited (error rates from the latent posterior fitted without each one's labels,\n95% "
          "intervals; flagged: the interval's lower end above twice the others' median rate, or the double\n"
          "labels' disputes, each charged to the label the judges and other labels say erred, charging it more than\n"
          "the others (p < 0.01)):")
    try:
        jury, judgments = split_tables(split, [m.key for m in params.models_taking(split)])
        audits = annotator_audits(jury, judgments, event_labels(events), seed=params.seed, split=split,
                                  first=params.jury.cascade.first)
    except SidewaysError as e:  # no verdicts yet (a CalibrationError too): one line, the rest of stats stands
        print(f"  {e}")
        return
    print("\n".join("  " + line for line in annotator_lines(audits)))


def judge_table(audit: pd.DataFrame) -> list[str]:
    """Per judge and group: answer and justification sensitivity and specificity with their 95% intervals; the judge
    and group columns as wide as their longest entry, the whole line within 120 columns."""
    cell = {(str(r.judge), str(r.group), str(r.value), str(r.field), str(r.measure)):
            f"{r.estimate:.2f} [{r.lo:.2f}, {r.hi:.2f}]" for r in audit.itertuples()}
    cols = [("answer", "sensitivity"), ("answer", "specificity"), ("justification", "sensitivity"),
            ("justification", "specificity")]
    groups = [(str(j), str(g), str(v)) for j, g, v in audit[["judge", "group", "value"]].drop_duplicates()
              .itertuples(index=False)]
    labels = ["all" if g == "all" else f"{'model of ' if g == 'provider' else 'reply '}{v}" for _, g, v in groups]
    rows_w = min(24, max([len("rows"), *map(len, labels)]))
    judge_w = min(120 - 2 - rows_w - 4 * 18 - 3, max([len("judge"), *(len(j) for j, _, _ in groups)]))
    out = [f"{'judge':<{judge_w}} {'rows':<{rows_w}} {'answer sens':<18} {'answer spec':<18} {'justif. sens':<18} "
           "justif. spec"]
    for (judge, group, value), label in zip(groups, labels, strict=True):
        name = judge if len(judge) <= judge_w else judge[: judge_w - 1] + "~"
        out.append(f"{name:<{judge_w}} {label[:rows_w]:<{rows_w}} "
                   + " ".join(f"{cell.get((judge, group, value, *c), '-'):<18}" for c in cols).rstrip())
    return out


def judge_audit_frame(params: Params, split: str) -> pd.DataFrame:
    """The judges' audit of ``split`` from the pipeline's tables (:func:`sideways.scoring.judge_audit.audit_judges`),
    rows ordered by judge, then all, provider, length: the calibrate stage's record (``metrics/audit/<split>.json``)
    when its digest is the one of the tables read here, computed otherwise."""
    jury, judgments = split_tables(split, [m.key for m in params.models_taking(split)])
    labels = read_table(paths.annotations(split), ANNOTATIONS) if paths.annotations(split).exists() else None
    annotations = labels if labels is not None else pd.DataFrame(columns=ANNOTATIONS.names)
    predictions = _predictions(params, split)
    record = read_audit(paths.audit(split))
    raters = audit_labels(params.annotations.source_for(split), paths.LABELS, split, annotations)
    if (record is not None and record["audit"]["judges"] and predictions is not None  # made from these tables
            and record["inputs"] == inputs_digest(jury, judgments, annotations, predictions, seed=params.seed,
                                                  split=split, first=params.jury.cascade.first, raters=raters)):
        out = pd.DataFrame(record["audit"]["judges"], columns=list(COLUMNS))
    else:
        out = judge_audit_table(jury, judgments, annotations, predictions, seed=params.seed, split=split,
                                first=params.jury.cascade.first)
    order = {"all": 0, "provider": 1, "length": 2}
    return out.sort_values(["judge", "group"], key=lambda s: s.map(order) if s.name == "group" else s,
                           kind="stable").reset_index(drop=True)


def _predictions(params: Params, split: str) -> pd.DataFrame | None:
    found: list[Path] = [paths.predictions(split, m.key) for m in params.models_taking(split)
                         if paths.predictions(split, m.key).exists()]
    return read_tables(found, PREDICTIONS, f"{split} predictions") if found else None


def print_judges(params: Params) -> int:
    """``sideways show --judges``: per split, every judge's rates as the latent posterior sees them."""
    for split in params.splits:
        print(f"\n{split} split: judges audited (the latent posterior's rates against the truth it infers, 95% "
              f"intervals;\nrows: every graded reply, the models of one provider, the thirds of replies by length)\n")
        print("\n".join(judge_table(judge_audit_frame(params, split))))
    return 0
