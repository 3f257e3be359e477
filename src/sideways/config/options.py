"""A model's or judge's backend options, typed per backend and validated in one place.

Each entry of ``models:`` and ``jury.pool:`` holds its identity (backend, provider, name,
n_hints) and the options of its backend; an option another backend takes, or a typo, is an
error naming the key path. An API key written inline is refused: params.yaml is versioned.
Each option is declared once, as a field with its type, default and validator (:func:`option`);
which class a backend's entries are parsed into is said by the backend table
(:mod:`sideways.config.backends`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlsplit

from sideways.config import checks
from sideways.config.choices import MAX_TOKENS_FIELDS, MaxTokensField
from sideways.core.errors import ParamsError

DEFAULT_MAX_TOKENS = 4096  # a model entry's max_tokens overrides it
INLINE_KEY_OPTIONS = ("api_key", "key", "token", "secret")
Check = Callable[[Any, str], Any]


def option(check: Check, default: Any = MISSING) -> Any:
    """A backend option: its default (none: required) and its validator, declared together."""
    return field(default=default, metadata={"check": check})


def _probability(value: Any, where: str) -> float:
    return checks.number(value, where, 0.0, 1.0)


def _positive_int(value: Any, where: str) -> int:
    return checks.integer(value, where, lo=1)


def _base_url(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise ParamsError(f"{where}: the openai-compatible backend needs an http(s) base_url, "
                          f"e.g. http://127.0.0.1:8000/v1 (got {value!r:.80})")
    try:
        parts = urlsplit(value)
    except ValueError as exc:
        raise ParamsError(f"{where}: base_url is not a URL ({exc})") from exc
    secret = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True)
              if any(word in name.lower() for word in _SECRET_WORDS)]
    if "@" in parts.netloc or secret:
        what = "a user or password" if "@" in parts.netloc else f"the query parameter {secret[0]!r}"
        raise ParamsError(f"{where}: base_url holds {what}; params.yaml goes to git and dvc.lock: "
                          "put the key in an environment variable or .env and name it with api_key_env")
    return value


# Query parameters of a base_url that carry credentials (api-key=, access_token=, sig=, ...).
_SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "auth", "sig", "credential")


def _rpm(value: Any, where: str) -> float | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
        raise ParamsError(f"{where}: expected a positive number of requests per minute, got {value!r}")
    return value


def _exam_path(value: Any, where: str) -> str | tuple[tuple[str, str], ...] | None:
    """A file of exam replies, or a map from exam key to one (kept as sorted pairs: specs stay hashable)."""
    if isinstance(value, Mapping):
        return tuple(sorted((checks.string(k, where), checks.string(v, f"{where}.{k}")) for k, v in value.items()))
    return checks.optional_string(value, where)


def _optional_probability(value: Any, where: str) -> float | None:
    return None if value is None else _probability(value, where)


@dataclass(frozen=True, kw_only=True)
class SimModelOptions:
    """Simulated model: ``skill`` (0-1), ``justification`` (P(gold justification | right)),
    ``hint_gain`` (logit per hint), ``vision_skill`` (skill on the vlm split; None: ``skill``),
    ``abstain`` (on an exam, P(answers "I don't know") when it does not know the answer),
    ``slip`` (P(gold justification | wrong answer): the right reasoning ending on a wrong answer,
    the fourth class of prediction; 0 keeps it out), ``hidden_difficulty`` (sd on the logit scale
    of a difficulty each riddle draws once, the same draw for every model with this setting:
    riddles some models all fail and others all solve, as real riddles are; 0 keeps it out)."""

    skill: float = option(_probability)
    justification: float = option(_probability, 0.9)
    hint_gain: float = option(checks.number, 0.4)
    vision_skill: float | None = option(_optional_probability, None)
    abstain: float = option(_probability, 0.3)
    slip: float = option(_probability, 0.0)
    hidden_difficulty: float = option(lambda v, w: checks.number(v, w, 0.0, 10.0), 0.0)


@dataclass(frozen=True, kw_only=True)
class SimJudgeOptions:
    """Simulated judge: P(says correct | correct), P(says incorrect | incorrect), the bias
    towards its own provider's models, and the share of unparseable verdicts.

    Two settings make its errors harder to calibrate (docs/method.md §6; both 0 by default):
    ``correlation``, the chance that a verdict follows the prediction's own difficulty, shared
    by every judge, rather than the judge's own draw (judges err together on the same
    prediction); ``model_spread``, the sd on the logit scale of a leniency that each graded
    model draws once and every judge with this setting applies to both of its rates (judges
    err differently on different models)."""

    sensitivity: float = option(_probability, 0.9)
    specificity: float = option(_probability, 0.9)
    self_bias: float = option(lambda v, w: checks.number(v, w, -1.0, 1.0), 0.0)
    failure_rate: float = option(_probability, 0.0)
    correlation: float = option(_probability, 0.0)
    model_spread: float = option(lambda v, w: checks.number(v, w, 0.0, 10.0), 0.0)


@dataclass(frozen=True, kw_only=True)
class HttpOptions:
    """What both HTTP backends take: the key's variable and the generation settings."""

    api_key_env: str | None = option(checks.optional_string, None)
    max_tokens: int = option(_positive_int, DEFAULT_MAX_TOKENS)
    temperature: float | None = option(checks.optional_number, None)
    structured_output: bool = option(checks.boolean, True)


