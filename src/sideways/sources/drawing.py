"""Deterministic pictures for the visual riddles: a drawing spec in, the same PNG bytes out.

A spec is a mapping with a ``kind`` (a key of :data:`KINDS`) and that kind's fields. Every kind
is drawn with Pillow's ``ImageDraw`` primitives on a 16-colour palette image; text is drawn from
line segments (:data:`GLYPHS`), never from a font file, because fonts (and Pillow's default
FreeType font) rasterise differently from machine to machine. The PNG is encoded here with stored
(uncompressed) deflate blocks, because zlib builds (zlib, zlib-ng) compress the same pixels to
different bytes; stored blocks are the same everywhere, so the riddle table, and everything DVC
derives from it, hashes the same on every machine.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PIL import Image, ImageDraw

from sideways.core.errors import RiddleError

Spec = Mapping[str, Any]
Point = tuple[float, float]

# The palette, in index order; index 0 is the background. At most 16 colours (4-bit PNG).
COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (255, 255, 255),
    "black": (0, 0, 0),
    "grey": (128, 128, 128),
    "lightgrey": (215, 215, 215),
    "red": (214, 40, 40),
    "blue": (30, 90, 200),
    "green": (40, 150, 60),
    "yellow": (240, 200, 20),
    "orange": (240, 130, 20),
    "purple": (130, 60, 170),
    "brown": (150, 95, 45),
    "wood": (225, 180, 110),
    "pink": (240, 140, 180),
    "cyan": (40, 180, 200),
    "darkgreen": (20, 90, 40),
    "navy": (20, 30, 90),
}
_INDEX = {name: i for i, name in enumerate(COLOURS)}

# Stroke font on a 4 x 6 grid (x right, y down): each glyph is a list of polylines. Lower-case
# letters are drawn as capitals, except 'x', which is the multiplication sign.
_RECT: list[Point] = [(0, 0), (4, 0), (4, 6), (0, 6), (0, 0)]
_OCT: list[Point] = [(1, 0), (3, 0), (4, 1), (4, 5), (3, 6), (1, 6), (0, 5), (0, 1), (1, 0)]
GLYPHS: dict[str, list[list[Point]]] = {
    " ": [],
    "0": [_RECT, [(4, 0), (0, 6)]],
    "1": [[(1, 1), (2, 0), (2, 6)], [(1, 6), (3, 6)]],
    "2": [[(0, 0), (4, 0), (4, 3), (0, 3), (0, 6), (4, 6)]],
    "3": [[(0, 0), (4, 0), (4, 6), (0, 6)], [(1, 3), (4, 3)]],
    "4": [[(0, 0), (0, 3), (4, 3)], [(4, 0), (4, 6)]],
    "5": [[(4, 0), (0, 0), (0, 3), (4, 3), (4, 6), (0, 6)]],
    "6": [[(4, 0), (0, 0), (0, 6), (4, 6), (4, 3), (0, 3)]],
    "7": [[(0, 0), (4, 0), (1.5, 6)]],
    "8": [_RECT, [(0, 3), (4, 3)]],
    "9": [[(4, 3), (0, 3), (0, 0), (4, 0), (4, 6), (0, 6)]],
    "A": [[(0, 6), (0, 2), (2, 0), (4, 2), (4, 6)], [(0, 3.5), (4, 3.5)]],
    "B": [[(0, 0), (3, 0), (4, 1), (4, 2), (3, 3), (0, 3)], [(3, 3), (4, 4), (4, 5), (3, 6), (0, 6), (0, 0)]],
    "C": [[(4, 0), (1, 0), (0, 1), (0, 5), (1, 6), (4, 6)]],
    "D": [[(0, 0), (3, 0), (4, 1), (4, 5), (3, 6), (0, 6), (0, 0)]],
    "E": [[(4, 0), (0, 0), (0, 6), (4, 6)], [(0, 3), (3, 3)]],
    "F": [[(4, 0), (0, 0), (0, 6)], [(0, 3), (3, 3)]],
    "G": [[(4, 1), (3, 0), (1, 0), (0, 1), (0, 5), (1, 6), (4, 6), (4, 3), (2, 3)]],
    "H": [[(0, 0), (0, 6)], [(4, 0), (4, 6)], [(0, 3), (4, 3)]],
    "I": [[(1, 0), (3, 0)], [(2, 0), (2, 6)], [(1, 6), (3, 6)]],
    "J": [[(4, 0), (4, 5), (3, 6), (1, 6), (0, 5)]],
    "K": [[(0, 0), (0, 6)], [(4, 0), (0, 3.5)], [(1.2, 2.5), (4, 6)]],
    "L": [[(0, 0), (0, 6), (4, 6)]],
    "M": [[(0, 6), (0, 0), (2, 3), (4, 0), (4, 6)]],
    "N": [[(0, 6), (0, 0), (4, 6), (4, 0)]],
    "O": [_OCT],
    "P": [[(0, 6), (0, 0), (4, 0), (4, 3), (0, 3)]],
    "Q": [_OCT, [(2.5, 4.5), (4, 6.5)]],
    "R": [[(0, 6), (0, 0), (4, 0), (4, 3), (0, 3), (4, 6)]],
    "S": [[(4, 1), (3, 0), (1, 0), (0, 1), (0, 2), (1, 3), (3, 3), (4, 4), (4, 5), (3, 6), (1, 6), (0, 5)]],
    "T": [[(0, 0), (4, 0)], [(2, 0), (2, 6)]],
    "U": [[(0, 0), (0, 6), (4, 6), (4, 0)]],
    "V": [[(0, 0), (2, 6), (4, 0)]],
    "W": [[(0, 0), (1, 6), (2, 3), (3, 6), (4, 0)]],
    "X": [[(0, 0), (4, 6)], [(4, 0), (0, 6)]],
    "Y": [[(0, 0), (2, 3), (4, 0)], [(2, 3), (2, 6)]],
    "Z": [[(0, 0), (4, 0), (0, 6), (4, 6)]],
    "+": [[(0, 3), (4, 3)], [(2, 1), (2, 5)]],
    "-": [[(0, 3), (4, 3)]],
    "=": [[(0, 2), (4, 2)], [(0, 4), (4, 4)]],
    "x": [[(0.5, 1.5), (3.5, 4.5)], [(3.5, 1.5), (0.5, 4.5)]],
    "/": [[(4, 0), (0, 6)]],
    "?": [[(0, 1), (1, 0), (3, 0), (4, 1), (4, 2), (2, 3.5), (2, 4.5)], [(2, 5.6), (2, 6)]],
    ":": [[(2, 1.6), (2, 2.2)], [(2, 4.6), (2, 5.2)]],
    ".": [[(2, 5.4), (2, 6)]],
}

# Matchstick symbols: which sticks each symbol is made of. Digits use the seven segments
# a (top), b (top right), c (bottom right), d (bottom), e (bottom left), f (top left), g (middle).
MATCH_SYMBOLS: dict[str, frozenset[str]] = {
    "0": frozenset("abcdef"),
    "1": frozenset("bc"),
    "2": frozenset("abdeg"),
    "3": frozenset("abcdg"),
    "4": frozenset("bcfg"),
    "5": frozenset("acdfg"),
    "6": frozenset("acdefg"),
    "7": frozenset("abc"),
    "8": frozenset("abcdefg"),
    "9": frozenset("abcdfg"),
    "+": frozenset({"h", "v"}),
    "-": frozenset({"h"}),
    "=": frozenset({"u", "l"}),
}


def render(spec: Spec) -> bytes:
    """Draw ``spec`` and return PNG bytes; the same spec always gives the same bytes."""
    return encode_png(draw(spec))


def draw(spec: Spec) -> Image.Image:
    """Draw ``spec`` on a palette image; a bad spec raises :class:`RiddleError` naming the kind."""
    if not isinstance(spec, Mapping):
        raise RiddleError(f"drawing spec must be a mapping, got {type(spec).__name__}")
    kind = spec.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise RiddleError(f"unknown drawing kind {kind!r} (known: {', '.join(sorted(KINDS))})")
    try:
        return KINDS[kind](spec)
    except RiddleError as exc:
        raise RiddleError(f"drawing {kind!r}: {exc}") from exc
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RiddleError(f"drawing {kind!r}: bad spec ({type(exc).__name__}: {exc})") from exc


# ---------------------------------------------------------------- PNG encoding


def encode_png(image: Image.Image) -> bytes:
    """Encode a palette image as a 4-bit PNG with stored deflate blocks (same bytes everywhere)."""
    if image.mode != "P":
        raise ValueError("encode_png expects a palette ('P') image")
    width, height = image.size
    stride = (width + 1) // 2
    packed = image.tobytes("raw", "P;4")
    raw = b"".join(b"\x00" + packed[r * stride : (r + 1) * stride] for r in range(height))
    palette = b"".join(bytes(rgb) for rgb in COLOURS.values())
    header = struct.pack(">IIBBBBB", width, height, 4, 3, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"PLTE", palette)
        + _chunk(b"IDAT", _stored_zlib(raw))
        + _chunk(b"IEND", b"")
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _stored_zlib(data: bytes) -> bytes:
    """A zlib stream of uncompressed deflate blocks (RFC 1950/1951): no compressor involved."""
    out = [b"\x78\x01"]
    size = 65535
    starts = range(0, max(len(data), 1), size)
    for i in starts:
        block = data[i : i + size]
        final = 1 if i + size >= len(data) else 0
        out.append(struct.pack("<BHH", final, len(block), len(block) ^ 0xFFFF) + block)
    out.append(struct.pack(">I", zlib.adler32(data)))
    return b"".join(out)


# ---------------------------------------------------------------- helpers


def colour(name: str) -> int:
    """The palette index of a colour name."""
    if name not in _INDEX:
        raise RiddleError(f"unknown colour {name!r} (known: {', '.join(COLOURS)})")
    return _INDEX[name]


def _canvas(spec: Spec, width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    width, height = int(spec.get("width", width)), int(spec.get("height", height))
    if not (16 <= width <= 2000 and 16 <= height <= 2000):
        raise RiddleError(f"image size {width}x{height} is outside 16..2000 pixels")
    image = Image.new("P", (width, height), colour(spec.get("background", "white")))
    image.putpalette(b"".join(bytes(rgb) for rgb in COLOURS.values()))
    return image, ImageDraw.Draw(image)


def text(d: ImageDraw.ImageDraw, s: str, centre: Point, size: float, fill: str = "black", width: int = 0) -> None:
    """Draw ``s`` centred on ``centre`` with stroke glyphs ``size`` pixels tall."""
    unit = size / 6
    advance = 6 * unit
    x0 = centre[0] - (len(s) * advance - 2 * unit) / 2
    y0 = centre[1] - size / 2
    stroke = width or max(2, round(size / 9))
    for i, ch in enumerate(s):
        glyph = GLYPHS.get(ch) if ch in GLYPHS else GLYPHS.get(ch.upper())
        if glyph is None:
            raise RiddleError(f"no glyph for character {ch!r}")
        for line in glyph:
            pts = [(x0 + i * advance + x * unit, y0 + y * unit) for x, y in line]
            d.line(pts, fill=colour(fill), width=stroke, joint="curve")
            for p in (pts[0], pts[-1]):  # round the ends
                r = stroke / 2
                d.ellipse([p[0] - r, p[1] - r, p[0] + r, p[1] + r], fill=colour(fill))


def _shape(d: ImageDraw.ImageDraw, shape: str, c: Point, r: float, fill: str, outline: str = "black") -> None:
    """Draw a named shape of radius ``r`` centred on ``c``."""
    x, y = c
    f, o = colour(fill), colour(outline)
    if shape == "circle":
        d.ellipse([x - r, y - r, x + r, y + r], fill=f, outline=o, width=2)
    elif shape == "square":
        s = r * 0.85
        d.rectangle([x - s, y - s, x + s, y + s], fill=f, outline=o, width=2)
    elif shape == "triangle":
        d.polygon([(x, y - r), (x + r * 0.95, y + r * 0.75), (x - r * 0.95, y + r * 0.75)], fill=f, outline=o, width=2)
    elif shape == "diamond":
        d.polygon([(x, y - r), (x + r * 0.8, y), (x, y + r), (x - r * 0.8, y)], fill=f, outline=o, width=2)
    elif shape == "star":
        pts = [
            (x + (r if k % 2 == 0 else r * 0.45) * math.sin(k * math.pi / 5),
             y - (r if k % 2 == 0 else r * 0.45) * math.cos(k * math.pi / 5))
            for k in range(10)
        ]
        d.polygon(pts, fill=f, outline=o, width=2)
    elif shape == "hexagon":
        pts = [(x + r * math.cos(k * math.pi / 3), y + r * math.sin(k * math.pi / 3)) for k in range(6)]
        d.polygon(pts, fill=f, outline=o, width=2)
    elif shape == "cross":
        s, t = r * 0.9, r * 0.32
        d.polygon(
            [(x - t, y - s), (x + t, y - s), (x + t, y - t), (x + s, y - t), (x + s, y + t), (x + t, y + t),
             (x + t, y + s), (x - t, y + s), (x - t, y + t), (x - s, y + t), (x - s, y - t), (x - t, y - t)],
            fill=f, outline=o, width=2,
        )
    elif shape != "empty":
        raise RiddleError(f"unknown shape {shape!r}")


# ---------------------------------------------------------------- kinds


def _matchsticks(spec: Spec) -> Image.Image:
    """An equation of matchsticks: digits from seven segments, ``+``, ``-`` and ``=``."""
    equation = str(spec["equation"])
    for ch in equation:
        if ch not in MATCH_SYMBOLS:
            raise RiddleError(f"symbol {ch!r} cannot be made of matchsticks")
    L, gap = 60, 26
    widths = [L if ch.isdigit() else int(L * 0.8) for ch in equation]
    image, d = _canvas(spec, sum(widths) + gap * (len(equation) - 1) + 80, 2 * L + 80)
    x = 40
    for ch, w in zip(equation, widths, strict=True):
        for a, b in _stick_positions(ch, x, 40, L, w):
            _stick(d, a, b)
        x += w + gap
    return image


def _stick_positions(ch: str, x: float, y: float, L: float, w: float) -> list[tuple[Point, Point]]:
    seg = {
        "a": ((x, y), (x + L, y)),
        "b": ((x + L, y), (x + L, y + L)),
        "c": ((x + L, y + L), (x + L, y + 2 * L)),
        "d": ((x, y + 2 * L), (x + L, y + 2 * L)),
        "e": ((x, y + L), (x, y + 2 * L)),
        "f": ((x, y), (x, y + L)),
        "g": ((x, y + L), (x + L, y + L)),
        "h": ((x, y + L), (x + w, y + L)),
        "v": ((x + w / 2, y + L - w / 2), (x + w / 2, y + L + w / 2)),
        "u": ((x, y + L - L / 5), (x + w, y + L - L / 5)),
        "l": ((x, y + L + L / 5), (x + w, y + L + L / 5)),
    }
    return [seg[s] for s in sorted(MATCH_SYMBOLS[ch])]


def _stick(d: ImageDraw.ImageDraw, a: Point, b: Point) -> None:
    """One matchstick from ``a`` to ``b``, shortened a little so neighbours stay apart, red head at ``a``."""
    (x1, y1), (x2, y2) = a, b
    length = math.hypot(x2 - x1, y2 - y1)
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    s, e = (x1 + ux * 5, y1 + uy * 5), (x2 - ux * 5, y2 - uy * 5)
    d.line([s, e], fill=colour("wood"), width=7)
    hx, hy = s[0] + ux * 4, s[1] + uy * 4
    d.ellipse([hx - 5, hy - 5, hx + 5, hy + 5], fill=colour("red"))


def _lines(spec: Spec) -> Image.Image:
    """Straight segments ``[x1, y1, x2, y2]`` in pixels, with optional ``labels`` ``[x, y, text]``."""
    image, d = _canvas(spec, 400, 400)
    width = int(spec.get("line_width", 3))
    for x1, y1, x2, y2 in spec["segments"]:
        d.line([(x1, y1), (x2, y2)], fill=colour(spec.get("colour", "black")), width=width)
    for x, y, label in spec.get("labels", []):
        text(d, str(label), (x, y), 18, "blue")
    return image


def _maze(spec: Spec) -> Image.Image:
    """A maze from text rows: ``#`` wall, ``.`` floor, ``*`` the goal, a letter a labelled floor cell."""
    rows: Sequence[str] = spec["rows"]
    cell = int(spec.get("cell", 24))
    if len({len(r) for r in rows}) != 1:
        raise RiddleError("maze rows must all have the same length")
    image, d = _canvas(spec, len(rows[0]) * cell, len(rows) * cell)
    for j, row in enumerate(rows):
        for i, ch in enumerate(row):
            box = [i * cell, j * cell, (i + 1) * cell - 1, (j + 1) * cell - 1]
            c = (i * cell + cell / 2, j * cell + cell / 2)
            if ch == "#":
                d.rectangle(box, fill=colour("navy"))
            elif ch == "*":
                _shape(d, "star", c, cell * 0.45, "yellow", "orange")
            elif ch.isalpha():
                text(d, ch, c, cell * 0.6, "red")
            elif ch != ".":
                raise RiddleError(f"unknown maze cell {ch!r}")
    return image


