"""The ``latent`` posterior (docs/method.md §6): a latent-class (Dawid-Skene) model of the answer and
justification verdicts of every judge, with the panel's joint verdict pattern free to stray from
independent judges as far as the data say; a finite-population posterior of any set of rows.

Why: v1 and the hierarchical prior read only the both-correct vote count per prediction and assume a
bin's rate the same for every model. Here every verdict pair of every judge and every human label
teaches how the judges behave, shared by every model they grade, and each model has its own class
shares, so a strong model's middling pattern is more often right than a weak model's by Bayes' rule.

Model, for one split (rows i: every prediction with a jury verdict, of every model):

- class ``z_i = a + 2 j`` in {0, 1, 2, 3}: ``a`` the answer right, ``j`` the justification right
  (0 wrong answer, 1 right answer with a wrong justification, 2 wrong answer with a right
  justification, 3 both right). Class 2 is in play only when some human label shows it. A labelled
  row's class is its label.
- per model m, class shares ``pi_m``: P(class 3) ~ Beta(1/2, 1/2) and the split of the rest over the
  other classes in play ~ Dirichlet(1/2, ...): neutral for the both-correct score.
- judge k's verdict on row i, a code in 0..8: ``a' + 3 j'`` with ``a', j'`` in {0 wrong, 1 right,
  2 no verdict}. Given the class c, judge k's code has the distribution ``theta_kc`` (Dirichlet prior,
  :data:`THETA_PRIOR`), shared by every model k grades.
- the panel's joint pattern ``x_i`` (the codes of every judge of the row's panel g): given class c,
  ``x ~ phi_gc``, ``phi_gc ~ Dirichlet(alpha * q_gc)``, ``q_gc(x) = prod_k theta_kc(x_k)``: centred on
  independent judges. ``alpha`` (how far the panel's joint behaviour may stray from independence:
  judges who err together on hard riddles) has a uniform prior on :data:`ALPHAS`, ``inf`` being
  independence itself; the data choose it through the Dirichlet-multinomial likelihood of the
  patterns.

Sampling (seeded: the same inputs, seed and stream give the same bytes): Gibbs sweeps with phi
integrated out. The unlabelled rows are updated in :data:`BLOCKS` random blocks, each row of a block
given the counts without itself (``P(x_i | c) = (n_gc(x_i) + alpha q_gc(x_i)) / (n_gc + alpha)``, the
Dirichlet-multinomial's predictive); then ``pi | z`` (conjugate), ``theta | z`` (each judge's codes,
as if independent: the centre is fitted from the margins, a cut), ``alpha | z, theta`` (on the grid).

Output, :class:`Draws`: for every kept draw d and row i, ``right[d, i]``: the probability that row i
is right for the field given draw d (the conditional above, Rao-Blackwellised; a labelled row's is its
label). The same draw index is the same posterior draw for every model (joint draws: paired
differences, rank sets). The count of right answers over any set S of rows is, given draw d, a
Poisson-binomial of ``right[d, S]``; its distribution is the average over draws
(:func:`count_pmf`), and the interval is v1's shortest 95% set of it.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from sideways.core.errors import CalibrationError
from sideways.scoring.ppi import FloatArray

IntArray = npt.NDArray[np.int64]

#: Classes: a + 2 j (answer right a, justification right j).
CLASSES = 4
#: Judge codes: a' + 3 j', a' and j' in {0 wrong, 1 right, 2 no verdict}.
CODES = 9
#: Which classes make a row right, per calibrated field.
RIGHT = {"answer_correct": (1, 3), "justification_correct": (2, 3), "both_correct": (3,)}
#: Grid of the Dirichlet strength around independent judges (inf: independence).
ALPHAS = (1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, math.inf)
#: Random blocks of unlabelled rows updated one after the other in a sweep.
BLOCKS = 4
#: Sweeps discarded, then kept (every one).
BURN_IN = 40
DRAWS = 80
#: The finite points of :data:`ALPHAS` (infinity, independence, is last).
_FINITE = np.array([a for a in ALPHAS if not math.isinf(a)])


def _theta_prior() -> FloatArray:
    """Dirichlet prior of theta_kc over the 9 codes: 1 per verdict pair, 2 more on the pair that matches
    the class (judges are better than a coin, not much more is assumed), 0.1 per code with a missing verdict."""
    prior = np.full((CLASSES, CODES), 0.1)
    for c in range(CLASSES):
        for a in range(2):
            for j in range(2):
                prior[c, a + 3 * j] = 1.0 + (2.0 if a + 2 * j == c else 0.0)
    return prior


THETA_PRIOR = _theta_prior()


def lgamma(x: FloatArray) -> FloatArray:
    """log Gamma for x > 0, vectorised: Stirling's series at x + 8, shifted back (error below 1e-12)."""
    x = np.asarray(x, dtype=np.float64)
    prod = x.copy()
    for t in range(1, 8):
        prod *= x + t  # one log of the product, not eight (finite for x up to 1e38)
    shift = np.log(prod)
    y = x + 8.0
    inv, inv2 = 1.0 / y, 1.0 / (y * y)
    series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680))))
    out: FloatArray = (y - 0.5) * np.log(y) - y + 0.5 * math.log(2 * math.pi) + series - shift
    return out


