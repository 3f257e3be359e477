"""Lines that fit a terminal: no line of sideways' normal output is wider than :data:`WIDTH` columns.

A long message is cut with ``...`` and a pointer to where the whole of it is kept (a record
file, a command); a long list is wrapped onto indented lines, or summarised with a count.
"""

from __future__ import annotations

from collections.abc import Sequence

WIDTH = 120  # the project's line length, for code and for what it prints
MORE = "..."


def clip(line: str, width: int = WIDTH) -> str:
    """``line`` cut to ``width`` columns, ending with ``...`` when it was cut."""
    return line if len(line) <= width else line[: width - len(MORE)].rstrip() + MORE


def wrap(head: str, items: Sequence[str], width: int = WIDTH, indent: str = "  ") -> list[str]:
    """``head`` followed by ``items`` joined by ``, ``, over as many lines of at most ``width``
    columns as needed (the next ones start with ``indent``); an item too long alone is clipped."""
    lines, line, fresh = [], head, True
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if not fresh and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line, fresh = indent, True
        line += ("" if fresh else " ") + piece
        fresh = False
    lines.append(line)
    return [clip(x, width) for x in lines]


def listing(items: Sequence[str], room: int, sep: str = ", ") -> str:
    """As many of ``items`` as fit in ``room`` columns, then ``and N more``: a list on one line."""
    shown: list[str] = []
    for i, item in enumerate(items):
        rest = len(items) - i - 1
        tail = f"{sep}and {rest} more" if rest else ""
        if len(sep.join([*shown, item]) + tail) > room and shown:
            return sep.join(shown) + f"{sep}and {len(items) - len(shown)} more"
        shown.append(item)
    return sep.join(shown)