def _grid(spec: Spec) -> Image.Image:
    """A table of cells ``"shape:colour"`` or ``"text:..."``, with optional A/B/C and 1/2/3 labels."""
    cells: Sequence[Sequence[str]] = spec["cells"]
    size = int(spec.get("cell", 64))
    labels = bool(spec.get("labels", False))
    off = size // 2 if labels else 0
    ncol = max(len(r) for r in cells)
    image, d = _canvas(spec, off + ncol * size + 2, off + len(cells) * size + 2)
    for j, row in enumerate(cells):
        for i, cell in enumerate(row):
            x, y = off + i * size, off + j * size
            d.rectangle([x, y, x + size, y + size], outline=colour("grey"), width=2)
            what, _, arg = str(cell).partition(":")
            c = (x + size / 2, y + size / 2)
            if what == "text":
                text(d, arg, c, size * 0.4)
            else:
                _shape(d, what, c, size * 0.36, arg or "white")
    if labels:
        for i in range(ncol):
            text(d, chr(ord("A") + i), (off + i * size + size / 2, off / 2), off * 0.45, "grey")
        for j in range(len(cells)):
            text(d, str(j + 1), (off / 2, off + j * size + size / 2), off * 0.45, "grey")
    return image


def _shapes(spec: Spec) -> Image.Image:
    """A scene of primitives: ``circle``/``dot`` (centre, radius), ``rect`` (box), ``polygon`` (points), ``text``."""
    image, d = _canvas(spec, 400, 300)
    for item in spec["items"]:
        kind = item["shape"]
        fill = colour(item["fill"]) if item.get("fill") else None
        outline = colour(item.get("outline", "black"))
        width = int(item.get("width", 3))
        if kind in ("circle", "dot"):
            (x, y), r = item["centre"], item["radius"]
            if kind == "dot":
                d.ellipse([x - r, y - r, x + r, y + r], fill=fill if fill is not None else outline)
            else:
                d.ellipse([x - r, y - r, x + r, y + r], fill=fill, outline=outline, width=width)
        elif kind == "rect":
            d.rectangle(list(item["box"]), fill=fill, outline=outline, width=width)
        elif kind == "polygon":
            d.polygon([tuple(p) for p in item["points"]], fill=fill, outline=outline, width=width)
        elif kind == "text":
            text(d, str(item["text"]), tuple(item["centre"]), item.get("size", 20), item.get("outline", "black"))
        else:
            raise RiddleError(f"unknown shape {kind!r}")
    return image


