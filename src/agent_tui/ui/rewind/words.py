"""The rewind picker's wording: times, file counts, what happens to each file. No Textual."""

from __future__ import annotations

from datetime import datetime

from agent_tui.core.checkpoints.plan import FilePreview, NotRestorable
from agent_tui.core.conversation.rewind import RewindPreview, TurnSummary
from agent_tui.ui.common.format import plural

ACTION_WORDS = {
    "restore": "restore",
    "delete": "delete · created since",
    "recreate": "recreate · deleted since",
    "unavailable": "cannot restore · too big to keep",
}
CHANGE_WORDS = {"created": "created", "modified": "modified", "deleted": "deleted"}
WHY_WORDS = {
    "ignored": "ignored (.gitignore)",
    "big": "too big to keep",
    "store": "could not be kept: writing to the data directory failed (a full disk?)",
    "budget": "beyond what the checkpoint keeps of a workspace",
    "unread": "could not be read in time",
    "gitobject": "its old content is no longer in git",
    "git": "git's refs/index, never restored",
    "outside": "outside the workspace (sandbox.allow_write), never restored",
}
"""Why a change a command made was not kept (``NotRestorable.why``; empty in sessions from
before commands' changes were kept)."""


def when(at: str | None, today: datetime | None = None) -> str:
    """``14:05`` today, ``Mar 02 14:05`` before; in local time. Empty when not known."""
    if not at:
        return ""
    try:
        moment = datetime.fromisoformat(at).astimezone()
    except ValueError:
        return ""
    now = today or datetime.now().astimezone()
    if moment.date() == now.date():
        return moment.strftime("%H:%M")
    return moment.strftime("%b %d %H:%M")


def turn_files(turn: TurnSummary) -> str:
    """``2 files · 1 not restorable``; ``—`` when nothing changed; ``no checkpoint``."""
    if not turn.checkpointed:
        return "no checkpoint"
    parts = []
    if turn.files:
        parts.append(plural(len(turn.files), "file"))
    if turn.outside:
        parts.append(f"{turn.outside} not restorable")
    return " · ".join(parts) or "—"


def counts(preview: FilePreview) -> str:
    """``+3 −12``, ``binary``, ``large``, or nothing."""
    if preview.binary:
        return "binary"
    if not preview.sized:
        return ""
    parts = [f"+{preview.added}"] if preview.added else []
    parts += [f"−{preview.removed}"] if preview.removed else []
    return " ".join(parts) or "±0"


def file_action(preview: FilePreview) -> str:
    """``restore``; ``restore · mode 755 → 644`` when the permission bits go back too."""
    words = ACTION_WORDS.get(preview.action, preview.action)
    if preview.mode is not None:
        now, then = preview.mode
        words += f" · mode {now:o} → {then:o}"
    return words


def outside_line(change: NotRestorable, heading: str) -> str:
    """``created · ignored (.gitignore), not kept``; ``created by mcp__fs__write`` when the
    heading names another tool."""
    kind = CHANGE_WORDS.get(change.change, change.change)
    said = kind if change.tool == heading else f"{kind} by {change.tool}"
    why = WHY_WORDS.get(change.why, change.why)
    return f"{said} · {why}" if why else said


def code_summary(preview: RewindPreview) -> str:
    """The head of the preview's code part."""
    if not preview.turn.checkpointed:
        return "Code: no checkpoint for this turn; only the conversation can be rewound."
    restorable = len(preview.restorable)
    if not restorable and not preview.outside.changes:
        return "Code: no file changed since this turn; nothing to restore."
    text = f"Code: {plural(restorable, 'file')} to restore"
    if preview.unchanged:
        text += f" ({preview.unchanged} already as before)"
    return text


def conversation_summary(preview: RewindPreview) -> str:
    if preview.turn.kind == "rewind":
        return "Conversation: stays as it is (undoing a rewind restores files only)."
    dropped = preview.messages_dropped
    return f"Conversation: {plural(dropped, 'message')} taken out (the session file keeps them)."
