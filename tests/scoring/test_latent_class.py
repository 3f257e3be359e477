"""sideways.scoring.latent_class and latent_prior: the latent posterior (docs/method.md §6)."""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from sideways.core.errors import CalibrationError
from sideways.scoring import latent_class as lc
from sideways.scoring.calibration import score_models
from sideways.scoring.jury import jury_table


def test_lgamma_matches_math():
    x = np.array([1e-6, 0.01, 0.5, 1.0, 2.5, 7.0, 40.0, 1e4, 3e6, 1e30])
    assert lc.lgamma(x) == pytest.approx([math.lgamma(v) for v in x], rel=1e-10, abs=1e-10)


def test_count_pmf_is_the_poisson_binomial_averaged_over_draws():
    right = np.array([[0.1, 0.5, 0.9], [0.3, 0.3, 0.0]])
    want = np.zeros(4)
    for p in right:
        for bits in itertools.product((0, 1), repeat=3):
            want[sum(bits)] += 0.5 * math.prod(q if b else 1 - q for q, b in zip(p, bits, strict=True))
    assert lc.count_pmf(right) == pytest.approx(want)
    assert lc.count_pmf(np.zeros((3, 0))) == pytest.approx([1.0])


def _predicted(rng: np.random.Generator, rid: str, m: str, prov: str, skill: float,
               preds: list[dict], labels: list[dict]) -> tuple[bool, bool]:
    """One prediction of model ``m`` on riddle ``rid`` (right with probability ``skill``, its justification right
    with 0.9 when the answer is), appended with its label; its true (answer, justification)."""
    a = bool(rng.random() < skill)
    j = a and bool(rng.random() < 0.9)
    preds.append({"riddle_id": rid, "model": m, "provider": prov, "model_name": m, "n_hints": 0})
    labels.append({"riddle_id": rid, "model": m, "provider": prov, "human_answer_correct": a,
                   "human_justification_correct": j, "human_both_correct": a and j, "annotator": "t"})
    return a, j


def _world(seed: int, n_riddles: int = 60, skills=(0.3, 0.8), together: float = 0.0):
    """Predictions, judgments (three judges, errors shared on 'hard' riddles with probability together),
    the truth and every label."""
    rng = np.random.default_rng(seed)
    preds, judgs, labels = [], [], []
    models = [(f"m{i}", prov, s) for i, (prov, s) in enumerate(zip(("openai", "gemini"), skills, strict=True))]
    for m, prov, skill in models:
        for r in range(n_riddles):
            rid = f"r{r:03d}"
            a, j = _predicted(rng, rid, m, prov, skill, preds, labels)
            hard = rng.random() < together
            for k in ("j1", "j2", "j3"):
                flip = hard or rng.random() < 0.1
                judgs.append({"riddle_id": rid, "model": m, "judge": k, "judge_provider": "mistral", "status": "ok",
                              "is_answer_correct": a != flip, "is_justification_correct": j != flip,
                              "both_correct": (a != flip) and (j != flip)})
    predictions, judgments, annotations = pd.DataFrame(preds), pd.DataFrame(judgs), pd.DataFrame(labels)
    jury = jury_table(judgments, predictions, {m: ["j1", "j2", "j3"] for m, _, _ in models})
    return jury, judgments, annotations


def test_table_evidence_codes_every_verdict_pair_and_label():
    jury, judgments, annotations = _world(0, n_riddles=5)
    rows = lc.table_evidence(jury, judgments, annotations.iloc[:3])
    assert len(rows.keys) == 10 and rows.models == ("m0", "m1")
    assert (rows.evidence.label[:3] >= 0).all() and (rows.evidence.label[3:] == -1).all()
    codes = rows.evidence.pattern_codes[rows.evidence.pattern]
    assert ((codes >= 0) & (codes < lc.CODES)).all()


def test_sampling_is_seeded_by_seed_and_stream():
    jury, judgments, annotations = _world(1)
    ev = lc.table_evidence(jury, judgments, annotations.sample(frac=0.2, random_state=0)).evidence
    a = lc.sample(ev, "both_correct", seed=3, stream="llm", burn_in=5, draws=10)
    b = lc.sample(ev, "both_correct", seed=3, stream="llm", burn_in=5, draws=10)
    c = lc.sample(ev, "both_correct", seed=3, stream="vlm", burn_in=5, draws=10)
    assert a.right.tobytes() == b.right.tobytes() and a.right.tobytes() != c.right.tobytes()


