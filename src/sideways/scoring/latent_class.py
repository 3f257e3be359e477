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
  justification, 3 both right). Class 2 is in play only when some human label shows it.
- the annotator, one more rater: a labelled row's label is its class with the answer bit flipped with
  probability ``e_a`` and the justification bit with ``e_j``, independently; ``e_f ~ Beta(`` :data:`LABEL_ERROR`
  ``)`` (mean 0.02, worth 50 labels). So a labelled row's class is latent too, informed by its label, its
  panel and its model's shares; with ``label_error=None`` a labelled row's class is its label (the former
  model).
- per model m, class shares ``pi_m``: P(class 3) ~ Beta(1/2, 1/2) and the split of the rest over the
  other classes in play ~ Dirichlet(1/2, ...): neutral for the both-correct score.
- per riddle r, a state ``h_r`` in {0, 1, 2} (:data:`STATES`), shared by every model's row of the riddle:
  0 the panel grades the riddle as usual, 1 it calls its predictions wrong and 2 right, whatever their
  class (a riddle hard to grade, on which the judges err together for every model); shares
  ``rho ~ Dirichlet(`` :data:`STATE_PRIOR` ``)``. A riddle may leave state 0 only when one of its labelled
  rows disagrees with every judge of its panel on the answer or the justification: states 1 and 2 make
  the verdicts say nothing of the class, and with no riddle difficulty for the models here they would
  explain every riddle that all models are called wrong on (measured on the vendored LLM file: half-widths
  2.6-3.3 times as wide). So a labelled row of riddle r for one model (right, called wrong) tells the jury's error on r
  for every other model's row of r.
- judge k's verdict on row i, a code in 0..8: ``a' + 3 j'`` with ``a', j'`` in {0 wrong, 1 right,
  2 no verdict}. Given the riddle's state h and the class c, judge k's code has the distribution
  ``theta_k,hc`` (Dirichlet prior, :func:`_theta_prior`), shared by every model k grades.
- the panel's joint pattern ``x_i`` (the codes of every judge of the row's panel g): given (h, c),
  ``x ~ phi_g,hc``, ``phi_g,hc ~ Dirichlet(alpha * q_g,hc)``, ``q_g,hc(x) = prod_k theta_k,hc(x_k)``: centred
  on independent judges. ``alpha`` (how far the panel's joint behaviour may stray from independence:
  judges who err together on hard riddles) has a uniform prior on :data:`ALPHAS`, ``inf`` being
  independence itself; the data choose it through the Dirichlet-multinomial likelihood of the
  patterns.

