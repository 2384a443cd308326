"""Paths to images in pasted text: what a terminal pastes when a file is dropped on it.

Terminals paste a dropped file as its path: quoted (``'/tmp/a b.png'``), with backslash
escapes (``/tmp/a\\ b.png``), as a ``file://`` URL (percent-encoded), or several separated by
spaces or new lines. ``pasted_image_paths`` answers the image files such text names — only
when the whole text is paths to existing image files, so a pasted sentence that mentions a
path stays text. Blocking (it looks at the file system): call from a thread.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from urllib.parse import unquote, urlparse

from agent_tui.core.images.prepare import looks_like_image

MAX_PASTED_PATHS = 20


def _path_of(token: str, cwd: Path) -> Path | None:
    if token.startswith("file://"):
        parsed = urlparse(token)
        if parsed.netloc not in ("", "localhost"):
            return None
        token = unquote(parsed.path)
    path = Path(token).expanduser()
    return path if path.is_absolute() else cwd / path


def pasted_image_paths(text: str, cwd: Path) -> list[Path]:
    """The image files ``text`` is made of (see the module docstring), else ``[]``."""
    text = text.strip()
    if not text or len(text) > 16_384:
        return []
    try:
        tokens = shlex.split(text)
    except ValueError:  # an unbalanced quote: not a pasted path
        return []
    if not tokens or len(tokens) > MAX_PASTED_PATHS:
        return []
    paths: list[Path] = []
    for token in tokens:
        path = _path_of(token, cwd)
        if path is None or not looks_like_image(path.name) or not path.is_file():
            return []
        paths.append(path)
    return paths


__all__ = ["pasted_image_paths"]
