"""API keys: read from the environment or a ``.env`` file, never written anywhere.

Keys travel only in request headers. Everything a backend writes (rows, cache records, error
messages) goes through :class:`Redactor` first (:func:`scrub` for whole responses and records),
so a server that echoes the key back, in an error or in a 200 body, cannot leak it into an artifact.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from sideways.core.errors import SecretsError

REDACTED = "[REDACTED]"


def read_dotenv(path: str | Path) -> dict[str, str]:
    """``KEY=VALUE`` lines of ``path`` (comments, blank lines and ``export`` allowed); {} if absent."""
    path = Path(path)
    if not path.is_file():
        return {}
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[name.strip()] = value
    return values


def environment(dotenv: str | Path = ".env", base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables a run may read keys from: ``.env`` first, the real environment wins."""
    return {**read_dotenv(dotenv), **(os.environ if base is None else base)}


def api_key(env: Mapping[str, str], var: str, where: str) -> str:
    """The value of ``var`` in ``env``; a :class:`SecretsError` naming the variable if unset."""
    value = env.get(var, "")
    if not value:
        raise SecretsError(f"{where}: environment variable {var} is not set (set it in the shell or in .env)")
    return value


class Redactor:
    """Replaces known secret values with ``[REDACTED]`` in any text about to be stored."""

    def __init__(self, secrets: Iterable[str | None]):
        self._secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)

    @property
    def active(self) -> bool:
        """Whether there is any secret to remove."""
        return bool(self._secrets)

    def __call__(self, text: str | None) -> str | None:
        if text is None:
            return None
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text


def scrub(value: Any, redact: Callable[[str | None], str | None]) -> Any:
    """``value`` (a response or a record: dicts, lists, strings) with ``redact`` applied to every
    string and key: a provider that echoes the key in a 200 body must not get it into the cache,
    the answers files or the rows."""
    if isinstance(redact, Redactor) and not redact.active:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {redact(k) if isinstance(k, str) else k: scrub(v, redact) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v, redact) for v in value]
    return value