def _balance(spec: Spec) -> Image.Image:
    """Balanced scales side by side: each ``{left: [...], right: [...]}`` lists shapes or numbers."""
    scales: Sequence[Mapping[str, Sequence[str]]] = spec["scales"]
    pw = 290
    image, d = _canvas(spec, pw * len(scales), 230)
    for k, sc in enumerate(scales):
        cx = k * pw + pw / 2
        d.polygon([(cx, 120), (cx - 22, 200), (cx + 22, 200)], fill=colour("grey"))
        d.line([(cx - 120, 120), (cx + 120, 120)], fill=colour("black"), width=5)
        for side, sx in (("left", cx - 80), ("right", cx + 80)):
            d.line([(sx, 120), (sx, 105)], fill=colour("black"), width=2)
            d.line([(sx - 58, 105), (sx + 58, 105)], fill=colour("brown"), width=5)
            _pan_items(d, sc[side], sx, 105)
        if k:
            d.line([(k * pw, 10), (k * pw, 220)], fill=colour("lightgrey"), width=2)
    return image


def _pan_items(d: ImageDraw.ImageDraw, items: Sequence[str], cx: float, base: float) -> None:
    """Stack up to three items per row on a pan whose surface is at height ``base``."""
    r, per_row = 15, 3
    for n, item in enumerate(items):
        row, col = divmod(n, per_row)
        in_row = min(per_row, len(items) - row * per_row)
        x = cx + (col - (in_row - 1) / 2) * (2 * r + 3)
        y = base - 4 - r - row * (2 * r + 3)
        what, _, fill = str(item).partition(":")
        if what == "text":
            text(d, fill, (x, y), 24)
        else:
            _shape(d, what, (x, y), r, fill or "white")