def test_a_strong_model_is_told_from_a_weak_one_by_its_verdicts():
    jury, judgments, annotations = _world(2, n_riddles=120)
    kept = annotations.groupby("model").head(10)
    rows = lc.table_evidence(jury, judgments, kept)
    draws = lc.sample(rows.evidence, "both_correct", seed=0, stream="t")
    truth = annotations.groupby("model")["human_both_correct"].mean()
    for i, m in enumerate(rows.models):
        mine = rows.evidence.model == i
        assert draws.right[:, mine].mean(axis=0).sum() / mine.sum() == pytest.approx(truth[m], abs=0.06)


def _scores(posterior: str, jury, judgments, labels, truth):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the published interval's empty bins
        return score_models(jury, labels, field="both_correct", method="exact", bootstrap=0, seed=0,
                            posterior=posterior, judgments=judgments, stream="llm", truth=truth).set_index("model")


def test_the_latent_posterior_needs_the_judgments():
    jury, _, annotations = _world(3, n_riddles=10)
    with pytest.raises(CalibrationError, match="judgments"):
        score_models(jury, annotations, field="both_correct", method="exact", bootstrap=0, seed=0, posterior="latent")


def test_every_label_gives_the_truth_and_few_labels_a_narrower_honest_interval():
    jury, judgments, annotations = _world(4, n_riddles=120)
    truth = annotations.groupby("model")["human_both_correct"].mean().to_dict()
    full = _scores("latent", jury, judgments, annotations, truth)
    assert (full["posterior_half_width"] == 0).all()
    # a label may be wrong (its rate learned, prior mean 0.02): with labels that agree with the panels, the
    # labelled count's doubt moves the score by less than 0.01 points
    assert full["posterior_score"].to_dict() == pytest.approx(truth, abs=1e-4)
    few = annotations.groupby("model").head(15)
    latent, v1 = _scores("latent", jury, judgments, few, truth), _scores("v1", jury, judgments, few, truth)
    assert latent["posterior_covered"].all()
    assert (latent["posterior_half_width"] < v1["posterior_half_width"]).all()


def test_judges_who_err_together_still_give_an_honest_narrower_interval():
    """Judges who all flip together on 5% of riddles (the latent-class model alone assumes they never do):
    the interval holds the truth, narrower than v1's."""
    covered, widths = [], []
    for seed in range(4):
        jury, judgments, annotations = _world(10 + seed, n_riddles=80, together=0.05)
        truth = annotations.groupby("model")["human_both_correct"].mean().to_dict()
        few = annotations.groupby("model").head(20)
        latent, v1 = _scores("latent", jury, judgments, few, truth), _scores("v1", jury, judgments, few, truth)
        covered += latent["posterior_covered"].tolist()
        widths.append(latent["posterior_half_width"].mean() / v1["posterior_half_width"].mean())
    assert all(covered) and np.mean(widths) < 0.9


def test_ranks_tie_groups_and_rank_sets_follow_the_latent_posterior():
    """The pairwise draws start from the latent posterior's own mean (the leaderboard's score): its priors
    travel in the scores table, so the rank stage needs no judgments."""
    from sideways.scoring.pairwise import pairwise
    from sideways.scoring.ranking import rank_leaderboard

    jury, judgments, annotations = _world(5, n_riddles=60)
    few = annotations.groupby("model").head(15)
    ranked = rank_leaderboard(_scores("latent", jury, judgments, few, None).reset_index())
    out = pairwise(ranked, jury, few, replicates=200)
    scores = ranked.set_index("model")["posterior_score"]
    (pair,) = out["pairs"]
    assert pair["change"] == pytest.approx(100 * (scores[pair["a"]] - scores[pair["b"]]), abs=0.01)
    assert set(out["rank_sets"]) == {"m0", "m1"}


