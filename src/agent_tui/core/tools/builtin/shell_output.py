"""shell_output: the new output of one of the session's background jobs, and its state.

Returns what the job wrote since the last read (complete lines while it runs), optionally only
the lines a regular expression matches, then a state line. It goes through the output budget
like any result: a large read is spilled, with the pointer. The job's whole output stays in
its own file (named in the result) whatever is read or filtered. Read-only, never asks: it
only reads jobs this session started.
"""

from __future__ import annotations

import re

from pydantic import Field

from agent_tui.core.tools.base import Tool, ToolContext, ToolMeta, ToolOutput
from agent_tui.core.tools.builtin.shell_jobs import JobInput, job_of, state_line
from agent_tui.core.tools.errors import ToolFailure

DESCRIPTION = """\
New output of a background job (run_shell with run_in_background) since your last read, and \
whether it still runs. `filter`: a regex; only matching lines are returned (the rest is still \
in its log file)."""


class ShellOutputInput(JobInput):
    filter: str | None = Field(default=None, description="Regex: return only matching lines.")


async def _call(inp: ShellOutputInput, ctx: ToolContext) -> ToolOutput:
    pattern = None
    if inp.filter:
        try:
            pattern = re.compile(inp.filter)
        except re.error as exc:
            raise ToolFailure(
                "bad_filter", f"The filter is not a valid regular expression: {exc}."
            ) from None
    job = job_of(ctx, inp.id).get(inp.id)
    text, left = await job.read_new(pattern)
    info = job.info()
    footer = state_line(info)
    if left:
        footer += f"\n[{left:,} more bytes not read yet: call shell_output again]"
    if not info.running:
        footer += f"\n[whole output: {info.log}]"
    body = text.removesuffix("\n") or ("(no matching lines)" if pattern else "(no new output)")
    return ToolOutput(
        f"{body}\n{footer}",
        footer=footer,
        data={"job_id": info.id, "state": info.state.value, "exit_code": info.exit_code},
        summary=info.status,
    )


TOOL = Tool(
    name="shell_output",
    description=DESCRIPTION,
    input_model=ShellOutputInput,
    call=_call,
    meta=ToolMeta(read_only=True, concurrency_safe=True),
)
