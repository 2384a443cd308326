"""The MCP configuration watch (``core.mcp.client.watch``): a polled look at the files, so a
file created (even in a directory that does not exist yet), rewritten, replaced or removed
calls back once it settled, and nothing else does."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agent_tui.core.mcp.client.watch import ConfigWatch
from tests.core.mcp.conftest import DEADLINE
from tests.core.tools.conftest import wait_until


async def test_changes_to_the_files_call_back(tmp_path: Path) -> None:
    user = tmp_path / "config" / "agent-tui" / "mcp.json"  # its directory is not there yet
    project = tmp_path / "project" / ".mcp.json"
    project.parent.mkdir()
    calls: list[int] = []

    async def changed() -> None:
        calls.append(len(calls) + 1)

    watch = ConfigWatch(lambda: [user, project], changed)
    watch.start()
    try:
        await wait_until(watch.ready.is_set, DEADLINE, "the watch to start")
        project.write_text('{"mcpServers": {}}')
        await wait_until(lambda: len(calls) == 1, DEADLINE, "the project file created")

        user.parent.mkdir(parents=True)
        user.write_text('{"mcpServers": {}}')
        await wait_until(lambda: len(calls) == 2, DEADLINE, "the user's file created")

        replacement = project.with_name(".mcp.json.new")  # an editor's save: a rename over it
        replacement.write_text('{"mcpServers": {"a": {"command": "true"}}}')
        os.replace(replacement, project)
        await wait_until(lambda: len(calls) == 3, DEADLINE, "the project file replaced")

        (project.parent / "other.json").write_text("{}")  # not a configuration file
        user.unlink()
        await wait_until(lambda: len(calls) == 4, DEADLINE, "the user's file removed")
    finally:
        await watch.aclose()
    assert calls == [1, 2, 3, 4]  # one call a change, none for the other file


async def test_closing_stops_the_watch(tmp_path: Path) -> None:
    config = tmp_path / ".mcp.json"
    calls: list[None] = []

    async def changed() -> None:
        calls.append(None)

    watch = ConfigWatch(lambda: [config], changed)
    watch.start()
    await wait_until(watch.ready.is_set, DEADLINE, "the watch to start")
    await watch.aclose()
    config.write_text("{}")
    await asyncio.sleep(0)  # nothing runs any more to notice it
    assert watch._task is None
    assert calls == []
