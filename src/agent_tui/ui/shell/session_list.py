"""The saved sessions of a directory, for the "resume a session" picker: id, when, which model,
and the first prompt as a title — read from the head of each session file only."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.text.utf8 import clean_text
from agent_tui.ui.common.format import one_line

HEAD_LINES = 64
"""Lines read per file looking for the first user message."""


@dataclass(frozen=True)
class SessionSummary:
    id: str
    path: Path
    created: str
    model: str
    title: str


def _summary(path: Path, cwd: str) -> SessionSummary | None:
    meta: dict[str, str] = {}
    title = ""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the open
            return None
        with path.open(encoding="utf-8", errors="replace") as fh:
            for number, line in enumerate(fh):
                if number >= HEAD_LINES or title:
                    break
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if not isinstance(entry, dict):
                    continue
                if entry.get("type") == "meta":
                    meta = entry
                    if os.path.realpath(str(meta.get("cwd", ""))) != cwd:
                        return None
                elif entry.get("type") == "message":
                    message = entry.get("message") or {}
                    if message.get("role") == "user":
                        title = one_line(
                            clean_text(str(message.get("typed") or message.get("content", ""))), 60
                        )
    except OSError:
        return None
    if not meta:
        return None
    return SessionSummary(
        id=str(meta.get("id", path.stem.rsplit("-", 1)[-1])),
        path=path,
        created=str(meta.get("created", ""))[:16].replace("T", " "),
        model=clean_text(str(meta.get("model", ""))),
        title=title or "(no messages)",
    )


def sessions_of(store: SessionStore, cwd: Path, limit: int = 50) -> list[SessionSummary]:
    """The newest ``limit`` sessions started in ``cwd``, newest first."""
    wanted = os.path.realpath(cwd)
    found: list[SessionSummary] = []
    for path in store.all():
        summary = _summary(path, wanted)
        if summary is not None:
            found.append(summary)
            if len(found) >= limit:
                break
    return found