def _clock(spec: Spec) -> Image.Image:
    """An analogue clock at ``hour``:``minute``; ``numerals`` draws 12, 3, 6, 9; ``mirror`` flips it."""
    hour, minute = int(spec["hour"]), int(spec["minute"])
    if not (0 <= hour < 24 and 0 <= minute < 60):
        raise RiddleError(f"no such time {hour}:{minute:02d}")
    size = int(spec.get("size", 300))
    image, d = _canvas(spec, size, size)
    c, R = size / 2, size * 0.45
    d.ellipse([c - R, c - R, c + R, c + R], fill=colour("white"), outline=colour("black"), width=5)
    for k in range(60):
        a = k * math.pi / 30
        inner = R * (0.82 if k % 5 == 0 else 0.9)
        d.line(
            [
                (c + inner * math.sin(a), c - inner * math.cos(a)),
                (c + R * 0.96 * math.sin(a), c - R * 0.96 * math.cos(a)),
            ],
            fill=colour("black"), width=5 if k % 5 == 0 else 1,
        )
    if spec.get("numerals", True):
        for n in (12, 3, 6, 9):
            a = n * math.pi / 6
            text(d, str(n), (c + R * 0.66 * math.sin(a), c - R * 0.66 * math.cos(a)), size * 0.08)
    hand_angle = ((hour % 12) + minute / 60) * math.pi / 6
    for angle, length, width, col in ((hand_angle, 0.5, 9, "black"), (minute * math.pi / 30, 0.78, 5, "navy")):
        end = (c + R * length * math.sin(angle), c - R * length * math.cos(angle))
        d.line([(c, c), end], fill=colour(col), width=width)
    d.ellipse([c - 7, c - 7, c + 7, c + 7], fill=colour("red"))
    if spec.get("mirror", False):
        image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return image


