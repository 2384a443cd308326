"""Driving ``agent-tui acp`` as an editor does: a real subprocess, spoken to by the SDK's own
client side (``acp.spawn_agent_process``: not our code), against the scriptable
OpenAI-format server on 127.0.0.1 the headless tests use (``FakeServer``).

``Editor`` is the client: it records every ``session/update`` and answers each
``session/request_permission`` with what the test scripted (``answers``: an option id, or
``"cancelled"``), keeping the requests it got. Waits have deadlines, never fixed sleeps.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    Implementation,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
)

from tests.core.providers.conftest import FakeServer

DEADLINE = 60.0
SRC = str(Path(__file__).resolve().parents[2] / "src")


class Editor:
    """The client's side: updates recorded, permission requests answered as scripted."""

    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.asked: list[Any] = []
        """Each ``request_permission``'s request (tool_call, options)."""
        self.answers: list[str] = []
        """What to answer the next permission requests, in order (an option id, whatever it
        is, or ``cancelled``); none left: ``reject_once``."""
        self.hold: asyncio.Event | None = None
        """Set: permission requests wait for it before answering."""
        self.changed = asyncio.Event()

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.append({"tool_call": tool_call, "options": options})
        self._tell()
        if self.hold is not None:
            await self.hold.wait()
        answer = self.answers.pop(0) if self.answers else "reject_once"
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        self._tell()

    def _tell(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    async def wait_for(self, condition: Callable[[], bool], timeout: float = DEADLINE) -> None:
        async with asyncio.timeout(timeout):
            while not condition():
                await self.changed.wait()

    # -- what was seen -------------------------------------------------------------------------

    def text(self) -> str:
        return "".join(
            u.content.text
            for u in self.updates
            if getattr(u, "session_update", "") == "agent_message_chunk"
        )

    def call_updates(self, call_id: str) -> list[Any]:
        return [
            u
            for u in self.updates
            if isinstance(u, ToolCallStart | ToolCallProgress) and u.tool_call_id == call_id
        ]

    def statuses(self, call_id: str) -> list[str]:
        return [u.status for u in self.call_updates(call_id) if u.status is not None]

    def of_kind(self, kind: str) -> list[Any]:
        return [u for u in self.updates if getattr(u, "session_update", "") == kind]


def agent_env(server: FakeServer | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    if server is not None:
        env["AGENT_BASE_URL"] = f"{server.url}/v1"
        env["AGENT_API_KEY"] = "test-key"
    return env


@asynccontextmanager
async def running_agent(
    editor: Editor,
    cwd: Path,
    *args: str,
    server: FakeServer | None = None,
    capabilities: ClientCapabilities | None = None,
) -> AsyncIterator[ClientSideConnection]:
    """``agent-tui acp ARGS`` started in ``cwd``, initialized; the connection to it. With
    ``server``, the model is ``openai:test-model`` there."""
    model = ("--model", "openai:test-model") if server is not None else ()
    async with spawn_agent_process(
        editor,
        sys.executable,
        "-m",
        "agent_tui",
        "acp",
        *model,
        *args,
        env=agent_env(server),
        cwd=cwd,
        # the SDK waits 2 s for the agent to end after stdin closes, then terminates it; on
        # a loaded machine the end comes later, and a terminate() racing the exit raises
        # ProcessLookupError out of the SDK: wait as long as the tests' deadline instead
        transport_kwargs={"shutdown_timeout": DEADLINE},
    ) as (conn, process):
        async with asyncio.timeout(DEADLINE):
            await conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=capabilities or ClientCapabilities(),
                client_info=Implementation(name="tests", version="0"),
            )
        try:
            yield conn
        finally:
            process.stdin.close() if process.stdin is not None else None