def test_alpha_likelihoods_are_the_dirichlet_multinomials_of_every_alpha():
    """The sampler's alpha step, every alpha of the grid in one vectorised call, against the formula term by
    term with math.lgamma (and the multinomial for alpha = infinity)."""
    rng = np.random.default_rng(0)
    n = rng.integers(0, 40, size=(7, lc.CLASSES)).astype(float)
    n[2, 1] = 0.0
    panel = np.array([0, 0, 1, 1, 1, 0, 1])
    big = np.zeros((2, lc.CLASSES))
    np.add.at(big, panel, n)
    log_q = np.log(rng.dirichlet(np.ones(7), size=lc.CLASSES).T)
    got = lc.alpha_log_likelihoods(n, big, log_q)
    for a, value in zip(lc.ALPHAS, got, strict=True):
        if math.isinf(a):
            want = sum(n[p, c] * log_q[p, c] for p in range(7) for c in range(lc.CLASSES) if n[p, c] > 0)
        else:
            want = sum(math.lgamma(n[p, c] + a * math.exp(log_q[p, c])) - math.lgamma(a * math.exp(log_q[p, c]))
                       for p in range(7) for c in range(lc.CLASSES) if n[p, c] > 0)
            want += sum(math.lgamma(a) - math.lgamma(a + big[g, c]) for g in range(2) for c in range(lc.CLASSES)
                        if big[g, c] > 0)
        assert value == pytest.approx(want, rel=1e-10, abs=1e-8)


def test_a_providers_predictions_do_not_read_its_own_labels_and_are_seeded():
    """Each provider's rows are predicted by a fit without its models' labels (one evidence for every fit,
    the provider's labels hidden): flipping m1's labels moves m0's predictions, not m1's; the same inputs
    give the same bytes."""
    from sideways.scoring.latent_prior import predictions

    jury, judgments, annotations = _world(6, n_riddles=40)
    few = annotations.groupby("model").head(15)
    flipped = few.assign(human_answer_correct=np.where(few["model"] == "m1", ~few["human_answer_correct"],
                                                       few["human_answer_correct"]))
    flipped["human_justification_correct"] &= flipped["human_answer_correct"]
    kw = {"seed": 0, "stream": "llm"}
    a = predictions(jury, judgments, few, "both_correct", **kw).set_index(["model", "riddle_id"])["predicted"]
    b = predictions(jury, judgments, flipped, "both_correct", **kw).set_index(["model", "riddle_id"])["predicted"]
    again = predictions(jury, judgments, few, "both_correct", **kw).set_index(["model", "riddle_id"])["predicted"]
    assert a.to_numpy().tobytes() == again.to_numpy().tobytes()
    assert a.loc["m1"].to_numpy().tobytes() == b.loc["m1"].to_numpy().tobytes()
    assert a.loc["m0"].to_numpy().tobytes() != b.loc["m0"].to_numpy().tobytes()


def _fooled_world(seed: int, n_riddles: int = 80, fooled: float = 0.2):
    """Three models (skill 0.7), three judges right 90% of the time each, but on a ``fooled`` share of the
    riddles every judge calls every model's prediction wrong (a riddle hard to grade); m0 fully labelled."""
    rng = np.random.default_rng(seed)
    preds, judgs, labels, hard = [], [], [], {}
    for r in range(n_riddles):
        hard[f"r{r:03d}"] = bool(rng.random() < fooled)
    for m, prov in (("m0", "openai"), ("m1", "gemini"), ("m2", "anthropic")):
        for rid, is_hard in hard.items():
            a = bool(rng.random() < 0.7)
            preds.append({"riddle_id": rid, "model": m, "provider": prov, "model_name": m, "n_hints": 0})
            labels.append({"riddle_id": rid, "model": m, "provider": prov, "human_answer_correct": a,
                           "human_justification_correct": a, "human_both_correct": a, "annotator": "t"})
            for k in ("j1", "j2", "j3"):
                says = False if is_hard else a != bool(rng.random() < 0.1)
                judgs.append({"riddle_id": rid, "model": m, "judge": k, "judge_provider": "mistral", "status": "ok",
                              "is_answer_correct": says, "is_justification_correct": says, "both_correct": says})
    predictions, judgments, annotations = pd.DataFrame(preds), pd.DataFrame(judgs), pd.DataFrame(labels)
    jury = jury_table(judgments, predictions, {m: ["j1", "j2", "j3"] for m in ("m0", "m1", "m2")})
    return jury, judgments, annotations, hard