Sampling (seeded: the same inputs, seed and stream give the same bytes): Gibbs sweeps with phi
integrated out. The riddles are updated in :data:`BLOCKS` random blocks, each row of a block given the
counts without itself (``P(x_i | e) = (n_ge(x_i) + alpha q_ge(x_i)) / (n_ge + alpha)``, e = (h, c), the
Dirichlet-multinomial's predictive): a riddle's state drawn with its rows' classes summed out (a labelled
row's weighed by its label's likelihood), then each row's class given the state (a labelled row stays at
its label when labels are the truth); then ``pi | z`` (conjugate), ``e | z, labels`` (conjugate),
``theta | z, h`` (each judge's codes, as if independent: the centre is fitted from the margins, a cut),
``rho | h``, ``alpha | z, h, theta`` (on the grid).

Variants measured and not kept (a riddle difficulty shared by the models, states per field, riddles free to take
any state, a per-(judge, model) or per-model leniency, the label checks): docs/method.md §6, "Variants measured and
removed".

Output, :class:`Draws`: for every kept draw d and row i, ``right[d, i]``: the probability that row i
is right for the field given draw d (the conditional above with the riddle's state summed out by its
conditional, Rao-Blackwellised; a labelled row's given its label too, or its label when labels are the
truth; a labelled row's prediction "without its label" still sums its riddle's state out by a conditional
that read the label). ``classes`` holds each row's class probabilities without its label and ``label_error``
the draws of ``e``: :func:`label_posterior` turns them into P(right | label) for a row whose label the fit
did not read (the latent prior's held-out fits). The same draw index is
the same posterior draw for every model (joint draws: paired differences, rank sets). The count of right
answers over any set S of rows is, given draw d, a Poisson-binomial of ``right[d, S]``; its distribution
is the average over draws (:func:`count_pmf`), and the interval is v1's shortest 95% set of it.
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
from sideways.scoring.cascade import settled_codes
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
#: Random blocks of riddles (every row of a riddle in one block) updated one after the other in a sweep.
BLOCKS = 4
#: Riddle states: 0 the panel grades the riddle's predictions as usual; 1 it calls them wrong, 2 right,
#: whatever their class (a riddle hard to grade, on which the judges err together for every model).
STATES = 3
#: Dirichlet prior of the states' shares over the riddles (most riddles graded as usual).
STATE_PRIOR = (8.0, 1.0, 1.0)
#: Prior weight, beyond 1 per verdict pair, of the pair that defines a state other than 0 ("both wrong",
#: "both right"), whatever the class: strong enough that a riddle can enter the state before any has. With
#: 2 (state 0's) no riddle of a test world with 10% of riddles graded "wrong" by the whole jury ever did;
#: with 4 the state tells those riddles from the others (docs/method.md §6, "Riddle states").
STATE_WEIGHT = 4.0
#: Beta prior (errors, agreements) of each label field's error rate: the chance that the annotator's answer
#: label, or justification label, is the opposite of the truth. Mean 0.02, worth 50 labels: annotators are
#: mostly right, and enough labels against reliable panels teach otherwise. Chosen before any measurement on the
#: real file (docs/method.md §6, "Noisy labels").
LABEL_ERROR = (1.0, 49.0)
#: Recalibrate the latent prior's starts by the pool (as built): each bin's start moved by the logit offset the
#: other providers' labels show there (:func:`sideways.scoring.hierarchy.bin_offsets`), the offset's prior sd this
#: value (None: off, the starts the latent-class fit gives). It halves the centre's error where the jury errs together
#: and changes nothing beyond noise where the fit is right (docs/method.md §6, "Starts recalibrated by the pool").
RECALIBRATE: float | None = 1.0
#: Sweeps discarded, then kept (every one).
BURN_IN = 40
DRAWS = 80
#: The finite points of :data:`ALPHAS` (infinity, independence, is last).
_FINITE = np.array([a for a in ALPHAS if not math.isinf(a)])


def _theta_prior(states: int = STATES) -> FloatArray:
    """Dirichlet prior of theta_k,(h,c) over the 9 codes, row ``h * CLASSES + c`` for riddle state h and
    class c: 1 per verdict pair, 2 more on the pair that matches the class in state 0 (judges are better
    than a coin, not much more is assumed); :data:`STATE_WEIGHT` more on "both wrong" in state 1 and
    "both right" in state 2 whatever the class; 0.1 per code with a missing verdict."""
    prior = np.full((states * CLASSES, CODES), 0.1)
    for h in range(states):
        for c in range(CLASSES):
            for a in range(2):
                for j in range(2):
                    if h == 0:
                        extra = 2.0 if a + 2 * j == c else 0.0
                    else:
                        extra = STATE_WEIGHT if a == j == (1 if h == 2 else 0) else 0.0
                    prior[h * CLASSES + c, a + 3 * j] = 1.0 + extra
    return prior


def _state_prior(states: int) -> FloatArray:
    """The Dirichlet prior of the states' shares: :data:`STATE_PRIOR`'s first ``states``."""
    return np.asarray(STATE_PRIOR, dtype=np.float64)[:states].copy()


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
    """One split's rows: model index, panel pattern index, the pattern's panel, the label class, the riddle.

    ``pattern[i]`` numbers the distinct (panel, codes of the panel's judges) of row i;
    ``pattern_codes[p, k]`` is judge k's code in pattern p, -1 when k is not on its panel;
    ``pattern_panel[p]`` its panel; ``label[i]`` the class of row i's human label, -1 when unlabelled;
    ``riddle[i]`` the index of row i's riddle (the rows of one riddle share its state).
    """

    model: IntArray
    pattern: IntArray
    pattern_codes: IntArray
    pattern_panel: IntArray
    label: IntArray
    n_models: int
    riddle: IntArray


@dataclass(frozen=True)
class Draws:
    """``right[d, i]``: P(row i is right for the field | posterior draw d), a labelled row's given its label
    too; ``alpha[d]``: the draw's alpha; ``predicted[i]``: the mean over draws of what the model predicts for
    row i without its label; ``classes[i, c]`` the same for each class; ``label_error[d, f]``: the draw's
    error rate of the answer (f = 0) and justification (f = 1) labels (0 when labels are taken as the truth);
    ``row_classes[d, i, c]`` (only when asked: draws x rows x classes) P(row i is in class c | draw d), a labelled
    row's given its label too, from which any field's ``right`` follows (the judges' audit reads both fields)."""

    right: FloatArray
    alpha: FloatArray
    predicted: FloatArray
    classes: FloatArray
    label_error: FloatArray
    row_classes: FloatArray | None = None


def label_log_likelihood(label: IntArray, error: FloatArray) -> FloatArray:
    """log P(label | class c) for every row and class (rows x :data:`CLASSES`): each field's label is the
    class's bit flipped with that field's ``error`` rate, independently; an unlabelled row's is 0."""
    out = np.zeros((len(label), CLASSES))
    known = label >= 0
    c = np.arange(CLASSES)
    for f, (bit_of_label, bit_of_class) in enumerate(((label % 2, c % 2), (label // 2, c // 2))):
        agree = bit_of_label[:, None] == bit_of_class[None, :]
        out += np.where(agree, math.log1p(-error[f]), math.log(error[f]))
    out[~known] = 0.0
    return out


def label_posterior(classes: FloatArray, label: IntArray, error: FloatArray, field: str) -> FloatArray:
    """P(right for ``field`` | the row's label) from its class probabilities without the label (``classes``,
    rows x classes) and the labels' error rates: Bayes' rule with :func:`label_log_likelihood`; an unlabelled
    row's is its prediction."""
    with np.errstate(divide="ignore"):
        logp = np.log(classes) + label_log_likelihood(label, error)
    post = _softmax(logp)
    out: FloatArray = post[:, list(RIGHT[field])].sum(axis=1)
    return out


def evidence(
    models: Sequence[int], panels: Sequence[Sequence[int]], codes: npt.ArrayLike, labels: Sequence[int],
    n_models: int, riddles: Sequence[int] | None = None,
) -> Evidence:
    """Evidence from per-row model indices, panel judge indices, codes (rows x judges, -1 off panel), label
    classes and riddle indices (None: every row a riddle of its own)."""
    code = np.asarray(codes, dtype=np.int64)
    panel_keys = [tuple(sorted(p)) for p in panels]
    panel_index = {p: i for i, p in enumerate(sorted(set(panel_keys)))}
    panel = np.array([panel_index[p] for p in panel_keys], dtype=np.int64)
    keyed = np.concatenate([panel[:, None], code], axis=1)
    uniq, pattern = np.unique(keyed, axis=0, return_inverse=True)
    riddle = np.arange(len(panel), dtype=np.int64) if riddles is None else np.asarray(riddles, dtype=np.int64)
    return Evidence(model=np.asarray(models, dtype=np.int64), pattern=pattern.reshape(-1).astype(np.int64),
                    pattern_codes=uniq[:, 1:], pattern_panel=uniq[:, 0], label=np.asarray(labels, dtype=np.int64),
                    n_models=n_models, riddle=riddle)


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


def _pick(rng: np.random.Generator, p: FloatArray) -> IntArray:
    """One index per row of ``p`` (rows of probabilities)."""
    u = rng.random(len(p))
    out: IntArray = np.minimum((np.cumsum(p, axis=1) < u[:, None]).sum(axis=1), p.shape[1] - 1)
    return out


def _softmax(logp: FloatArray) -> FloatArray:
    """exp and normalise along the last axis (rows of -inf only are not expected)."""
    top = logp.max(axis=-1, keepdims=True)
    p = np.exp(logp - top)
    out: FloatArray = p / p.sum(axis=-1, keepdims=True)
    return out


def _majority(ev: Evidence) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Per row, whether most of its panel's verdicts call the answer, and the justification, right."""
    codes = ev.pattern_codes[ev.pattern]
    voted = (codes >= 0).sum(axis=1)
    answer = ((codes % 3 == 1) & (codes >= 0)).sum(axis=1) * 2 > voted
    just = ((codes // 3 == 1) & (codes >= 0)).sum(axis=1) * 2 > voted
    return answer, just


def open_riddles(ev: Evidence) -> npt.NDArray[np.bool_]:
    """Per row, whether its riddle may leave state 0: some labelled row of the riddle disagrees with every
    verdict of its panel on the answer or on the justification (the whole jury wrong on a field)."""
    codes = ev.pattern_codes[ev.pattern]
    against = np.zeros(len(ev.label), dtype=bool)
    for verdict, truth in ((codes % 3, ev.label % 2), (codes // 3, ev.label // 2)):
        given = (codes >= 0) & (verdict < 2)
        agree = (given & (verdict == truth[:, None])).sum(axis=1)
        against |= (given.sum(axis=1) > 0) & (agree == 0)
    against &= ev.label >= 0
    out: npt.NDArray[np.bool_] = np.isin(ev.riddle, ev.riddle[against])
    return out


@dataclass
class _State:
    """The sampler's current state: row classes ``z``, riddle states ``h``; the judges' code distributions
    per (state, class) ``h * CLASSES + c``."""

    z: IntArray
    h: IntArray
    log_pi: FloatArray  # models x classes
    log_theta: FloatArray  # judges x (states x classes) x codes
    log_rho: FloatArray  # states
    alpha: float
    log_q: FloatArray | None = None  # patterns x (states x classes): log q under log_theta
    error: FloatArray | None = None  # the label fields' error rates (None: labels are the truth)


class _Sampler:
    """Gibbs sweeps over one split's evidence (module docstring)."""

    def __init__(self, ev: Evidence, classes: Sequence[int], rng: np.random.Generator, states: int,
                 label_error: tuple[float, float] | None) -> None:
        self.ev, self.rng, self.states, self.label_error = ev, rng, states, label_error
        self.width = CLASSES * states
        self.classes = np.asarray(classes, dtype=np.int64)
        self.off = np.setdiff1d(np.arange(CLASSES), self.classes)
        self.n_patterns, self.n_judges = ev.pattern_codes.shape
        self.n_panels = int(ev.pattern_panel.max()) + 1
        self.labelled_mask = ev.label >= 0
        _, self.riddle = np.unique(ev.riddle, return_inverse=True)
        self.riddle = self.riddle.reshape(-1).astype(np.int64)
        self.n_riddles = int(self.riddle.max()) + 1 if len(self.riddle) else 0
        self.on_panel = ev.pattern_codes >= 0  # patterns x judges
        self.theta_prior = _theta_prior(states)
        self.state_prior = _state_prior(states)
        # each row's class prior without the model's shares: -inf off play; a labelled row at its label when
        # labels are the truth, else its label's likelihood (:meth:`_label_terms`, per sweep)
        self.fixed = np.zeros((len(ev.label), CLASSES))
        self.fixed[:, self.off] = -np.inf
        lab = np.flatnonzero(self.labelled_mask)
        if label_error is None:
            self.fixed[lab] = -np.inf
            self.fixed[lab, ev.label[lab]] = 0.0
        self.open = np.zeros(self.n_riddles, dtype=bool)
        self.open[self.riddle[open_riddles(ev)]] = True

    def init(self) -> _State:
        """Labelled rows at their label, the others at the class their panel's majority says; every riddle
        in state 0."""
        ev = self.ev
        answer, just = _majority(ev)
        z = answer.astype(np.int64) + 2 * just.astype(np.int64)
        z = np.where(np.isin(z, self.classes), z, np.where(answer, 1, 0))
        z = np.where(ev.label >= 0, ev.label, z)
        state = _State(z=z, h=np.zeros(self.n_riddles, dtype=np.int64), log_pi=np.zeros((ev.n_models, CLASSES)),
                       log_theta=np.zeros((self.n_judges, self.width, CODES)), log_rho=np.zeros(self.states),
                       alpha=math.inf)
        if self.label_error is not None:
            a, b = self.label_error
            state.error = np.full(2, a / (a + b))
        self._update_params(state)
        return state

    def _effective(self, s: _State) -> IntArray:
        """Each row's (state, class) index ``h * CLASSES + z``."""
        out: IntArray = s.z + CLASSES * s.h[self.riddle]
        return out

    def _counts(self, eff: IntArray) -> tuple[FloatArray, FloatArray]:
        """(n[p, e] rows of pattern p at (state, class) e, N[g, e] rows of panel g at e)."""
        flat = np.bincount(self.ev.pattern * self.width + eff, minlength=self.n_patterns * self.width)
        n: FloatArray = flat.reshape(self.n_patterns, self.width).astype(np.float64)
        big = np.zeros((self.n_panels, self.width))
        np.add.at(big, self.ev.pattern_panel, n)
        return n, big

    def _log_q(self, log_theta: FloatArray) -> FloatArray:
        """log q[p, e]: the pattern's probability under independent judges."""
        out = np.zeros((self.n_patterns, self.width))
        for k in range(self.n_judges):
            on = self.on_panel[:, k]
            out[on] += log_theta[k][:, self.ev.pattern_codes[on, k]].T
        return out

    def _update_params(self, s: _State) -> None:
        """pi | z, theta | z, h (each judge's margins), rho | h, alpha | z, h, theta (on the grid)."""
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
        n, big = self._counts(self._effective(s))
        conc = np.broadcast_to(self.theta_prior, (self.n_judges, self.width, CODES)).copy()
        for k in range(self.n_judges):
            on = self.on_panel[:, k]
            np.add.at(conc[k].T, ev.pattern_codes[on, k], n[on])
        s.log_theta = np.log(_dirichlet(rng, conc))
        if self.states > 1:
            s.log_rho = np.log(_dirichlet(rng, self.state_prior + np.bincount(s.h, minlength=self.states)))
        if self.label_error is not None:
            lab = self.labelled_mask
            wrong = np.array([(ev.label[lab] % 2 != s.z[lab] % 2).sum(), (ev.label[lab] // 2 != s.z[lab] // 2).sum()])
            s.error = rng.beta(self.label_error[0] + wrong, self.label_error[1] + lab.sum() - wrong)
        s.log_q = self._log_q(s.log_theta)
        logs = alpha_log_likelihoods(n, big, s.log_q)
        w = np.exp(logs - logs.max())
        s.alpha = float(ALPHAS[int(self.rng.choice(len(ALPHAS), p=w / w.sum()))])

    def _label_terms(self, s: _State) -> FloatArray:
        """Each row's class prior beyond the model's shares: :attr:`fixed`, plus its label's log likelihood when
        labels may be wrong."""
        if s.error is None:
            return self.fixed
        out: FloatArray = self.fixed + label_log_likelihood(self.ev.label, s.error)
        return out

    def _block(self, s: _State, riddles: IntArray, log_q: FloatArray, probs: FloatArray | None,
               fixed: FloatArray, labelled_probs: FloatArray | None) -> None:
        """Draw the states of ``riddles`` (their rows' classes summed out), then their rows' classes given the
        state (a labelled row's only when labels may be wrong); each row given the counts without itself.
        ``probs`` gets each row's class probabilities with the state summed out, a labelled row's as if it had
        no label; ``labelled_probs`` the same with the label (``fixed``: each row's :meth:`_label_terms`)."""
        ev = self.ev
        local = np.full(self.n_riddles, -1, dtype=np.int64)
        local[riddles] = np.arange(len(riddles))
        rows = np.flatnonzero(local[self.riddle] >= 0)
        at = local[self.riddle[rows]]
        eff = self._effective(s)
        n, big = self._counts(eff)
        own = np.zeros((len(rows), self.width))
        own[np.arange(len(rows)), eff[rows]] = 1.0
        pat = ev.pattern[rows]
        if math.isinf(s.alpha):
            log_like = log_q[pat]
        else:
            num = n[pat] - own
            den = big[ev.pattern_panel[pat]] - own
            with np.errstate(divide="ignore"):
                log_like = np.log(num + s.alpha * np.exp(log_q[pat])) - np.log(den + s.alpha)
        log_like = log_like.reshape(len(rows), self.states, CLASSES)
        log_pi = s.log_pi[ev.model[rows]]
        joint = log_like + (log_pi + fixed[rows])[:, None, :]  # rows x states x classes
        if self.states > 1:
            top = joint.max(axis=2, keepdims=True)
            row_marg = (np.log(np.exp(joint - top).sum(axis=2, keepdims=True)) + top)[:, :, 0]
            riddle_log = np.tile(s.log_rho, (len(riddles), 1))
            riddle_log[~self.open[riddles], 1:] = -np.inf  # only a label the whole panel got wrong opens a riddle
            for h in range(self.states):
                riddle_log[:, h] += np.bincount(at, weights=row_marg[:, h], minlength=len(riddles))
            post = _softmax(riddle_log)
            s.h[riddles] = _pick(self.rng, post)
        else:
            post = np.ones((len(riddles), 1))
        state = s.h[riddles][at]
        free_rows = ~self.labelled_mask[rows] if s.error is None else np.ones(len(rows), dtype=bool)
        cond = _softmax(joint[np.arange(len(rows)), state])
        s.z[rows[free_rows]] = _pick(self.rng, cond[free_rows])
        if probs is not None:
            free = log_like + log_pi[:, None, :]
            free[:, :, self.off] = -np.inf
            probs[rows] = (post[at][:, :, None] * _softmax(free)).sum(axis=1)
        if labelled_probs is not None:
            labelled_probs[rows] = (post[at][:, :, None] * _softmax(joint)).sum(axis=1)

    def sweep(self, s: _State, probs: FloatArray | None, labelled_probs: FloatArray | None = None) -> None:
        """One Gibbs sweep over random blocks of riddles, then the parameters; when ``probs`` (and
        ``labelled_probs``) are given, each row's class probabilities without (and with) its label go there."""
        log_q = self._log_q(s.log_theta) if s.log_q is None else s.log_q
        fixed = self._label_terms(s)
        order = self.rng.permutation(self.n_riddles)
        for block in np.array_split(order, BLOCKS):
            if len(block):
                self._block(s, block, log_q, probs, fixed, labelled_probs)
        self._update_params(s)


def sample(ev: Evidence, field: str, *, seed: int, stream: str, burn_in: int = BURN_IN,
           draws: int = DRAWS, states: int | None = None,
           label_error: tuple[float, float] | None = LABEL_ERROR, keep_classes: bool = False) -> Draws:
    """Posterior draws of every row's probability of being right for ``field`` (module docstring);
    ``states`` riddle states (default :data:`STATES`; 1: every riddle graded as usual); ``label_error`` the
    Beta prior of each label field's error rate (default :data:`LABEL_ERROR`; None: a label is the truth);
    ``keep_classes``: also every draw's class probabilities per row (:attr:`Draws.row_classes`; the draws are
    the same either way)."""
    states = STATES if states is None else states
    if field not in RIGHT:
        raise CalibrationError(f"latent posterior: unknown field {field!r}")
    if not 1 <= states <= len(STATE_PRIOR):
        raise CalibrationError(f"latent posterior: states must be 1..{len(STATE_PRIOR)}, got {states}")
    labels = ev.label[ev.label >= 0]
    classes = [0, 1, 3] + ([2] if (labels == 2).any() else [])
    bad = sorted(set(labels.tolist()) - set(range(CLASSES)))
    if bad:
        raise CalibrationError(f"latent posterior: label classes must be 0..3, got {bad}")
    if not open_riddles(ev).any():
        states = 1  # no riddle may leave state 0: the same draws as without states
    sampler = _Sampler(ev, sorted(classes), stream_rng(seed, stream), states, label_error)
    state = sampler.init()
    right_classes = list(RIGHT[field])
    right = np.zeros((draws, len(ev.label)))
    labelled = ev.label >= 0
    right[:, labelled] = np.isin(ev.label[labelled], right_classes)
    alphas, errors = np.zeros(draws), np.zeros((draws, 2))
    probs = np.zeros((len(ev.label), CLASSES))
    with_label = np.zeros((len(ev.label), CLASSES)) if label_error is not None else None
    classes_mean, predicted = np.zeros((len(ev.label), CLASSES)), np.zeros(len(ev.label))
    kept = np.zeros((draws, len(ev.label), CLASSES)) if keep_classes else None
    for _ in range(burn_in):
        sampler.sweep(state, None)
    for d in range(draws):
        sampler.sweep(state, probs, with_label)
        classes_mean += probs
        p_right = probs[:, right_classes].sum(axis=1)
        right[d, ~labelled] = p_right[~labelled]
        predicted += p_right
        if with_label is not None:
            right[d, labelled] = with_label[labelled][:, right_classes].sum(axis=1)
        alphas[d] = state.alpha
        if state.error is not None:
            errors[d] = state.error
        if kept is not None:
            kept[d] = probs
            kept[d, labelled] = (with_label[labelled] if with_label is not None
                                 else np.eye(CLASSES)[ev.label[labelled]])
    return Draws(right=right, alpha=alphas, predicted=predicted / max(draws, 1),
                 classes=classes_mean / max(draws, 1), label_error=errors, row_classes=kept)


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


def table_evidence(jury: pd.DataFrame, judgments: pd.DataFrame, annotations: pd.DataFrame, first: int = 0) -> Rows:
    """The evidence of every jury row with at least one panel judge's verdict (status ok).

    ``jury`` gives each row's panel (comma-separated judge keys, in the order they are asked), ``judgments`` the
    verdicts (``is_answer_correct``, ``is_justification_correct``), ``annotations`` the human labels of the
    rows that have one (``human_answer_correct``, ``human_justification_correct``). ``first`` > 0: the jury is
    a cascade (:mod:`sideways.scoring.cascade`) whose first ``first`` panel judges grade every row; on a row they
    settle, a later judge without a verdict was not asked, and is off the row's pattern (marginalised: missing at
    random given the first verdicts) instead of a "no verdict" code that would tell the class.
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
    if first > 0:
        _mark_unasked(codes, rows["model"].tolist(), panel_of, judge_index, first)
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
    riddles = pd.factorize(rows["riddle_id"], sort=True)[0].tolist()
    ev = evidence(rows["model"].map(index).tolist(), panels, codes, labels.tolist(), len(names), riddles)
    return Rows(keys=rows[["riddle_id", "model"]], evidence=ev, models=names)


def _mark_unasked(codes: IntArray, models: Sequence[str], panel_of: dict[str, tuple[str, ...]],
                  judge_index: dict[str, int], first: int) -> None:
    """In place: -1 (off the pattern) for every later panel judge without a verdict on a row the first ``first``
    judges of its panel settle (:func:`sideways.scoring.cascade.settled_codes`)."""
    model = np.asarray(models, dtype=object)
    for m in dict.fromkeys(models):
        panel = panel_of[m]
        if len(panel) <= first:
            continue
        rows = np.flatnonzero(model == m)
        head = [judge_index[j] for j in panel[:first]]
        settled = rows[settled_codes(codes[np.ix_(rows, head)])]
        for j in panel[first:]:
            k = judge_index[j]
            unasked = settled[codes[settled, k] == CODES - 1]
            codes[unasked, k] = -1
