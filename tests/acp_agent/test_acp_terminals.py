"""``agent-tui acp`` with an editor that advertises ``terminal``: a ``run_shell`` call is shown
as the editor's terminal (``{"type": "terminal", "terminalId": …}`` in its updates), while
the command itself runs in agent-tui, judged and sandboxed as in the TUI — the editor is
never given the command line, only a display of its output, every line of it, ending with
the command's exit code. A call that is refused gets no terminal."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp.schema import (
    ClientCapabilities,
    CreateTerminalResponse,
    ReleaseTerminalResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    TerminalToolCallContent,
    WaitForTerminalExitResponse,
)

from tests.acp_agent.helpers import DEADLINE, Editor, running_agent
from tests.acp_agent.test_acp_session import say, text
from tests.core.providers.conftest import FakeServer
from tests.test_cli_text import reply_calls

TERMINAL = ClientCapabilities(terminal=True)


class TerminalEditor(Editor):
    """An editor that runs the terminals it is asked for, keeping what they print."""

    def __init__(self) -> None:
        super().__init__()
        self.created: list[dict[str, Any]] = []
        self.released: list[str] = []
        self._processes: dict[str, asyncio.subprocess.Process] = {}
        self._output: dict[str, bytearray] = {}
        self._readers: dict[str, asyncio.Task[None]] = {}

    async def create_terminal(
        self, session_id: str, command: str, args: list[str] | None = None, **kwargs: Any
    ) -> CreateTerminalResponse:
        terminal = f"term-{len(self.created)}"
        self.created.append({"command": command, "args": list(args or []), **kwargs})
        process = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=kwargs.get("cwd"),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        self._processes[terminal] = process
        self._output[terminal] = bytearray()

        async def read() -> None:
            assert process.stdout is not None
            while chunk := await process.stdout.read(4096):
                self._output[terminal] += chunk
                self._tell()

        self._readers[terminal] = asyncio.ensure_future(read())
        self._tell()
        return CreateTerminalResponse(terminal_id=terminal)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        code = await self._processes[terminal_id].wait()
        await self._readers[terminal_id]
        return WaitForTerminalExitResponse(exit_code=code)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        code = self._processes[terminal_id].returncode
        status = TerminalExitStatus(exit_code=code) if code is not None else None
        return TerminalOutputResponse(
            output=self.printed(terminal_id), truncated=False, exit_status=status
        )

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse:
        process = self._processes[terminal_id]
        if process.returncode is None:
            process.kill()
            await process.wait()
        self.released.append(terminal_id)
        self._tell()
        return ReleaseTerminalResponse()

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> None:
        self._processes[terminal_id].kill()

    def printed(self, terminal: str) -> str:
        return self._output[terminal].decode()

    def exit_code(self, terminal: str) -> int | None:
        return self._processes[terminal].returncode


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


def _terminals(editor: Editor, call: str) -> list[list[str]]:
    """The terminal ids each update of ``call`` carried, in order (updates with content)."""
    return [
        [c.terminal_id for c in u.content if isinstance(c, TerminalToolCallContent)]
        for u in editor.call_updates(call)
        if getattr(u, "content", None)
    ]


async def test_a_shell_call_is_shown_as_a_terminal_with_every_line_and_its_exit_code(
    server: FakeServer, tmp_path: Path
) -> None:
    command = "seq 1 300; echo marker-$((6 * 7)); exit 3"
    reply_calls(server, ("s1", "run_shell", {"command": command}))
    say(server, "Ran.")
    editor = TerminalEditor()
    async with running_agent(
        editor, tmp_path, "--allow", "run_shell", server=server, capabilities=TERMINAL
    ) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        reply = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("go")), DEADLINE
        )
    assert reply.stop_reason == "end_turn"
    [created] = editor.created
    # the editor runs only the display program, never the command
    assert created["command"] == sys.executable
    assert created["args"][1].endswith("follow.py")
    assert not any("seq" in arg or "marker" in arg for arg in created["args"])
    # every line (the progress events carry only the last few), then the exit code
    expected = "".join(f"{n}\n" for n in range(1, 301)) + "marker-42\n"
    assert editor.printed("term-0") == expected
    assert editor.exit_code("term-0") == 3
    assert editor.released == ["term-0"]
    # the call's updates show the terminal: when it starts, and with its result after it
    assert _terminals(editor, "s1") == [["term-0"], ["term-0"]]
    assert editor.statuses("s1")[-1] == "failed"  # exit 3
    final = editor.call_updates("s1")[-1]
    assert "[exit code 3]" in final.content[1].content.text
    # the model read the output as ever
    tool = [m for m in server.requests[-1].json["messages"] if m.get("role") == "tool"]
    assert "marker-42" in str(tool[0]["content"])


async def test_only_a_shell_call_that_runs_gets_a_terminal(
    server: FakeServer, tmp_path: Path
) -> None:
    canary = tmp_path / "canary"
    reply_calls(server, ("s1", "run_shell", {"command": f"touch {canary}"}))
    reply_calls(server, ("s2", "run_shell", {"command": "echo ran"}))
    say(server, "Done.")
    editor = TerminalEditor()
    editor.answers = ["reject_once", "allow_once"]
    async with running_agent(editor, tmp_path, server=server, capabilities=TERMINAL) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("go")), DEADLINE
        )
    assert len(editor.asked) == 2
    assert editor.statuses("s1")[-1] == "failed"
    assert _terminals(editor, "s1") == [[]]  # rejected: no terminal, nothing ran
    assert not canary.exists()
    assert len(editor.created) == 1
    assert _terminals(editor, "s2") == [["term-0"], ["term-0"]]
    assert editor.printed("term-0") == "ran\n"
    assert editor.exit_code("term-0") == 0


async def test_cancel_ends_the_command_and_its_terminal(server: FakeServer, tmp_path: Path) -> None:
    reply_calls(server, ("s1", "run_shell", {"command": "echo started; sleep 60"}))
    editor = TerminalEditor()
    async with running_agent(
        editor, tmp_path, "--allow", "run_shell", server=server, capabilities=TERMINAL
    ) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=text("go"))
        )
        await editor.wait_for(lambda: bool(editor.created))
        await editor.wait_for(lambda: "started" in editor.printed("term-0"))
        await conn.cancel(session_id=session.session_id)
        reply = await asyncio.wait_for(prompt, DEADLINE)
        await editor.wait_for(lambda: editor.released == ["term-0"])
    assert reply.stop_reason == "cancelled"
    assert editor.printed("term-0") == "started\n"
    assert editor.exit_code("term-0") == 130
    assert editor.statuses("s1")[-1] == "failed"
    assert _terminals(editor, "s1")[-1] == ["term-0"]
