"""Copying to the system clipboard, and saying how it was done.

Textual copies with OSC 52, an escape sequence that asks the terminal to set the clipboard;
VTE terminals (GNOME Terminal, Tilix…), Terminal.app and tmux without ``set-clipboard`` ignore
it, and nothing tells the app so. ``copy`` sends it anyway and also hands the text to the
desktop's own tool when one is on ``PATH`` — ``wl-copy`` under Wayland, ``xclip`` or ``xsel``
under X11, ``pbcopy`` on macOS — in an asyncio subprocess (the event loop never waits for it),
then notifies what was copied and by which means. Without a tool that worked the notification
says that OSC 52 was all, and that the terminal may have ignored it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

TOOL_SECONDS = 5.0
"""A clipboard tool that has not taken the text by then has failed (it is killed)."""

OSC52 = "OSC 52"
VIA_OSC52 = "via OSC 52 — your terminal may not allow it"

PLATFORM = sys.platform
"""Read at each copy (tests set it)."""


@dataclass(frozen=True)
class Tool:
    name: str
    argv: tuple[str, ...]
    """The command, its first word resolved on ``PATH``."""


_WAYLAND = (("wl-copy",),)
_X11 = (("xclip", "-selection", "clipboard"), ("xsel", "--clipboard", "--input"))
_MACOS = (("pbcopy",),)


def tools(environ: Mapping[str, str] | None = None, platform: str | None = None) -> list[Tool]:
    """The clipboard tools to try, in order, for this environment: those whose display is
    set (``WAYLAND_DISPLAY``, ``DISPLAY``; macOS needs none) and that are on ``PATH``."""
    environ = os.environ if environ is None else environ
    platform = PLATFORM if platform is None else platform
    wanted: list[tuple[str, ...]] = []
    if environ.get("WAYLAND_DISPLAY"):
        wanted += _WAYLAND
    if environ.get("DISPLAY"):
        wanted += _X11
    if platform == "darwin":
        wanted += _MACOS
    found = []
    for argv in wanted:
        path = shutil.which(argv[0], path=environ.get("PATH", os.defpath))
        if path is not None:
            found.append(Tool(argv[0], (path, *argv[1:])))
    return found


async def run_tool(tool: Tool, text: str, *, seconds: float = TOOL_SECONDS) -> bool:
    """Give ``text`` (UTF-8) to ``tool`` on its standard input; did it take it?

    Its output goes nowhere: ``xclip``, ``xsel`` and ``wl-copy`` leave a child behind to serve
    the selection, and a pipe that child kept open would never reach its end."""
    try:
        process = await asyncio.create_subprocess_exec(
            *tool.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return False
    try:
        await asyncio.wait_for(process.communicate(text.encode("utf-8")), seconds)
    except (TimeoutError, OSError):  # (a tool that exits before reading: a broken pipe)
        if process.returncode is None:
            process.kill()
            await process.wait()
        return False
    return process.returncode == 0


async def system_copy(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Put ``text`` on the clipboard with the first tool that takes it; that tool's name, or
    ``OSC52`` when none did (what the caller has sent already)."""
    for tool in tools(environ):
        if await run_tool(tool, text):
            return tool.name
    return OSC52


def via(method: str) -> str:
    """How the text was copied, to end a sentence: "via wl-copy"."""
    return VIA_OSC52 if method == OSC52 else f"via {method}"


def copy(
    app: App[Any],
    text: str,
    note: str,
    *,
    title: str = "",
    timeout: float | None = None,
    severity: SeverityLevel = "information",
) -> None:
    """Copy ``text`` (OSC 52 now, a clipboard tool in the background) and then notify
    ``note`` + how: ``copy(app, text, "Copied 42 lines")`` → "Copied 42 lines via wl-copy."."""
    app.copy_to_clipboard(text)  # OSC 52, and the ``clipboard`` Textual's widgets paste from

    async def copy_and_say() -> None:
        method = await system_copy(text)
        message = f"{note} {via(method)}."
        app.notify(message, title=title, timeout=timeout, severity=severity, markup=False)

    app.run_worker(copy_and_say(), group="clipboard", exit_on_error=False)
