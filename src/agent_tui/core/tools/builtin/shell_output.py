"""shell_output: the new output of one of the session's background jobs, and its state.

Returns what the job wrote since the last read (complete lines while it runs), optionally only
the lines a regular expression matches, then a state line. It goes through the output budget
like any result: a large read is spilled, with the pointer. The job's whole output stays in
its own file (named in the result) whatever is read or filtered. Read-only, never asks: it
only reads jobs this session started. The filter is grep's: compiled by ``regex`` with the
same checks, matched off the event loop under the same time limit (``MATCH_SECONDS``), so a
pattern that backtracks catastrophically ends the call with an error, the output left unread.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from pydantic import Field

from agent_tui.core.tools.base import Tool, ToolContext, ToolMeta, ToolOutput
from agent_tui.core.tools.builtin.grep_tool import MATCH_SECONDS, Pattern, compile_pattern
from agent_tui.core.tools.builtin.shell_jobs import JobInput, job_of, state_line
from agent_tui.core.tools.errors import ToolFailure

DESCRIPTION = """\
New output of a background job (run_shell with run_in_background) since your last read, and \
whether it still runs. `filter`: a regex; only matching lines are returned (the rest is still \
in its log file)."""


class ShellOutputInput(JobInput):
    filter: str | None = Field(default=None, description="Regex: return only matching lines.")


def _keeper(pattern: Pattern) -> Callable[[str], bool]:
    """Whether a line matches, all lines together within ``MATCH_SECONDS`` (TimeoutError
    past it)."""
    deadline = time.monotonic() + MATCH_SECONDS

    def keep(line: str) -> bool:
        left = deadline - time.monotonic()
        if left <= 0:  # regex takes a timeout <= 0 as "no limit"
            raise TimeoutError
        return pattern.searcher.search(line, concurrent=True, timeout=left) is not None

    return keep


async def _call(inp: ShellOutputInput, ctx: ToolContext) -> ToolOutput:
    keep = None
    if inp.filter:
        keep = _keeper(await asyncio.to_thread(compile_pattern, inp.filter, False))
    job = job_of(ctx, inp.id).get(inp.id)
    try:
        text, left = await job.read_new(keep)
    except TimeoutError:
        raise ToolFailure(
            "regex_timeout",
            f"The filter {inp.filter!r} took more than {MATCH_SECONDS:g} s to match the new "
            "output (it backtracks catastrophically); nothing was read.",
            "Use a simpler pattern (no nested repeats such as `(a+)+`), or read without a filter.",
        ) from None
    info = job.info()
    footer = state_line(info)
    if left:
        footer += f"\n[{left:,} more bytes not read yet: call shell_output again]"
    if not info.running:
        footer += f"\n[whole output: {info.log}]"
    body = text.removesuffix("\n") or ("(no matching lines)" if keep else "(no new output)")
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
