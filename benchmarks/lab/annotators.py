"""Simulated annotators of known care, for measuring the annotator audit (sideways.scoring.annotator_audit).

Each labelled prediction goes to one annotator by a seeded coin of its own (seed, model, riddle); a ``careful``
annotator writes the truth, a ``careless`` one copies its answer label into the justification (a justification
marked right whenever the answer is), a ``random`` one flips each field with probability ``rate``. A second,
careful label of a ``double`` share of the predictions is appended after the first ones (the annotation app's
double-labelling), by another annotator; and each annotator's ``first_double`` first labels are second labels on
predictions another annotator (of any kind) labelled first (``annotations.first_double``), chosen by a seeded coin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from sideways.core.seeding import rng_for, stable_int

KINDS = ("careful", "careless", "random")


@dataclass(frozen=True)
class Annotator:
    """A simulated annotator: its name, kind (:data:`KINDS`) and, for ``random``, each field's flip rate."""

    name: str
    kind: str
    rate: float = 0.0

    def write(self, answer: bool, justification: bool, seed: int, model: str, riddle: str) -> tuple[bool, bool]:
        """The label this annotator gives a prediction whose truth is (answer, justification)."""
        if self.kind == "careless":
            return answer, answer
        if self.kind == "random":
            flip = rng_for(seed, "careless-audit", self.name, model, riddle).random(2) < self.rate
            return bool(answer != flip[0]), bool(justification != flip[1])
        return answer, justification


def team(careful: int = 3, careless: int = 1, random: int = 1, rate: float = 0.05) -> tuple[Annotator, ...]:
    """``careful`` careful annotators, then the careless and the random ones."""
    people = [Annotator(f"careful-{i + 1}", "careful") for i in range(careful)]
    people += [Annotator(f"careless-{i + 1}", "careless") for i in range(careless)]
    people += [Annotator(f"random-{i + 1}", "random", rate) for i in range(random)]
    return tuple(people)


def relabel(truth: pd.DataFrame, people: Sequence[Annotator], seed: int, double: float = 0.0,
            first_double: int = 0) -> pd.DataFrame:
    """``truth`` (an ANNOTATIONS table of true labels) relabelled by ``people``, then a second label by another,
    careful, annotator on a ``double`` share of the predictions, and each annotator's ``first_double`` second labels
    (after all first labels, as a log would be)."""
    first, second = [], []
    by: dict[tuple[str, str], str] = {}
    careful = [p for p in people if p.kind == "careful"]
    for row in truth.to_dict("records"):
        m, r = str(row["model"]), str(row["riddle_id"])
        who = people[stable_int(seed, "audit-annotator", m, r) % len(people)]
        a, j = who.write(bool(row["human_answer_correct"]), bool(row["human_justification_correct"]), seed, m, r)
        first.append({**row, "annotator": who.name, "human_answer_correct": a, "human_justification_correct": j,
                      "human_both_correct": a and j})
        by[(m, r)] = who.name
        if double and rng_for(seed, "audit-double", m, r).random() < double:
            others = [p for p in careful if p.name != who.name]
            if others:
                two = others[stable_int(seed, "audit-second", m, r) % len(others)]
                second.append({**row, "annotator": two.name})
    rows = truth.to_dict("records")
    for p in people if first_double else ():
        theirs = [row for row in rows if by[(str(row["model"]), str(row["riddle_id"]))] != p.name]
        theirs.sort(key=lambda row: stable_int(seed, "audit-first-double", p.name, str(row["model"]),
                                               str(row["riddle_id"])))
        for row in theirs[:first_double]:
            a, j = p.write(bool(row["human_answer_correct"]), bool(row["human_justification_correct"]), seed,
                           str(row["model"]), str(row["riddle_id"]))
            second.append({**row, "annotator": p.name, "human_answer_correct": a, "human_justification_correct": j,
                           "human_both_correct": a and j})
    return pd.DataFrame(first + second, columns=list(truth.columns))
