"""Opening the rewind picker over the app, and the notices that tell what a rewind did."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.rewind import RewindReport
from agent_tui.ui.common.format import plural
from agent_tui.ui.rewind.picker import RewindChoice, RewindPicker


def open_picker(app: App[Any], agent: Agent, chosen: Callable[[RewindChoice | None], None]) -> None:
    """The picker over ``agent``'s turns (an undoable code rewind first), or a notice when
    there is nothing to go back to."""
    turns = agent.turns()
    undo = agent.undoable_rewind()
    listed = ([undo] if undo is not None else []) + turns
    if not listed:
        app.notify("Nothing to rewind yet: no prompt was sent in this conversation.")
        return
    app.push_screen(RewindPicker(listed, agent.preview_rewind), callback=chosen)


def report_notice(report: RewindReport) -> str:
    """One line: what the rewind did."""
    turn = report.turn
    what = "the last code rewind undone" if turn.kind == "rewind" else f"before turn {turn.number}"
    parts = [f"Rewound to {what}" if turn.kind == "turn" else what.capitalize()]
    files = report.files
    if files is not None:
        done = []
        if files.restored:
            done.append(f"{plural(len(files.restored), 'file')} restored")
        if files.recreated:
            done.append(f"{len(files.recreated)} recreated")
        if files.deleted:
            done.append(f"{len(files.deleted)} deleted")
        parts.append(", ".join(done) if done else "no file to restore")
    if report.what != "code":
        parts.append(
            f"conversation: {plural(report.messages_dropped, 'message')} taken out "
            "(the prompt is back in the box to edit)"
        )
    return " · ".join(parts)


def report_warnings(report: RewindReport) -> list[str]:
    """What the rewind did not do, and why."""
    found: list[str] = []
    files = report.files
    if files is not None:
        if files.kept_changed:
            found.append(
                "Kept as they are (changed since by someone else; o in the picker overwrites "
                f"them): {', '.join(files.kept_changed)}"
            )
        if files.kept_git:
            found.append(
                "Kept as they are (inside .git, git's own data; o in the picker overwrites "
                f"them): {', '.join(files.kept_git)}"
            )
        if files.unavailable:
            found.append(f"Not kept, so not restored (too big): {', '.join(files.unavailable)}")
        for path, why in files.failed:
            found.append(f"Could not restore {path}: {why}")
        outside = report.outside
        if outside.changes or outside.more:
            names = ", ".join(n.shown for n in outside.changes[:5])
            more = len(outside.changes) + outside.more - min(5, len(outside.changes))
            found.append(
                "Not restorable (changed by run_shell where the checkpoint keeps nothing: "
                "ignored, or too big): "
                + names
                + (f" and {plural(more, 'more file')}" if more else "")
            )
    return found