@dataclass(frozen=True, kw_only=True)
class BatchOptions(HttpOptions):
    """``batch``: the provider's own host and key variable; no base_url (batchling needs the real host)."""

    REFUSED: ClassVar[dict[str, str]] = {
        "base_url": "batchling batches only requests to the provider's own host; "
                    "for another endpoint use backend openai-compatible"}


@dataclass(frozen=True, kw_only=True)
class OpenAICompatibleOptions(HttpOptions):
    """``openai-compatible``: any endpoint; concurrency, rpm and timeout_s None take ``requests:``'s."""

    base_url: str = option(_base_url)
    concurrency: int | None = option(_positive_int, None)
    rpm: float | None = option(_rpm, None)
    timeout_s: float | None = option(lambda v, w: checks.optional_number(v, w, lo=0), None)
    max_tokens_field: MaxTokensField = option(lambda v, w: checks.choice(v, MAX_TOKENS_FIELDS, w), "max_tokens")


@dataclass(frozen=True, kw_only=True)
class ReplayOptions:
    """``replay``: the file of predictions or verdicts, the model name its rows carry, and the
    file of a model's raw exam replies (``exam_path``: ``item_id`` and ``text`` per question), or a
    map from exam key to such a file when it takes several exams."""

    path: str = option(checks.string)
    match_model: str | None = option(checks.optional_string, None)
    exam_path: str | tuple[tuple[str, str], ...] | None = option(lambda v, w: _exam_path(v, w), None)

    def exam_replies(self, exam: str) -> str | None:
        """The file of this model's replies to exam ``exam`` (None: it has none)."""
        if isinstance(self.exam_path, tuple):
            return dict(self.exam_path).get(exam)
        return self.exam_path


@dataclass(frozen=True, kw_only=True)
class ImportedOptions:
    """``imported``: a run made elsewhere (an exam's ``runs:``, :mod:`sideways.config.exam`); its answers and
    grades are read from the run by ``exam_items``, so it has no option of its own."""


ModelOptions = SimModelOptions | BatchOptions | OpenAICompatibleOptions | ReplayOptions | ImportedOptions
JudgeOptions = SimJudgeOptions | BatchOptions | OpenAICompatibleOptions | ReplayOptions | ImportedOptions
# what a missing required option is for (default: "the <backend> backend needs this option")
_NEEDED = {
    "skill": "the sim backend needs a skill (the probability of a right answer, 0-1)",
    "base_url": "the openai-compatible backend needs an http(s) base_url, e.g. http://127.0.0.1:8000/v1",
    "path": "the replay backend needs the path of a predictions or verdicts file",
}


def validators(cls: type) -> dict[str, Check]:
    """Option name -> validator of an options class, read from its fields' declarations."""
    return {f.name: f.metadata["check"] for f in fields(cls)}


def parse_options(cls: type, backend: str, data: Mapping[str, Any], where: str) -> Any:
    """An instance of the options class ``cls`` of ``backend`` from a params entry (``data``
    without its identity keys): unknown keys, missing required ones and bad values are errors
    naming the key path; an inline API key is refused."""
    reject_inline_keys(data, where)
    for name, why in getattr(cls, "REFUSED", {}).items():
        if name in data:
            raise ParamsError(f"{where}.{name}: {why}")
    checks_of = validators(cls)
    checks.known_keys(data, checks_of, where)
    for f in fields(cls):
        if f.name not in data and f.default is MISSING and f.default_factory is MISSING:
            raise ParamsError(f"{where}.{f.name}: {_NEEDED.get(f.name, f'the {backend} backend needs this option')}")
    return cls(**{k: checks_of[k](v, f"{where}.{k}") for k, v in data.items()})


def expect_options[Options](options: object, cls: type[Options], where: str) -> Options:
    """``options`` as ``cls``: a backend given another backend's options is a programming error."""
    if not isinstance(options, cls):
        raise ParamsError(f"{where}: expected {cls.__name__}, got {type(options).__name__} (a spec built by hand?)")
    return options


def reject_inline_keys(options: Mapping[str, object], where: str) -> None:
    """Refuse keys written into params.yaml: they would end up in git, dvc.lock and the run-cache."""
    for name in INLINE_KEY_OPTIONS:
        if name in options:
            raise ParamsError(
                f"{where}.{name}: never put a key in params.yaml (it is versioned); "
                "put it in an environment variable or .env and name the variable with api_key_env"
            )
