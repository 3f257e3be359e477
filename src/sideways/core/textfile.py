"""A text file read whole, every way it can fail said in one line naming it."""

from __future__ import annotations

from pathlib import Path

from sideways.core.errors import SidewaysError


def read_text(path: Path, what: str, error: type[SidewaysError]) -> str:
    """The UTF-8 text of ``path`` (a ``what``: "params file", "exam file"); a missing file, a
    folder, an unreadable file or bytes that are not UTF-8 raise ``error`` naming ``path``."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise error(f"{path}: {what} not found") from exc
    except IsADirectoryError as exc:
        raise error(f"{path}: is a folder, not a {what}") from exc
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 (byte {exc.start}: {exc.reason})") from exc
