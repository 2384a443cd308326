"""A call's input in one line: the command of a ``run_shell``, the path or pattern of others.

The lane's cards show it next to the tool's name, and a spill keeps it (``SpillStore.write``)
so the spill browser can say what the call was long after the transcript that made it is gone.
Plain text helpers: nothing here knows about Textual, the spill store or the transcript
(``calls.call_summary`` applies it to a ``ToolCall``; the UI's first frame imports this module,
so no pydantic models here).
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.text.summary import one_line, plural

# The input keys that best describe a call, most telling first.
_SUMMARY_KEYS = ("path", "file_path", "command", "query", "url", "glob", "name", "skill")


def summarize_input(input: dict[str, Any] | None, raw_arguments: str = "") -> str:
    """A one-line summary of a call's input: its path, command or pattern when it has one."""
    if input is None:
        return one_line(raw_arguments or "(invalid arguments)")
    pattern = input.get("pattern")
    if isinstance(pattern, str) and pattern:
        where = input.get("path")
        return one_line(f"{pattern} in {where}" if isinstance(where, str) and where else pattern)
    steps = input.get("plan", input.get("todos"))  # todos: Claude Code's TodoWrite shape
    if isinstance(steps, list):  # update_plan
        return plural(len(steps), "step")
    if isinstance(steps, str) and steps.strip():  # exit_plan_mode: the plan's first line
        first = next(line for line in steps.splitlines() if line.strip())
        return one_line(first.strip().lstrip("#").strip() or first)
    described, prompt = input.get("description"), input.get("prompt")
    if isinstance(described, str) and described and isinstance(prompt, str):  # task
        agent = input.get("agent")
        return one_line(f"{agent}: {described}" if isinstance(agent, str) and agent else described)
    job = input.get("id")
    if set(input) <= {"id", "filter"} and isinstance(job, str | int) and job != "":
        filtered = input.get("filter")  # shell_output, shell_kill: the background job
        return f"job {job}" + (f" · /{one_line(filtered, 40)}/" if filtered else "")
    for key in _SUMMARY_KEYS:
        value = input.get(key)
        if isinstance(value, str) and value:
            return one_line(value)
    if not input:
        return ""
    return one_line(json.dumps(input, ensure_ascii=False, separators=(", ", ": ")))
