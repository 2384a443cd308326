"""An image from the system clipboard, through the platform's tool.

Terminals pass only text to a program, so an image on the clipboard is read with a tool:
``wl-paste --type image/png`` (Wayland), ``xclip -selection clipboard -t image/png -o`` (X11),
``pngpaste -`` (macOS). ``paste_image`` runs the first one found on ``PATH`` as a subprocess
(never blocking the event loop, with a deadline) and answers its bytes; ``ClipboardError``
says what went wrong: no tool installed (naming them), nothing image-like on the clipboard.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys

TOOLS: tuple[tuple[str, ...], ...] = (
    ("wl-paste", "--no-newline", "--type", "image/png"),
    ("xclip", "-selection", "clipboard", "-t", "image/png", "-o"),
    ("pngpaste", "-"),
)
TIMEOUT = 5.0
MAX_CLIPBOARD_BYTES = 50 * 1024 * 1024


class ClipboardError(Exception):
    """No image could be read from the clipboard: the message says why, for the user."""


def clipboard_tool(path: str | None = None) -> tuple[str, ...] | None:
    """The command that would read the clipboard's image (``path``: the ``PATH`` to search),
    preferring Wayland's tool under Wayland."""
    tools = list(TOOLS)
    if not os.environ.get("WAYLAND_DISPLAY"):
        tools.sort(key=lambda tool: tool[0] == "wl-paste")
    if sys.platform == "darwin":
        tools.sort(key=lambda tool: tool[0] != "pngpaste")
    for tool in tools:
        found = shutil.which(tool[0], path=path)
        if found is not None:
            return (found, *tool[1:])
    return None


def missing_note() -> str:
    return (
        "No clipboard tool for images: install wl-clipboard (wl-paste, Wayland), xclip (X11) "
        "or pngpaste (macOS) — or save the image and type @path, or drop the file on the "
        "terminal."
    )


async def paste_image(path: str | None = None) -> bytes:
    """The clipboard's image as bytes (PNG); ``ClipboardError`` when there is none."""
    command = await asyncio.to_thread(clipboard_tool, path)
    if command is None:
        raise ClipboardError(missing_note())
    name = os.path.basename(command[0])
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:
        raise ClipboardError(f"{name} could not be started: {exc.strerror or exc}.") from None
    try:
        out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        raise ClipboardError(f"{name} did not answer within {TIMEOUT:.0f} s.") from None
    if process.returncode != 0 or not out:
        said = err.decode("utf-8", "replace").strip().splitlines()
        why = f" ({said[-1]})" if said else ""
        raise ClipboardError(f"The clipboard holds no image{why}.")
    if len(out) > MAX_CLIPBOARD_BYTES:
        raise ClipboardError("The clipboard's image is over 50 MB: save it and attach the file.")
    return out


__all__ = ["TOOLS", "ClipboardError", "clipboard_tool", "missing_note", "paste_image"]
