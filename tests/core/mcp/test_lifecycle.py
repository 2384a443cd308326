"""Configuration changes at run time, and no server process outliving the app."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import DEADLINE, ROOT, fixture_entry, write_config
from tests.core.mcp.servers import fixture_pids
from tests.core.tools.conftest import wait_until
from tests.trusting import trust_everything


async def _pid(manager: McpManager, server: str, cwd: Path) -> int:
    result = await manager.call(server, "pid", {}, ToolContext(cwd=cwd))
    return int(result.content[0].text)


async def test_configuration_changes_are_applied_live(tmp_path: Path) -> None:
    mark = f"live-{uuid.uuid4().hex[:8]}"
    config = write_config(tmp_path / ".mcp.json", {"a": fixture_entry(name=mark)})
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    changes: list[str | None] = []
    manager.add_listener(changes.append)
    try:
        await manager.start(watch=True)
        await manager.wait_ready()
        await wait_until(manager.watching.is_set, DEADLINE, "the watch to start")
        first_a = await _pid(manager, "a", tmp_path)

        # Added: connected without a restart; "a" is left alone.
        write_config(config, {"a": fixture_entry(name=mark), "b": fixture_entry(name=mark)})
        assert await manager.wait_for(lambda: "mcp__b__echo" in manager.registry, DEADLINE)
        assert await _pid(manager, "a", tmp_path) == first_a
        assert None in changes

        # Changed: restarted with the new settings.
        write_config(
            config,
            {
                "a": fixture_entry(name=mark, timeout=7, max_total_timeout=30),
                "b": fixture_entry(name=mark),
            },
        )
        assert await manager.wait_for(
            lambda: (
                manager.state("a").status == "connected"
                and manager.config.servers["a"].timeout == 7
            ),
            DEADLINE,
        )
        assert await _pid(manager, "a", tmp_path) != first_a
        tool = manager.registry.get("mcp__a__echo")
        assert tool is not None
        # The registry's deadline is a backstop past the start-up and the call's hard limit.
        assert tool.timeout == 15 + 30 + 10

        # A typo mid-edit: reported, and the running servers keep running.
        config.write_text('{"mcpServers": {"a": ')
        assert await manager.wait_for(lambda: bool(manager.problems), DEADLINE)
        assert "not valid JSON" in str(manager.problems[0])
        assert manager.state("b").status == "connected"

        # Removed: its tools leave the registry and its process exits.
        b_pid = await _pid(manager, "b", tmp_path)
        write_config(config, {"a": fixture_entry(name=mark, timeout=7)})
        assert await manager.wait_for(lambda: "mcp__b__echo" not in manager.registry, DEADLINE)
        assert "b" not in [s.name for s in manager.states()]
        await wait_until(lambda: b_pid not in fixture_pids(mark), DEADLINE, "b to exit")
    finally:
        await manager.aclose()
    await wait_until(lambda: not fixture_pids(mark), DEADLINE, "every server to exit")


_APP = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from agent_tui.core.mcp.client.manager import McpManager
    from agent_tui.core.tools.builtin import default_registry

    async def main() -> None:
        cwd = Path(sys.argv[1])
        manager = McpManager(cwd, default_registry(), paths=[cwd / ".mcp.json"])
        await manager.start()
        await manager.wait_for(lambda: manager.state("ok").status == "connected", 30)
        print("ready", flush=True)
        if sys.argv[2] == "crash":
            raise RuntimeError("the app crashed")
        await asyncio.Event().wait()

    asyncio.run(main())
    """
)


def _start_app(tmp_path: Path, mark: str, how: str) -> subprocess.Popen[str]:
    write_config(
        tmp_path / ".mcp.json",
        {
            # started directly: what the app's end does to its servers' own processes
            "ok": fixture_entry(name=mark, direct=True),
            "stuck": fixture_entry("hang-at-start", name=mark, startup_timeout=60),
        },
    )
    trust_everything(tmp_path)  # the app is another process: the test-wide trust is not there
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    app = subprocess.Popen(
        [sys.executable, "-c", _APP, str(tmp_path), how],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert app.stdout is not None
    line = app.stdout.readline()
    assert line.strip() == "ready", app.stderr.read() if app.stderr else line
    return app


async def test_an_app_crash_takes_its_servers_along(tmp_path: Path) -> None:
    mark = f"crash-{uuid.uuid4().hex[:8]}"
    app = _start_app(tmp_path, mark, "crash")
    try:
        _, err = app.communicate(timeout=DEADLINE * 2)
        assert "the app crashed" in err
        assert app.returncode != 0
        # Both the connected server and the one still starting (which never reads its stdin).
        await wait_until(lambda: not fixture_pids(mark), DEADLINE, "servers to exit")
    finally:
        app.kill()
        app.wait()


async def test_servers_exit_when_the_app_is_killed(tmp_path: Path) -> None:
    mark = f"kill-{uuid.uuid4().hex[:8]}"
    app = _start_app(tmp_path, mark, "wait")
    try:
        assert len(fixture_pids(mark)) == 2
        os.kill(app.pid, signal.SIGKILL)
        app.wait()
        # A server that reads its stdin sees it close and exits; the stuck one (it never reads
        # stdin) is beyond reach after a SIGKILL, so the test ends it.
        await wait_until(lambda: len(fixture_pids(mark)) == 1, DEADLINE, "the live one to exit")
    finally:
        for pid in fixture_pids(mark):
            os.kill(pid, signal.SIGKILL)


def test_importing_the_cli_does_not_import_the_sdk() -> None:
    code = (
        "import sys, agent_tui.cli.main, agent_tui.core.mcp, agent_tui.core.mcp.client.manager\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('mcp', 'mcp_types', 'jsonschema', 'uvicorn', 'starlette'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import json\n" + code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert json.loads(done.stdout) == []
