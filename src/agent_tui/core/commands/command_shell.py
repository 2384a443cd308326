"""Running a custom command's shell lines (``shell_lines``) as the session runs the model's.

``CommandShell`` runs each command as one ``run_shell`` call through a ``ToolExecutor`` built
from the session's (the same tool registry, permission policy, hooks, sandbox, shell settings
and spill store): the permission pipeline judges it exactly as it would judge the model's
call, ``PreToolUse``/``PostToolUse`` hooks run, and the command runs in the sandbox. An ask
goes to ``asker`` (the TUI's prompt); with none (headless) it is refused with the reason, as
a model's call would be. ``grant`` (the command's ``allowed-tools``: ``grants.CommandRun``)
is allowed for these calls only, as for the model's calls of the turn the command starts. A
deny, a refusal, an error or an interrupt puts a note in the prompt instead of output, and
says it to the user: never a silent skip.

What a shell line changes is not kept for ``/rewind`` (it runs before the turn, outside its
checkpoint); the call is not in the transcript, only its output, inside the prompt.
"""

from __future__ import annotations

import asyncio
import json
import logging
from itertools import count

from agent_tui.core.commands.shell_lines import Ran, not_run
from agent_tui.core.events import ToolErrorEvent, ToolRejected, ToolResult
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import Asker, Rule
from agent_tui.core.transcript import Message, ToolCall

log = logging.getLogger(__name__)
TOOL = "run_shell"
SUCCESS = "[exit code 0]"
_ids = count(1)


class CommandShell:
    """A ``ShellRun`` for ``shell_lines.run_shell_lines``, under the session's rules."""

    def __init__(
        self, session: ToolExecutor, asker: Asker | None, grant: tuple[Rule, ...] = ()
    ) -> None:
        self.session = session
        self.asker = asker
        self.grant = grant
        self.interrupted = asyncio.Event()
        """Set to stop: the running command and any ask end as interrupted."""

    def _executor(self) -> ToolExecutor:
        s = self.session
        return ToolExecutor(
            s.registry,
            s.cwd,
            s.policy,
            self.asker,
            s.file_state,
            budget=s.budget,
            store=s.store,
            sandbox=s.sandbox,
            shell=s.shell,
            hooks=s.hooks,
        )

    async def __call__(self, command: str) -> Ran:
        call = ToolCall(
            id=f"command-shell-{next(_ids)}",
            name=TOOL,
            arguments=json.dumps({"command": command}),
        )
        out: list[Message] = []
        rejected: ToolRejected | None = None
        error: ToolErrorEvent | None = None
        result: ToolResult | None = None
        try:
            calls = self._executor().execute([call], out, self.interrupted, grant=self.grant)
            async for event in calls:
                if isinstance(event, ToolRejected):
                    rejected = event
                elif isinstance(event, ToolErrorEvent):
                    error = event
                elif isinstance(event, ToolResult):
                    result = event
        except Exception as exc:  # nothing of a broken run reaches the prompt as output
            log.exception("a command's shell line failed")
            why = f"it failed ({type(exc).__name__}: {exc})"
            return Ran(not_run(command, why), why)
        if rejected is not None:
            why = f"refused: {rejected.reason}"
            if rejected.feedback:
                why += f" (feedback: {rejected.feedback})"
            return Ran(not_run(command, why), why)
        if error is not None:
            why = f"it failed: {error.message}"
            return Ran(not_run(command, why), why)
        if result is None:
            text = out[0].content if out else ""
            return Ran(not_run(command, text or "no result"), text or "no result")
        if result.is_error:  # ran and failed (a non-zero exit): its output still goes in
            return Ran(result.content.strip("\n"), "it ran and failed (its output is inlined)")
        return Ran(_output(result.content))


def _output(content: str) -> str:
    """What a command that succeeded put in the prompt: its output, without the ``[exit code
    0]`` footer ``run_shell`` gives the model (any other footer line stays)."""
    text = content.rstrip("\n")
    head, _, last = text.rpartition("\n")
    return head.rstrip("\n") if last == SUCCESS else text