def _gears(spec: Spec) -> Image.Image:
    """Toothed gears ``{x, y, r, label}`` (``r``: pitch radius); a gear with ``arrow`` shows its turn."""
    image, d = _canvas(spec, 480, 320)
    for g in spec["gears"]:
        x, y, r = float(g["x"]), float(g["y"]), float(g["r"])
        teeth = max(6, round(r / 5))
        pts = []
        for k in range(teeth * 4):
            a = 2 * math.pi * k / (teeth * 4)
            rr = r + 5 if k % 4 in (1, 2) else r - 5
            pts.append((x + rr * math.cos(a), y + rr * math.sin(a)))
        d.polygon(pts, fill=colour(g.get("colour", "lightgrey")), outline=colour("black"), width=2)
        d.ellipse([x - 4, y - 4, x + 4, y + 4], fill=colour("black"))
        if g.get("label"):
            text(d, str(g["label"]), (x, y - r * 0.42), min(22, r * 0.5), "navy")
        if g.get("arrow"):
            _turn_arrow(d, x, y, r + 14, clockwise=g["arrow"] == "clockwise")
    return image


def _turn_arrow(d: ImageDraw.ImageDraw, x: float, y: float, r: float, clockwise: bool) -> None:
    """A curved arrow over the top of a gear showing its direction of turn."""
    d.arc([x - r, y - r, x + r, y + r], start=210, end=330, fill=colour("red"), width=4)
    end = math.radians(330 if clockwise else 210)
    tip = (x + r * math.cos(end), y + r * math.sin(end))
    tangent = end + (math.pi / 2 if clockwise else -math.pi / 2)
    back = (tip[0] - 14 * math.cos(tangent), tip[1] - 14 * math.sin(tangent))
    normal = (math.cos(end) * 8, math.sin(end) * 8)
    left, right = (back[0] + normal[0], back[1] + normal[1]), (back[0] - normal[0], back[1] - normal[1])
    d.polygon([tip, left, right], fill=colour("red"))


