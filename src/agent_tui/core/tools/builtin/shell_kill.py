"""shell_kill: stop one of the session's background jobs (its whole process group: SIGTERM,
then SIGKILL after a grace). Never asks: it stops only what this session started, which was
allowed when it started. A job already ended is left as it is."""

from __future__ import annotations

from agent_tui.core.tools.base import Tool, ToolContext, ToolMeta, ToolOutput
from agent_tui.core.tools.builtin.shell_jobs import JobInput, job_of, state_line

DESCRIPTION = """\
Stop a background job (run_shell with run_in_background) and everything it started."""


async def _call(inp: JobInput, ctx: ToolContext) -> ToolOutput:
    jobs = job_of(ctx, inp.id)
    was = jobs.get(inp.id).info()
    info = await jobs.kill(inp.id, by="model")
    said = "was killed" if was.running else "had already ended"
    text = f"Background job {info.id} {said}.\n{state_line(info)}"
    if info.unread_lines:
        text += f'\n[{info.unread_lines} lines not read yet: shell_output(id="{info.id}")]'
    return ToolOutput(
        text,
        data={"job_id": info.id, "state": info.state.value, "exit_code": info.exit_code},
        summary=info.status,
    )


TOOL = Tool(
    name="shell_kill",
    description=DESCRIPTION,
    input_model=JobInput,
    call=_call,
    meta=ToolMeta(read_only=True, concurrency_safe=False),
)
