"""Checking riddle pictures: bytes that Pillow cannot open are reported, never passed on."""

from __future__ import annotations

import io

from PIL import Image, UnidentifiedImageError


def image_problem(data: bytes) -> str | None:
    """Why ``data`` is not a usable picture, or ``None`` when Pillow can open and decode it."""
    if not data:
        return "empty image"
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
    except UnidentifiedImageError:
        return "not a readable image (no known image format)"
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        # Messages here name no object address, so the same bytes give the same text.
        return f"not a readable image ({type(exc).__name__}: {exc})"
    return None
