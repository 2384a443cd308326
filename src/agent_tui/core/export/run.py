"""One export, start to end: the conversation's messages rendered in a format and written
(``export_conversation``), as ``/export`` and ``agent-tui export`` do. Blocking: call it from
a worker thread."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.export.entries import SessionInfo, export_doc
from agent_tui.core.export.render import FORMATS, Format, render
from agent_tui.core.export.target import ExportError, default_name, write_export
from agent_tui.core.transcript import Message

SUFFIXES: dict[Format, str] = {"markdown": ".md", "json": ".json"}


def session_info(session: SessionLog | None, *, cwd: Path, model: str) -> SessionInfo:
    """What the export says of the session (``session``: None when it is not saved)."""
    if session is None:
        return SessionInfo(cwd=str(cwd), model=model)
    return SessionInfo(
        id=session.id,
        model=model or session.model,
        cwd=session.cwd or str(cwd),
        created=session.created,
        file=str(session.path),
    )


def format_for(path: Path | None, asked: str | None) -> Format:
    """The format ``asked`` for (``markdown``, ``md``, ``json``), else the one ``path``'s
    suffix names (``.json``), else Markdown."""
    if asked is not None:
        fmt = FORMATS.get(asked.lower())
        if fmt is None:
            raise ExportError(f"unknown export format {asked!r}: markdown or json")
        return fmt
    if path is not None and path.suffix.lower() == ".json":
        return "json"
    return "markdown"


def export_conversation(
    history: list[Message],
    info: SessionInfo,
    *,
    fmt: Format,
    path: Path | None,
    cwd: Path,
    now: datetime | None = None,
) -> Path:
    """Write the export of ``history`` to ``path`` (None: a new file in ``cwd``); the path
    written. Raises ``ExportError``."""
    moment = now or datetime.now().astimezone()
    doc = export_doc(history, info, moment.isoformat(timespec="seconds"))
    text = render(doc, fmt)
    name = default_name(info.id, SUFFIXES[fmt], moment)
    return write_export(text, path, cwd=cwd, name=name)
