"""Secrets in a DVC remote's URL, refused by ``sideways check`` before they are used or shared.

``dvc remote add store ssh://alice:hunter2@host/path`` writes the password into ``.dvc/config``,
which git tracks; in ``.dvc/config.local`` it is printed by ``dvc remote list`` and in DVC's
errors. DVC has an option for each secret (``password``, ``secret_access_key``, ``sas_token``,
...), set with ``dvc remote modify --local``. The message names the file and the remote and
never the secret itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from sideways.core.errors import SecretsError

#: The DVC config files a project holds: the shared one (tracked) and the clone's own.
CONFIG_FILES = (Path(".dvc/config"), Path(".dvc/config.local"))

#: Query parameters of a URL that carry credentials (Azure's ``sig=``, ``token=``, ``password=``, ...).
SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "auth", "sig", "credential")

_SECTION = re.compile(r"""^\s*\[\s*['"]?\s*remote\s+"(?P<name>[^"]*)"\s*['"]?\s*\]\s*$""")
_OTHER_SECTION = re.compile(r"^\s*\[")
_URL = re.compile(r"^\s*url\s*=\s*(?P<value>.*?)\s*$")


def url_secret(url: str) -> str | None:
    """What secret ``url`` holds (``a password``, ``a secret (sig=)``), or None."""
    try:
        parts = urlsplit(url.strip().strip("'\""))
    except ValueError:
        return None
    if parts.password is not None:
        return "a password"
    secret = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True)
              if any(word in name.lower() for word in SECRET_WORDS)]
    return f"a secret ({secret[0][:12]}=)" if secret else None


def remote_urls(text: str) -> list[tuple[str, str]]:
    """``(remote name, url)`` of each ``['remote "NAME"']`` section of a DVC config file's text."""
    out, name = [], None
    for line in text.splitlines():
        if match := _SECTION.match(line):
            name = match["name"]
        elif _OTHER_SECTION.match(line):
            name = None
        elif name is not None and (url := _URL.match(line)):
            out.append((name, url["value"]))
    return out


def url_secret_problems(root: Path) -> list[str]:
    """One line per remote whose URL holds a secret, in ``root``'s ``.dvc/config`` and ``config.local``
    (the storage's own option for it: docs/remotes.md, "Credentials")."""
    problems = []
    for rel in CONFIG_FILES:
        path = root / rel
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for name, url in remote_urls(text):
            if (what := url_secret(url)) is not None:
                short = name if len(name) <= 16 else name[:15] + "…"
                problems.append(f"{rel}: remote {short!r}: its url holds {what}; see docs/remotes.md, \"Credentials\"")
    return problems


def refuse_url_secrets(root: Path) -> None:
    """Raise :class:`SecretsError` naming the first remote whose URL holds a secret."""
    if problems := url_secret_problems(root):
        raise SecretsError(problems[0])