def _streets(spec: Spec) -> Image.Image:
    """A street grid of ``cols`` x ``rows`` blocks; ``closed`` lists missing streets ``[x1, y1, x2, y2]``."""
    cols, rows = int(spec["cols"]), int(spec["rows"])
    step, m = int(spec.get("step", 70)), 40
    image, d = _canvas(spec, cols * step + 2 * m, rows * step + 2 * m)
    closed = {tuple(sorted([(a, b), (c, e)])) for a, b, c, e in spec.get("closed", [])}
    for j in range(rows + 1):
        for i in range(cols + 1):
            for di, dj in ((1, 0), (0, 1)):
                i2, j2 = i + di, j + dj
                if i2 > cols or j2 > rows or tuple(sorted([(i, j), (i2, j2)])) in closed:
                    continue
                d.line([(m + i * step, m + j * step), (m + i2 * step, m + j2 * step)], fill=colour("black"), width=6)
    for label, (i, j) in spec.get("labels", {}).items():
        x, y = m + i * step, m + j * step
        d.ellipse([x - 15, y - 15, x + 15, y + 15], fill=colour("yellow"), outline=colour("black"), width=2)
        text(d, label, (x, y), 16, "red")
    return image


def _pyramid(spec: Spec) -> Image.Image:
    """A wall of numbered bricks, top row first; each row has one brick more than the row above."""
    rows: Sequence[Sequence[str]] = spec["rows"]
    bw, bh = 80, 50
    n = len(rows)
    image, d = _canvas(spec, n * bw + 40, n * bh + 40)
    for j, row in enumerate(rows):
        if len(row) != j + 1:
            raise RiddleError(f"pyramid row {j + 1} has {len(row)} bricks, expected {j + 1}")
        x0 = 20 + (n - j - 1) * bw / 2
        for i, label in enumerate(row):
            box = [x0 + i * bw, 20 + j * bh, x0 + (i + 1) * bw, 20 + (j + 1) * bh]
            d.rectangle(box, fill=colour("wood"), outline=colour("brown"), width=3)
            if label:
                text(d, str(label), ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), 22)
    return image


KINDS: dict[str, Callable[[Spec], Image.Image]] = {
    "balance": _balance,
    "clock": _clock,
    "gears": _gears,
    "grid": _grid,
    "lines": _lines,
    "matchsticks": _matchsticks,
    "maze": _maze,
    "pyramid": _pyramid,
    "shapes": _shapes,
    "streets": _streets,
}
