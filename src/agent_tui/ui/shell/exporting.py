"""``/export [file] [--json]``: the conversation written for people (``core.export``).

The history is copied on the event loop (a turn may be running: what has happened so far is
exported), rendered and written in a thread; the chat then says where the file went, or why it
could not be written (nothing else changes). A file name with spaces is quoted.
"""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.export import ExportError, export_conversation, format_for, session_info
from agent_tui.ui.common.format import shorten_home

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.core.agent.agent import Agent
    from agent_tui.ui.chat.chat_view import ChatView

USAGE = "/export takes a file name and --json (or --markdown): /export [file] [--json]"


def parse(args: str) -> tuple[Path | None, str | None] | None:
    """The file and the format asked for, or None when ``args`` are not understood."""
    try:
        words = shlex.split(args)
    except ValueError:
        return None
    path: Path | None = None
    asked: str | None = None
    for word in words:
        if word in ("--json", "--markdown", "--md"):
            asked = word.removeprefix("--")
        elif word.startswith("-") or path is not None:
            return None
        else:
            path = Path(word)
    return path, asked


async def export_now(app: App[Any], agent: Agent, chat: ChatView, args: str) -> None:
    parsed = parse(args)
    if parsed is None:
        app.notify(USAGE, severity="warning")
        return
    path, asked = parsed
    history = list(agent.history())
    if not history:
        app.notify("Nothing to export yet: the conversation is empty.")
        return
    info = session_info(agent.session, cwd=agent.cwd, model=agent.provider.name)
    try:
        fmt = format_for(path, asked)
        written = await asyncio.to_thread(
            export_conversation, history, info, fmt=fmt, path=path, cwd=agent.cwd
        )
    except ExportError as exc:
        await chat.add_error("/export", f"Nothing was exported: {exc}.")
        return
    what = "JSON" if fmt == "json" else "Markdown"
    await chat.add_notice(f"Exported the conversation ({what}) to {shorten_home(written)}", "info")