def alpha_log_likelihoods(n: FloatArray, big: FloatArray, log_q: FloatArray) -> FloatArray:
    """log P(patterns | classes, alpha) for every alpha of :data:`ALPHAS`, up to a common constant:
    ``n[p, c]`` rows of pattern p in class c, ``big[g, c]`` rows of panel g in class c, ``log q[p, c]`` the
    pattern's log probability under independent judges. A finite alpha's is the Dirichlet-multinomial's
    ``sum_pc [lgamma(n + alpha q) - lgamma(alpha q)] + sum_gc [lgamma(alpha) - lgamma(alpha + N)]``, every
    alpha in one vectorised log-Gamma call (the sampler's largest cost otherwise); infinity's is
    ``sum_pc n log q`` (the multinomial)."""
    seen = n > 0
    counts, q = n[seen], np.exp(log_q[seen])
    used = big[big > 0]
    aq = _FINITE[:, None] * q[None, :]
    a = np.broadcast_to(_FINITE[:, None], (len(_FINITE), len(used)))
    s, u = len(counts), len(used)
    lg = lgamma(np.concatenate([counts + aq, aq, a, a + used], axis=1))
    logs = np.empty(len(ALPHAS))
    logs[: len(_FINITE)] = (lg[:, :s] - lg[:, s : 2 * s]).sum(axis=1) + (lg[:, 2 * s : 2 * s + u]
                                                                         - lg[:, 2 * s + u :]).sum(axis=1)
    logs[len(_FINITE) :] = float((counts * log_q[seen]).sum())
    return logs


@dataclass(frozen=True)
class Evidence:
    """One split's rows: model index, panel pattern index, the pattern's panel, and the label class.

    ``pattern[i]`` numbers the distinct (panel, codes of the panel's judges) of row i;
    ``pattern_codes[p, k]`` is judge k's code in pattern p, -1 when k is not on its panel;
    ``pattern_panel[p]`` its panel; ``label[i]`` the class of row i's human label, -1 when unlabelled.
    """

    model: IntArray
    pattern: IntArray
    pattern_codes: IntArray
    pattern_panel: IntArray
    label: IntArray
    n_models: int


@dataclass(frozen=True)
class Draws:
    """``right[d, i]``: P(row i is right for the field | posterior draw d); ``alpha[d]``: the draw's alpha;
    ``predicted[i]``: the mean over draws of what the model predicts for row i without its label."""

    right: FloatArray
    alpha: FloatArray
    predicted: FloatArray


def evidence(
    models: Sequence[int], panels: Sequence[Sequence[int]], codes: npt.ArrayLike, labels: Sequence[int],
    n_models: int,
) -> Evidence:
    """Evidence from per-row model indices, panel judge indices, codes (rows x judges, -1 off panel), label classes."""
    code = np.asarray(codes, dtype=np.int64)
    panel_keys = [tuple(sorted(p)) for p in panels]
    panel_index = {p: i for i, p in enumerate(sorted(set(panel_keys)))}
    panel = np.array([panel_index[p] for p in panel_keys], dtype=np.int64)
    keyed = np.concatenate([panel[:, None], code], axis=1)
    uniq, pattern = np.unique(keyed, axis=0, return_inverse=True)
    return Evidence(model=np.asarray(models, dtype=np.int64), pattern=pattern.reshape(-1).astype(np.int64),
                    pattern_codes=uniq[:, 1:], pattern_panel=uniq[:, 0], label=np.asarray(labels, dtype=np.int64),
                    n_models=n_models)


def stream_rng(seed: int, stream: str) -> np.random.Generator:
    """A generator seeded by (seed, stream) only (SHA-256 of the stream, not Python's salted hash)."""
    digest = hashlib.sha256(stream.encode()).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))