def test_a_label_of_one_model_teaches_the_jurys_error_on_its_riddle_for_every_model():
    """On a riddle the whole jury calls wrong for every model, m0's label "right" says the jury is fooled
    there: with riddle states, m1's and m2's unanimous "wrong" rows of such riddles are predicted right more
    often than the same verdicts on riddles where m0's verdicts matched its label; without (states=1) a
    row's prediction depends on its verdicts and model only."""
    jury, judgments, annotations, hard = _fooled_world(0, n_riddles=120, fooled=0.1)
    labelled = annotations[annotations["model"] == "m0"]
    rows = lc.table_evidence(jury, judgments, labelled)
    m0 = labelled.set_index("riddle_id")["human_both_correct"]
    codes = rows.evidence.pattern_codes[rows.evidence.pattern]
    called_wrong = (codes == 0).all(axis=1)
    other = (rows.keys["model"] != "m0").to_numpy() & called_wrong
    shown = rows.keys["riddle_id"].map(lambda r: bool(m0[r])).to_numpy()
    fooled = other & shown & rows.keys["riddle_id"].map(hard).to_numpy()
    plain = other & shown & ~rows.keys["riddle_id"].map(hard).to_numpy()
    assert fooled.sum() >= 8 and plain.sum() >= 8
    for states, gap in ((None, (0.3, 1.0)), (1, (-0.02, 0.02))):
        p = lc.sample(rows.evidence, "both_correct", seed=0, stream="t", states=states).predicted
        assert gap[0] < p[fooled].mean() - p[plain].mean() < gap[1]


def test_no_label_against_the_panel_opens_no_riddle_and_changes_no_draw():
    """Riddle states leave state 0 only where a label disagrees with every judge of its panel on a field: with
    labels that all agree with the majority, the draws are those of the sampler without states, byte for
    byte; a label against a unanimous panel opens its riddle (every row of it)."""
    jury, judgments, annotations, _ = _fooled_world(1, n_riddles=40, fooled=0.0)
    rows = lc.table_evidence(jury, judgments, annotations[annotations["model"] == "m0"])
    answer, _ = lc._majority(rows.evidence)
    label = rows.evidence.label
    agreeing = replace(rows.evidence, label=np.where((label >= 0) & (label % 2 == answer), label, -1))
    assert (agreeing.label >= 0).sum() > 20 and not lc.open_riddles(agreeing).any()
    a = lc.sample(agreeing, "both_correct", seed=0, stream="t", burn_in=3, draws=5)
    b = lc.sample(agreeing, "both_correct", seed=0, stream="t", burn_in=3, draws=5, states=1)
    assert a.right.tobytes() == b.right.tobytes()
    codes = agreeing.pattern_codes[agreeing.pattern]
    unanimous = (codes == codes[:, :1]).all(axis=1)
    first = int(np.flatnonzero((agreeing.label >= 0) & unanimous)[0])
    against = agreeing.label.copy()
    against[first] = 3 - against[first]
    opened = lc.open_riddles(replace(agreeing, label=against))
    assert (opened == (agreeing.riddle == agreeing.riddle[first])).all() and opened.sum() == 3


