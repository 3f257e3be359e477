"""The ``width`` queue (issue 30): the label expected to narrow the posterior intervals most comes first."""

from __future__ import annotations

import numpy as np
import pytest

from sideways.annotation.log import Event
from sideways.annotation_app.gain import Cell, count_variance, half_width_gains
from sideways.annotation_app.queue import Candidate, Plan, next_item
from sideways.scoring.posterior import beta_binomial_pmf


@pytest.mark.parametrize(("u", "alpha", "beta"), [(7, 0.3, 2.0), (20, 5.5, 1.5), (1, 1.0, 1.0)])
def test_count_variance_is_the_beta_binomials(u, alpha, beta):
    pmf = beta_binomial_pmf(u, alpha, beta)
    t = np.arange(u + 1)
    assert count_variance(u, alpha, beta) == pytest.approx(float((pmf * t**2).sum() - (pmf * t).sum() ** 2))


def test_a_label_in_an_uncertain_crowded_bin_gains_most_and_a_full_bin_nothing():
    cells = {
        ("m1", (1, 3)): Cell("openai", n=20, labelled=0),      # middling, many unlabelled, no label yet
        ("m1", (0, 1)): Cell("openai", n=20, labelled=10, positive=0),  # near-certain: labels agree
        ("m1", (1, 1)): Cell("openai", n=4, labelled=4, positive=4),     # everything labelled
        ("m2", (1, 3)): Cell("gemini", n=10, labelled=5, positive=2),
        ("m2", (0, 1)): Cell("gemini", n=10, labelled=5, positive=0),
    }
    gain = half_width_gains(cells)
    assert gain[("m1", (1, 1))] == 0.0
    assert max(gain, key=lambda k: gain[k]) == ("m1", (1, 3))
    assert gain[("m1", (1, 3))] > gain[("m1", (0, 1))] > 0


def _label(c: Candidate, line: int, right: bool) -> Event:
    return Event("label", c.riddle_id, c.model, "old", line,
                 {"human_answer_correct": right, "human_justification_correct": right})


def test_the_width_queue_labels_the_widest_model_where_the_holes_queue_would_not():
    # m-open: 30 predictions in the middling bin 1/3 (3 labelled) and 30 in bin 0 (20 labelled, all
    # wrong); m-gem: 36 in bin 0, 5 labelled, all wrong. openai has far more labels than gemini.
    pool = [Candidate(f"r{i:02d}", "m-open", "openai", (1, 3) if i < 30 else (0, 1)) for i in range(60)]
    pool += [Candidate(f"r{i:02d}", "m-gem", "gemini", (0, 1)) for i in range(36)]
    labelled = [c for c in pool if (c.model == "m-open" and (int(c.riddle_id[1:]) < 3 or 30 <= int(c.riddle_id[1:]) < 50))
                or (c.model == "m-gem" and int(c.riddle_id[1:]) < 5)]
    events = [_label(c, i + 1, right=c.bin == (1, 3) and i % 2 == 0) for i, c in enumerate(labelled)]
    width = next_item(Plan(0, "llm", len(pool), 0.0, policy="width"), pool, events, "ana")
    assert width is not None and (width.model, width.bin) == ("m-open", (1, 3))
    # the old queue spreads labels over providers: gemini, which has fewer, comes first
    holes = next_item(Plan(0, "llm", len(pool), 0.0, policy="holes"), pool, events, "ana")
    assert holes is not None and holes.model == "m-gem"
