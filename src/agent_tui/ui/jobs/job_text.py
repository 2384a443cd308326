"""How a job reads on a card and in the list: built from its typed fields."""

from __future__ import annotations

from textual.content import Content

from agent_tui.core.events import EndedJob
from agent_tui.core.jobs import JobInfo
from agent_tui.core.jobs.info import elapsed_text
from agent_tui.core.text.summary import one_line

TAIL_ROWS = 2


def state_style(info: JobInfo) -> str:
    if info.running:
        return "$text-accent"
    if info.exit_code == 0 and info.killed_by is None:
        return "$text-success"
    return "$text-error" if info.killed_by is None else "$text-warning"


def head_line(info: JobInfo, now: float | None = None, width: int = 60) -> Content:
    """``⚙ job 1 running · 12s  npm run dev``."""
    mark = "⚙" if info.running else ("✓" if info.exit_code == 0 else "✗")
    return Content.assemble(
        Content.styled(f"{mark} job {info.id}", "bold"),
        Content(" "),
        Content.styled(info.status, state_style(info)),
        Content(" · "),
        Content.styled(elapsed_text(info.elapsed(now)), "$text-muted"),
        Content("  "),
        Content(one_line(info.command, width)),
    )


def card_content(info: JobInfo, now: float | None = None) -> Content:
    """The head line, then the last lines of output (dim)."""
    rows = [head_line(info, now)]
    rows += [Content.styled(one_line(line, 200), "dim") for line in info.tail[-TAIL_ROWS:]]
    if not info.tail:
        rows.append(Content.styled("(no output yet)" if info.running else "(no output)", "dim"))
    return Content("\n").join(rows)


def jobs_ended_line(job: EndedJob) -> str:
    """``background job 2 exited 1 · npm run dev · 40 new lines (the model is told)``."""
    if job.state == "killed":
        said = "killed by you" if job.killed_by == "user" else "killed"
    else:
        said = f"exited {job.exit_code}"
    new = f"{job.new_lines} new line{'s' if job.new_lines != 1 else ''}"
    command = one_line(job.command, 60)
    return f"⚙ background job {job.id} {said} · {command} · {new} (told to the model)"
