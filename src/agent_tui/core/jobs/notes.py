"""What the model is told of the jobs that ended: one short line each, in a tag the system
prompt need not explain (``<background-jobs>``)."""

from __future__ import annotations

from agent_tui.core.jobs.info import JobInfo
from agent_tui.core.text.summary import first_line


def note_line(info: JobInfo) -> str:
    """``background job 2 `npm run dev` exited 1; 40 new lines: use shell_output``."""
    command = first_line(info.command, 60)
    said = info.status if info.killed_by != "user" else "was killed by the user"
    if info.unread_lines:
        what = f"{info.unread_lines} new line{'s' if info.unread_lines != 1 else ''}"
        read = f'{what}: use shell_output(id="{info.id}")'
    else:
        read = "no new output"
    return f"background job {info.id} `{command}` {said}; {read}"


def note_text(infos: list[JobInfo]) -> str:
    lines = "\n".join(note_line(info) for info in infos)
    return f"<background-jobs>\n{lines}\n</background-jobs>"
