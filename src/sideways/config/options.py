"""A model's or judge's backend options, typed per backend and validated in one place.

Each entry of ``models:`` and ``jury.pool:`` holds its identity (backend, provider, name,
n_hints) and the options of its backend; an option another backend takes, or a typo, is an
error naming the key path. An API key written inline is refused: params.yaml is versioned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from sideways.config import checks
from sideways.config.choices import MAX_TOKENS_FIELDS, Backend, MaxTokensField
from sideways.core.errors import ParamsError

DEFAULT_MAX_TOKENS = 4096  # a model entry's max_tokens overrides it
INLINE_KEY_OPTIONS = ("api_key", "key", "token", "secret")


@dataclass(frozen=True, kw_only=True)
class SimModelOptions:
    """Simulated model: ``skill`` (0-1), ``justification`` (P(gold justification | right)),
    ``hint_gain`` (logit per hint), ``vision_skill`` (skill on the vlm split; None: ``skill``),
    ``abstain`` (on an exam, P(answers "I don't know") when it does not know the answer)."""

    skill: float
    justification: float = 0.9
    hint_gain: float = 0.4
    vision_skill: float | None = None
    abstain: float = 0.3


@dataclass(frozen=True, kw_only=True)
class SimJudgeOptions:
    """Simulated judge: P(says correct | correct), P(says incorrect | incorrect), the bias
    towards its own provider's models, and the share of unparseable verdicts."""

    sensitivity: float = 0.9
    specificity: float = 0.9
    self_bias: float = 0.0
    failure_rate: float = 0.0


@dataclass(frozen=True, kw_only=True)
class HttpOptions:
    """What both HTTP backends take: the key's variable and the generation settings."""

    api_key_env: str | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float | None = None
    structured_output: bool = True


@dataclass(frozen=True, kw_only=True)
class BatchOptions(HttpOptions):
    """``batch``: the provider's own host and key variable; no base_url (batchling needs the real host)."""


@dataclass(frozen=True, kw_only=True)
class OpenAICompatibleOptions(HttpOptions):
    """``openai-compatible``: any endpoint; concurrency, rpm and timeout_s None take ``requests:``'s."""

    base_url: str
    concurrency: int | None = None
    rpm: float | None = None
    timeout_s: float | None = None
    max_tokens_field: MaxTokensField = "max_tokens"


@dataclass(frozen=True, kw_only=True)
class ReplayOptions:
    """``replay``: the file of predictions or verdicts, the model name its rows carry, and the
    file of a model's raw exam replies (``exam_path``: ``item_id`` and ``text`` per question)."""

    path: str
    match_model: str | None = None
    exam_path: str | None = None


ModelOptions = SimModelOptions | BatchOptions | OpenAICompatibleOptions | ReplayOptions
JudgeOptions = SimJudgeOptions | BatchOptions | OpenAICompatibleOptions | ReplayOptions
Check = Callable[[Any, str], Any]


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


_HTTP: dict[str, Check] = {
    "api_key_env": checks.optional_string,
    "max_tokens": _positive_int,
    "temperature": checks.optional_number,
    "structured_output": checks.boolean,
}
# option -> validator, per options class; every field of the class is listed (a test checks it)
VALIDATORS: dict[type, dict[str, Check]] = {
    SimModelOptions: {"skill": _probability, "justification": _probability, "hint_gain": checks.number,
                      "vision_skill": lambda v, w: None if v is None else _probability(v, w),
                      "abstain": _probability},
    SimJudgeOptions: {"sensitivity": _probability, "specificity": _probability,
                      "self_bias": lambda v, w: checks.number(v, w, -1.0, 1.0), "failure_rate": _probability},
    BatchOptions: _HTTP,
    OpenAICompatibleOptions: {**_HTTP, "base_url": _base_url, "concurrency": _positive_int, "rpm": _rpm,
                              "timeout_s": lambda v, w: checks.optional_number(v, w, lo=0),
                              "max_tokens_field": lambda v, w: checks.choice(v, MAX_TOKENS_FIELDS, w)},
    ReplayOptions: {"path": checks.string, "match_model": checks.optional_string,
                    "exam_path": checks.optional_string},
}
_MODEL: dict[Backend, type] = {"sim": SimModelOptions, "batch": BatchOptions,
                               "openai-compatible": OpenAICompatibleOptions, "replay": ReplayOptions}
_JUDGE: dict[Backend, type] = {**_MODEL, "sim": SimJudgeOptions}
# what a missing required option is for (default: "the <backend> backend needs this option")
_NEEDED = {
    "skill": "the sim backend needs a skill (the probability of a right answer, 0-1)",
    "base_url": "the openai-compatible backend needs an http(s) base_url, e.g. http://127.0.0.1:8000/v1",
    "path": "the replay backend needs the path of a predictions or verdicts file",
}


def model_options(backend: Backend, data: Mapping[str, Any], where: str) -> ModelOptions:
    """The options of a ``models:`` entry (``data`` without its identity keys)."""
    options: ModelOptions = _parse(_MODEL[backend], backend, data, where)
    return options


def judge_options(backend: Backend, data: Mapping[str, Any], where: str) -> JudgeOptions:
    """The options of a ``jury.pool:`` entry (``data`` without its identity keys)."""
    options: JudgeOptions = _parse(_JUDGE[backend], backend, data, where)
    return options


def _parse(cls: type, backend: Backend, data: Mapping[str, Any], where: str) -> Any:
    reject_inline_keys(data, where)
    if backend == "batch" and "base_url" in data:
        raise ParamsError(f"{where}.base_url: batchling batches only requests to the provider's own host; "
                          "for another endpoint use backend openai-compatible")
    validators = VALIDATORS[cls]
    checks.known_keys(data, validators, where)
    for f in fields(cls):
        if f.name not in data and f.default is MISSING and f.default_factory is MISSING:
            raise ParamsError(f"{where}.{f.name}: {_NEEDED.get(f.name, f'the {backend} backend needs this option')}")
    return cls(**{k: validators[k](v, f"{where}.{k}") for k, v in data.items()})


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