def _log_gamma_draw(rng: np.random.Generator, shape: FloatArray) -> FloatArray:
    """log of Gamma(shape) draws, stable for tiny shapes: log G(s + 1) + log(U) / s."""
    out: FloatArray = np.log(rng.gamma(shape + 1.0)) + np.log(rng.random(shape.shape)) / shape
    return out


def _dirichlet(rng: np.random.Generator, conc: FloatArray) -> FloatArray:
    """Dirichlet draws along the last axis (zero concentration: probability zero)."""
    live = conc > 0
    logs = np.where(live, _log_gamma_draw(rng, np.where(live, conc, 1.0)), -np.inf)
    logs -= logs.max(axis=-1, keepdims=True)
    w = np.exp(logs)
    out: FloatArray = w / w.sum(axis=-1, keepdims=True)
    return out


@dataclass
class _State:
    """The sampler's current state."""

    z: IntArray
    log_pi: FloatArray  # models x classes
    log_theta: FloatArray  # judges x classes x codes
    alpha: float
    log_q: FloatArray | None = None  # patterns x classes: log q under log_theta


class _Sampler:
    """Gibbs sweeps over one split's evidence (module docstring)."""

    def __init__(self, ev: Evidence, classes: Sequence[int], rng: np.random.Generator) -> None:
        self.ev, self.rng = ev, rng
        self.classes = np.asarray(classes, dtype=np.int64)
        self.off = np.setdiff1d(np.arange(CLASSES), self.classes)
        self.n_patterns, self.n_judges = ev.pattern_codes.shape
        self.n_panels = int(ev.pattern_panel.max()) + 1
        self.unlabelled = np.flatnonzero(ev.label < 0)
        self.labelled = np.flatnonzero(ev.label >= 0)
        self.on_panel = ev.pattern_codes >= 0  # patterns x judges

    def init(self) -> _State:
        """Labelled rows at their label, the others at the class their panel's majority says."""
        ev = self.ev
        codes = ev.pattern_codes[ev.pattern]
        answer = ((codes % 3 == 1) & (codes >= 0)).sum(axis=1) * 2 > (codes >= 0).sum(axis=1)
        just = ((codes // 3 == 1) & (codes >= 0)).sum(axis=1) * 2 > (codes >= 0).sum(axis=1)
        z = answer.astype(np.int64) + 2 * just.astype(np.int64)
        z = np.where(np.isin(z, self.classes), z, np.where(answer, 1, 0))
        z = np.where(ev.label >= 0, ev.label, z)
        state = _State(z=z, log_pi=np.zeros((ev.n_models, CLASSES)),
                       log_theta=np.zeros((self.n_judges, CLASSES, CODES)), alpha=math.inf)
        self._update_params(state)
        return state

    def _counts(self, z: IntArray) -> tuple[FloatArray, FloatArray]:
        """(n[p, c] rows of pattern p in class c, N[g, c] rows of panel g in class c)."""
        flat = np.bincount(self.ev.pattern * CLASSES + z, minlength=self.n_patterns * CLASSES)
        n: FloatArray = flat.reshape(self.n_patterns, CLASSES).astype(np.float64)
        return self._counts_from(n)

    def _log_q(self, log_theta: FloatArray) -> FloatArray:
        """log q[p, c]: the pattern's probability under independent judges."""
        out = np.zeros((self.n_patterns, CLASSES))
        for k in range(self.n_judges):
            on = self.on_panel[:, k]
            out[on] += log_theta[k][:, self.ev.pattern_codes[on, k]].T
        return out

    def _update_params(self, s: _State) -> None:
        """pi | z, theta | z (each judge's margins), alpha | z, theta (on the grid)."""
        ev, rng = self.ev, self.rng
        flat = np.bincount(ev.model * CLASSES + s.z, minlength=ev.n_models * CLASSES)
        per_model: FloatArray = flat.reshape(ev.n_models, CLASSES).astype(np.float64)
        top = per_model[:, 3]
        rest_classes = self.classes[self.classes != 3]
        share = rng.beta(0.5 + top, 0.5 + per_model[:, rest_classes].sum(axis=1))
        split = _dirichlet(rng, 0.5 + per_model[:, rest_classes])
        pi = np.zeros((ev.n_models, CLASSES))
        pi[:, 3] = share
        pi[:, rest_classes] = (1 - share)[:, None] * split
        with np.errstate(divide="ignore"):
            s.log_pi = np.log(pi)
        n, _ = self._counts(s.z)
        conc = np.broadcast_to(THETA_PRIOR, (self.n_judges, CLASSES, CODES)).copy()
        for k in range(self.n_judges):
            on = self.on_panel[:, k]
            np.add.at(conc[k].T, ev.pattern_codes[on, k], n[on])
        s.log_theta = np.log(_dirichlet(rng, conc))
        s.log_q = self._log_q(s.log_theta)
        s.alpha = self._draw_alpha(n, s.log_q)

    def _draw_alpha(self, n: FloatArray, log_q: FloatArray) -> float:
        """alpha from its grid by the Dirichlet-multinomial likelihood of the patterns per (panel, class)."""
        _, big = self._counts_from(n)
        logs = alpha_log_likelihoods(n, big, log_q)
        w = np.exp(logs - logs.max())
        return float(ALPHAS[int(self.rng.choice(len(ALPHAS), p=w / w.sum()))])

    def _counts_from(self, n: FloatArray) -> tuple[FloatArray, FloatArray]:
        big = np.zeros((self.n_panels, CLASSES))
        np.add.at(big, self.ev.pattern_panel, n)
        return n, big

    def _conditional(self, s: _State, rows: IntArray, log_q: FloatArray) -> FloatArray:
        """P(z_i = c | everything else) for ``rows`` (each without itself in the counts)."""
        n, big = self._counts(s.z)
        pat, z = self.ev.pattern[rows], s.z[rows]
        own = np.zeros((len(rows), CLASSES))
        own[np.arange(len(rows)), z] = 1.0
        num = n[pat] - own
        den = big[self.ev.pattern_panel[pat]] - own
        if math.isinf(s.alpha):
            log_like = log_q[pat]
        else:
            with np.errstate(divide="ignore"):
                log_like = np.log(num + s.alpha * np.exp(log_q[pat])) - np.log(den + s.alpha)
        logp = log_like + s.log_pi[self.ev.model[rows]]
        logp[:, self.off] = -np.inf
        logp -= logp.max(axis=1, keepdims=True)
        p = np.exp(logp)
        out: FloatArray = p / p.sum(axis=1, keepdims=True)
        return out

    def sweep(self, s: _State, probs: FloatArray | None) -> None:
        """One Gibbs sweep; when ``probs`` is given, each row's class probabilities go there (a labelled
        row's as if it had no label: what the model predicts for it)."""
        log_q = self._log_q(s.log_theta) if s.log_q is None else s.log_q
        if probs is not None and len(self.labelled):
            probs[self.labelled] = self._conditional(s, self.labelled, log_q)
        order = self.rng.permutation(self.unlabelled)
        for block in np.array_split(order, BLOCKS):
            if not len(block):
                continue
            p = self._conditional(s, block, log_q)
            u = self.rng.random(len(block))
            s.z[block] = np.minimum((np.cumsum(p, axis=1) < u[:, None]).sum(axis=1), CLASSES - 1)
            if probs is not None:
                probs[block] = p
        self._update_params(s)


def sample(ev: Evidence, field: str, *, seed: int, stream: str, burn_in: int = BURN_IN,
           draws: int = DRAWS) -> Draws:
    """Posterior draws of every row's probability of being right for ``field`` (module docstring)."""
    if field not in RIGHT:
        raise CalibrationError(f"latent posterior: unknown field {field!r}")
    labels = ev.label[ev.label >= 0]
    classes = [0, 1, 3] + ([2] if (labels == 2).any() else [])
    bad = sorted(set(labels.tolist()) - set(range(CLASSES)))
    if bad:
        raise CalibrationError(f"latent posterior: label classes must be 0..3, got {bad}")
    sampler = _Sampler(ev, sorted(classes), stream_rng(seed, stream))
    state = sampler.init()
    right_classes = list(RIGHT[field])
    right = np.zeros((draws, len(ev.label)))
    labelled = ev.label >= 0
    right[:, labelled] = np.isin(ev.label[labelled], right_classes)
    alphas = np.zeros(draws)
    probs = np.zeros((len(ev.label), CLASSES))
    predicted = np.zeros(len(ev.label))
    for _ in range(burn_in):
        sampler.sweep(state, None)
    for d in range(draws):
        sampler.sweep(state, probs)
        p_right = probs[:, right_classes].sum(axis=1)
        right[d, ~labelled] = p_right[~labelled]
        predicted += p_right
        alphas[d] = state.alpha
    return Draws(right=right, alpha=alphas, predicted=predicted / max(draws, 1))


def count_pmf(right: FloatArray) -> FloatArray:
    """pmf of the count of right rows over the columns of ``right`` (draws x rows): per draw a
    Poisson-binomial, averaged over draws; on 0..rows."""
    d, k = right.shape
    pmf = np.zeros((d, k + 1))
    pmf[:, 0] = 1.0
    for i in range(k):
        p = right[:, i : i + 1]
        pmf[:, 1 : i + 2] = pmf[:, 1 : i + 2] * (1 - p) + pmf[:, : i + 1] * p
        pmf[:, 0] *= 1 - p[:, 0]
    out: FloatArray = pmf.mean(axis=0)
    return out


def label_class(answer: pd.Series, justification: pd.Series) -> IntArray:
    """Human labels as classes a + 2 j."""
    a = answer.astype(bool).to_numpy().astype(np.int64)
    out: IntArray = a + 2 * justification.astype(bool).to_numpy().astype(np.int64)
    return out


@dataclass(frozen=True)
class Rows:
    """The rows of a split's evidence: ``keys`` (riddle_id, model) in row order, and the evidence."""

    keys: pd.DataFrame
    evidence: Evidence
    models: tuple[str, ...]


def _code(values: pd.Series) -> IntArray:
    """0 wrong, 1 right, 2 no verdict."""
    out: IntArray = np.where(values.isna().to_numpy(), 2, values.fillna(False).astype(bool).to_numpy().astype(np.int64))
    return out


def table_evidence(jury: pd.DataFrame, judgments: pd.DataFrame, annotations: pd.DataFrame) -> Rows:
    """The evidence of every jury row with at least one panel judge's verdict (status ok).

    ``jury`` gives each row's panel (comma-separated judge keys), ``judgments`` the verdicts
    (``is_answer_correct``, ``is_justification_correct``), ``annotations`` the human labels of the
    rows that have one (``human_answer_correct``, ``human_justification_correct``).
    """
    missing = [c for c in ("riddle_id", "model", "judge", "status", "is_answer_correct", "is_justification_correct")
               if c not in judgments.columns]
    if missing:
        raise CalibrationError(f"latent posterior: judgments are missing column(s) {', '.join(missing)}")
    rows = jury[["riddle_id", "model", "panel"]].reset_index(drop=True)
    panel_of = {m: tuple(p.split(",")) if p else () for m, p in zip(rows["model"], rows["panel"], strict=True)}
    judges = sorted({j for p in panel_of.values() for j in p})
    judge_index = {j: k for k, j in enumerate(judges)}
    ok = judgments[(judgments["status"] == "ok") & judgments["judge"].isin(judge_index)]
    ok = ok[[j in panel_of.get(m, ()) for m, j in zip(ok["model"], ok["judge"], strict=True)]]
    verdict = _code(ok["is_answer_correct"]) + 3 * _code(ok["is_justification_correct"])
    row_of = pd.Series(np.arange(len(rows)), index=pd.MultiIndex.from_frame(rows[["riddle_id", "model"]]))
    at = row_of.reindex(pd.MultiIndex.from_frame(ok[["riddle_id", "model"]])).to_numpy()
    codes = np.full((len(rows), len(judges)), -1, dtype=np.int64)
    for k, j in enumerate(judges):  # a panel judge without a verdict: no verdict on either field
        on = np.array([j in panel_of[m] for m in rows["model"]], dtype=bool)
        codes[on, k] = CODES - 1
    keep = ~np.isnan(at.astype(np.float64))
    codes[at[keep].astype(np.int64), ok["judge"].map(judge_index).to_numpy()[keep]] = verdict[keep]
    voted = (codes[:, :] >= 0) & (codes != CODES - 1)
    has = voted.any(axis=1)
    rows, codes = rows[has].reset_index(drop=True), codes[has]
    labels = np.full(len(rows), -1, dtype=np.int64)
    if len(annotations):
        lab = annotations[["riddle_id", "model", "human_answer_correct", "human_justification_correct"]]
        lab = lab[lab["human_answer_correct"].notna() & lab["human_justification_correct"].notna()]
        merged = rows[["riddle_id", "model"]].merge(lab, on=["riddle_id", "model"], how="left")
        known = merged["human_answer_correct"].notna().to_numpy()
        labels[known] = label_class(merged["human_answer_correct"][known], merged["human_justification_correct"][known])
    names = tuple(sorted(rows["model"].unique()))
    index = {m: i for i, m in enumerate(names)}
    panels = [[judge_index[j] for j in panel_of[m]] for m in rows["model"]]
    ev = evidence(rows["model"].map(index).tolist(), panels, codes, labels.tolist(), len(names))
    return Rows(keys=rows[["riddle_id", "model"]], evidence=ev, models=names)
