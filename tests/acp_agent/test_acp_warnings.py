"""``agent-tui acp``'s start-up warnings (a broken settings file, a broken ``.mcp.json``) never
reach stdout, the protocol's channel: every byte there is JSON-RPC, and the client gets the
warnings as an agent message it can show."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path

from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.schema import ClientCapabilities, Implementation

from tests.acp_agent.helpers import DEADLINE, Editor, agent_env


async def test_broken_configuration_is_told_to_the_client_not_written_to_stdout(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / ".agent-tui").mkdir(parents=True)
    (project / ".agent-tui" / "settings.json").write_text("{ not json", encoding="utf-8")
    (project / ".mcp.json").write_text('{"mcpServers": [1, 2', encoding="utf-8")
    wire = tmp_path / "stdout.jsonl"
    # what the agent writes on stdout, kept byte for byte on its way to the client
    command = f"{shlex.quote(sys.executable)} -m agent_tui acp | tee {shlex.quote(str(wire))}"
    editor = Editor()
    async with spawn_agent_process(
        editor, "/bin/sh", "-c", command, env=agent_env(None), cwd=project
    ) as (conn, process):
        async with asyncio.timeout(DEADLINE):
            await conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(),
                client_info=Implementation(name="tests", version="0"),
            )
            session = await conn.new_session(cwd=str(project))
            await editor.wait_for(lambda: ".mcp.json" in editor.text())
            listed = await conn.list_sessions(cwd=str(project))  # it still answers
        assert [s.session_id for s in listed.sessions] == [session.session_id]
        if process.stdin is not None:
            process.stdin.close()
        await asyncio.wait_for(process.wait(), DEADLINE)
    told = editor.text()
    assert "settings.json" in told
    assert ".mcp.json" in told
    assert told.startswith("[agent-tui] ")
    lines = wire.read_bytes().splitlines()
    assert lines
    for line in lines:
        message = json.loads(line)  # nothing but JSON-RPC on stdout
        assert message["jsonrpc"] == "2.0"