def _flip_against_unanimous_panels(rows, n: int):
    """Labels of ``rows`` with one field flipped in ``n`` rows whose whole panel agreed with the label: the
    justification of a "both right" label (3 -> 1) in the first half, the answer of a "both wrong" one (0 -> 1)
    in the second; the flipped rows' indices of each half."""
    ev = rows.evidence
    codes = ev.pattern_codes[ev.pattern]
    unanimous = (codes == codes[:, :1]).all(axis=1)
    agree = (ev.label >= 0) & unanimous & (codes[:, 0] % 3 == ev.label % 2) & (codes[:, 0] // 3 == ev.label // 2)
    right, wrong = np.flatnonzero(agree & (ev.label == 3))[: n // 2], np.flatnonzero(agree & (ev.label == 0))[: n // 2]
    label = ev.label.copy()
    label[right], label[wrong] = 1, 1
    return replace(ev, label=label), right, wrong


def test_a_label_against_a_unanimous_reliable_panel_is_doubted_not_taken():
    """Labels with one field flipped against a unanimous panel of good judges (right 90% of the time), 10 of 100
    labels, most rows unlabelled: the flipped "both right" labels (now "wrong justification") leave their rows'
    probability of being both right strictly between the label's 0 and the panel's (without the label), the
    flipped "both wrong" labels ("right answer") are overruled by the panel; taken as the truth (label_error
    None) each is its label exactly. The labels' learned error rate rises above its prior mean (0.02)."""
    jury, judgments, annotations = _world(7, n_riddles=200)
    rows = lc.table_evidence(jury, judgments, annotations.groupby("model").head(50))
    ev, right, wrong = _flip_against_unanimous_panels(rows, 10)
    assert len(right) == len(wrong) == 5
    noisy = lc.sample(ev, "both_correct", seed=0, stream="t", burn_in=20, draws=40)
    p, panel = noisy.right[:, right].mean(axis=0), noisy.predicted[right]
    assert (panel > 0.6).all() and (p > 0.02).all() and (p < panel - 0.3).all(), (p, panel)
    assert noisy.label_error.mean(axis=0).max() > lc.LABEL_ERROR[0] / sum(lc.LABEL_ERROR)
    answer = lc.sample(ev, "answer_correct", seed=0, stream="t", burn_in=20, draws=40)
    assert (answer.right[:, wrong].mean(axis=0) < 0.5).all()
    for field, flipped, said in (("both_correct", right, 0.0), ("answer_correct", wrong, 1.0)):
        exact = lc.sample(ev, field, seed=0, stream="t", burn_in=20, draws=40, label_error=None)
        assert (exact.right[:, flipped] == said).all() and (exact.label_error == 0).all()


def test_labels_that_agree_with_the_panels_barely_move_the_draws_or_the_interval(monkeypatch):
    """Noise-free labels (the truth) with a good jury: the learned error rate stays near 0, a labelled row's
    probability of being right stays near its label, the unlabelled rows' draws and the latent interval
    barely move against labels taken as the truth (LABEL_ERROR None)."""
    jury, judgments, annotations = _world(8, n_riddles=120)
    few = annotations.groupby("model").head(30)
    ev = lc.table_evidence(jury, judgments, few).evidence
    noisy = lc.sample(ev, "both_correct", seed=0, stream="t")
    exact = lc.sample(ev, "both_correct", seed=0, stream="t", label_error=None)
    labelled = ev.label >= 0
    said = (ev.label[labelled] == 3).astype(float)
    assert noisy.label_error.mean() < 0.02
    assert np.abs(noisy.right[:, labelled].mean(axis=0) - said).mean() < 0.01
    assert np.abs(noisy.predicted - exact.predicted).mean() < 0.01
    truth = annotations.groupby("model")["human_both_correct"].mean().to_dict()
    new = _scores("latent", jury, judgments, few, truth)
    monkeypatch.setattr(lc, "LABEL_ERROR", None)
    old = _scores("latent", jury, judgments, few, truth)
    assert (new["posterior_score"] - old["posterior_score"]).abs().max() < 0.005
    assert (new["posterior_half_width"] - old["posterior_half_width"]).abs().max() < 0.01
    assert new["posterior_covered"].all()


def test_prior_summary_convolves_the_labelled_rows_probabilities():
    """With Prior.labelled, the labelled rows' count is their Poisson-binomial, not the labels' sum: all
    probabilities 0 or 1 give the very interval of the labels; a doubted label widens it."""
    from sideways.scoring.hierarchy import Prior, prior_from_json, prior_json, prior_summary

    base = Prior({(0, 1): -3.0, (1, 1): 3.0}, {(0, 1): 10, (1, 1): 10}, ((4.0, 1.0, 1.0),))
    counts, own, bins = [20, 20], [(0, 5), (5, 5)], [(0, 1), (1, 1)]
    sure = replace(base, labelled={f"r{i}": float(i >= 5) for i in range(10)})
    assert prior_summary(counts, own, sure, bins) == pytest.approx(prior_summary(counts, own, base, bins))
    doubted = replace(base, labelled={r: 0.5 if r in ("r0", "r1", "r2", "r7", "r8", "r9") else p
                                      for r, p in sure.labelled.items()})
    lo, hi, _ = prior_summary(counts, own, doubted, bins)
    lo0, hi0, _ = prior_summary(counts, own, base, bins)
    assert hi - lo > hi0 - lo0
    assert prior_from_json(prior_json(doubted)) == doubted and prior_from_json(prior_json(base)) == base


def test_a_label_the_latent_class_model_could_not_read_counts_as_its_label():
    """A labelled row without a P(right | label) (NaN: one of its label's fields missing) counts as its label
    in Prior.labelled, so the interval's Poisson-binomial never meets a NaN."""
    from sideways.scoring.latent_prior import latent_priors

    priors = latent_priors(["m", "m", "m"], [(0, 1), (1, 1), (1, 1)], np.array([0.1, 0.9, 0.8]), [False, True, None],
                           {"m": "openai"}, np.array([0.02, np.nan, np.nan]), ["r0", "r1", "r2"])
    assert priors["m"].labelled == {"r0": 0.02, "r1": 1.0}


def test_bin_offsets_follow_the_other_providers_labels_and_never_a_models_own() -> None:
    """Labels drawn at the starts: every offset small; drawn 2 logits above them in one bin for every model (judges who
    call right answers wrong together, read by the fit as wrong): that bin's offset near +2 for every model, the other
    bins' near 0; a model's own labels do not move its own offsets (only another provider's do); a bin no other
    provider labelled keeps 0; a tighter prior sd moves less."""
    from sideways.scoring.hierarchy import bin_offsets
    rng = np.random.default_rng(3)
    eta = np.tile(np.array([-3.0, -1.0, 1.0, 3.0]), (6, 1)) + rng.normal(0, 0.3, (6, 1))
    size = np.full((6, 4), 20.0)
    providers = ["a", "a", "b", "b", "c", "c"]
    fair = bin_offsets(eta, rng.binomial(20, 1 / (1 + np.exp(-eta))).astype(float), size, providers, 1.0)
    assert np.abs(fair).max() < 0.8
    shift = np.array([0.0, 2.0, 0.0, 0.0])
    pos = rng.binomial(20, 1 / (1 + np.exp(-(eta + shift)))).astype(float)
    moved = bin_offsets(eta, pos, size, providers, 10.0)
    assert (np.abs(moved[:, 1] - 2.0) < 0.6).all() and np.abs(moved[:, [0, 2, 3]]).max() < 0.8
    own = pos.copy()
    own[0] = size[0]  # model 0's own labels (and its provider's) all right: its offsets do not move
    np.testing.assert_allclose(bin_offsets(eta, own, size, providers, 10.0)[:2], moved[:2])
    assert not np.allclose(bin_offsets(eta, own, size, providers, 10.0)[2:], moved[2:])
    alone = size.copy()
    alone[2:, 3] = 0.0  # bin 3 labelled by provider a alone
    lone = np.where(alone > 0, pos, 0.0)
    assert (bin_offsets(eta, lone, alone, providers, 10.0)[:2, 3] == 0.0).all()
    assert (np.abs(bin_offsets(eta, pos, size, providers, 0.3)[:, 1]) < np.abs(moved[:, 1])).all()


def test_recalibrated_starts_are_built_in_and_move_the_starts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """RECALIBRATE is 1 as built; off (None), with judges flipping together on 30% of riddles, the starts are the
    fit's own (some bin's eta differs) and the same inputs still give the same bytes."""
    import json
    jury, judgments, annotations = _world(22, n_riddles=80, together=0.3)
    truth = annotations.groupby("model")["human_both_correct"].mean().to_dict()
    few = annotations.groupby("model").head(20)
    assert lc.RECALIBRATE == 1.0
    on = _scores("latent", jury, judgments, few, truth)
    monkeypatch.setattr(lc, "RECALIBRATE", None)
    off = _scores("latent", jury, judgments, few, truth)
    assert any(json.loads(a)["eta"] != json.loads(b)["eta"] for a, b in zip(off["posterior_prior"],
                                                                          on["posterior_prior"], strict=True))
    assert _scores("latent", jury, judgments, few, truth).to_csv().encode() == off.to_csv().encode()
