"""Real image files for the tests, made with Pillow."""

from __future__ import annotations

import io
import os

from PIL import Image


def picture(width: int, height: int, fmt: str = "PNG", *, noise: bool = False) -> bytes:
    """An image of ``width``×``height`` in ``fmt``; ``noise``: random pixels (compresses
    badly, so it is heavy)."""
    if noise:
        image = Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))
    else:
        image = Image.new("RGB", (width, height), (30, 120, 200))
        for x in range(0, width, max(1, width // 8)):
            for y in range(height):
                image.putpixel((x, y), (250, 250, 250))
    buffer = io.BytesIO()
    image.save(buffer, fmt)
    return buffer.getvalue()
