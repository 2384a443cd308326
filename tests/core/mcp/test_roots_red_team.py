"""Red team: roots must not widen what a filesystem server may touch, whatever a repository
ships. Run for real against the npm server-filesystem with canary files:

- a server the user limited to ``shared/`` by its arguments gets no roots (server-filesystem
  would replace its directories with them: the whole workspace), so a canary beside
  ``shared/`` stays unreadable;
- a project settings file naming a root outside the workspace (``~``, ``../secrets``) is left
  out with a problem, so a canary outside stays unreadable; the user's own settings may."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.config.spec import ServerSpec, offers_roots
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import DEADLINE, write_config

CANARY = "CANARY-roots-7d1e"


def _lab(tmp_path: Path) -> tuple[Path, Path]:
    work = tmp_path / "work"
    (work / "shared").mkdir(parents=True)
    (work / "shared" / "ok.txt").write_text("shared\n")
    (work / "private.txt").write_text(f"{CANARY} beside shared\n")
    outside = tmp_path / "secrets"
    outside.mkdir()
    (outside / "key.txt").write_text(f"{CANARY} outside\n")
    return work, outside


async def _manager(work: Path, servers: dict[str, object], settings: list[Path]) -> McpManager:
    config = write_config(work / ".mcp.json", servers)
    manager = McpManager(work, default_registry(), paths=[config], settings_paths=settings)
    await manager.start()
    await manager.wait_ready()
    return manager


async def _read(manager: McpManager, path: Path, cwd: Path, server: str = "files") -> str:
    done = await manager.registry.dispatch(
        f"mcp__{server}__read_text_file", json.dumps({"path": str(path)}), ToolContext(cwd=cwd)
    )
    return done.output.content if done.output is not None else f"refused: {done.error}"


async def _until_readable(manager: McpManager, path: Path, cwd: Path, server: str = "files") -> str:
    """Read ``path`` until the server allows it: server-filesystem asks for the roots a
    moment after it started, so a refusal before that proves nothing."""
    end = asyncio.get_running_loop().time() + DEADLINE
    while (text := await _read(manager, path, cwd, server)).startswith("refused"):
        assert asyncio.get_running_loop().time() < end, f"{path} never became readable: {text}"
        await manager.wait_for(lambda: False, 0.2)
    return text


@pytest.fixture
async def closing() -> AsyncIterator[list[McpManager]]:
    managers: list[McpManager] = []
    yield managers
    for manager in managers:
        await manager.aclose()


async def test_a_server_limited_by_its_arguments_gets_no_roots(
    tmp_path: Path, npm_bin: Path, closing: list[McpManager]
) -> None:
    work, _ = _lab(tmp_path)
    settings = tmp_path / "settings.json"
    settings.write_text("{}")
    server = {"command": str(npm_bin / "mcp-server-filesystem"), "args": ["shared"], "cwd": "."}
    # the control: the same server told to take the roots — the attack, for real
    control = {**server, "roots": True}
    manager = await _manager(work, {"files": server, "control": control}, [settings])
    closing.append(manager)
    state = manager.state("files")
    assert state.status == "connected", (state.reason, state.stderr_tail)
    assert "shared" in await _read(manager, work / "shared" / "ok.txt", work)
    # once the control has its roots, the canary is what roots would have given away
    assert CANARY in await _until_readable(manager, work / "private.txt", work, "control")
    leaked = await _read(manager, work / "private.txt", work)
    assert CANARY not in leaked
    assert leaked.startswith("refused") or "denied" in leaked.lower(), leaked


async def test_a_project_file_cannot_add_a_root_outside_the_workspace(
    tmp_path: Path, npm_bin: Path, closing: list[McpManager]
) -> None:
    work, outside = _lab(tmp_path)
    project = work / ".agent-tui" / "settings.json"
    project.parent.mkdir()
    project.write_text(json.dumps({"mcp": {"roots": [str(outside), "~", "shared"]}}))
    server = {"command": str(npm_bin / "mcp-server-filesystem")}  # asks for the roots
    manager = await _manager(work, {"files": server}, [project])
    closing.append(manager)
    roots = [entry.path for entry in manager.hub.roots.entries]
    assert outside.resolve() not in roots
    assert Path.home().resolve() not in roots
    assert (work / "shared").resolve() in roots  # inside the workspace: allowed
    problems = [p.message for p in manager.problems]
    assert sum("outside the workspace" in p for p in problems) == 2, problems
    await _until_readable(manager, work / "shared" / "ok.txt", work)  # it has its roots
    leaked = await _read(manager, outside / "key.txt", work)
    assert CANARY not in leaked


async def test_the_users_own_settings_may_add_a_root_outside(
    tmp_path: Path,
    npm_bin: Path,
    closing: list[McpManager],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    work, outside = _lab(tmp_path)
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(config))
    user = config / "settings.json"
    user.write_text(json.dumps({"mcp": {"roots": [str(outside)]}}))
    server = {"command": str(npm_bin / "mcp-server-filesystem")}
    manager = await _manager(work, {"files": server}, [user])
    closing.append(manager)
    assert outside.resolve() in [entry.path for entry in manager.hub.roots.entries]
    assert CANARY in await _until_readable(manager, outside / "key.txt", work)


def test_offers_roots_follows_the_entry_then_the_arguments(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    plain = ServerSpec(name="a", command="srv")
    assert offers_roots(plain, tmp_path)
    limited = ServerSpec(name="b", command="srv", args=["--flag", "data"])
    assert not offers_roots(limited, tmp_path)
    forced = ServerSpec(name="c", command="srv", args=["data"], roots=True)
    assert offers_roots(forced, tmp_path)
    off = ServerSpec(name="d", command="srv", roots=False)
    assert not offers_roots(off, tmp_path)
    words = ServerSpec(name="e", command="srv", args=["run", "--port", "8080"])
    assert offers_roots(words, tmp_path)


async def test_a_deny_rule_for_a_server_covers_reading_its_resources(
    tmp_path: Path, npm_bin: Path, closing: list[McpManager]
) -> None:
    """``mcp__everything`` denied: the model must not reach that server's resources through
    the built-in read_mcp_resource either — in bypass mode too (a deny rule wins in every
    mode). The resource's own text is the canary."""
    from agent_tui.core.budget import BudgetSettings, SpillStore
    from agent_tui.core.executor import ToolExecutor
    from agent_tui.core.permissions import Mode
    from agent_tui.core.permissions.pipeline import PermissionPipeline
    from agent_tui.core.permissions.rules import Rule, RuleSet
    from agent_tui.core.tools.file_state import FileStateCache
    from agent_tui.core.transcript import Message, ToolCall

    work = tmp_path / "work"
    work.mkdir()
    settings = tmp_path / "settings.json"
    settings.write_text("{}")
    everything = {"command": str(npm_bin / "mcp-server-everything")}
    manager = await _manager(work, {"everything": everything}, [settings])
    closing.append(manager)
    uri = "demo://resource/static/document/features.md"
    allowed = await manager.registry.dispatch(
        "read_mcp_resource",
        json.dumps({"server": "everything", "uri": uri}),
        ToolContext(cwd=work),
    )
    assert allowed.output is not None, allowed.error
    canary = allowed.output.content.strip().splitlines()[0]
    assert canary
    for mode, rule in ((Mode.BYPASS, "mcp__everything"), (Mode.DEFAULT, "mcp__everything__*")):
        pipeline = PermissionPipeline(work, RuleSet(deny=[Rule.parse(rule)]), mode)
        budget = BudgetSettings(spill_dir=str(tmp_path / "spills"))
        executor = ToolExecutor(
            manager.registry,
            work,
            pipeline,
            None,
            FileStateCache(),
            budget=budget,
            store=SpillStore(tmp_path / "spills", work),
        )
        calls = [
            ToolCall(
                id="r1",
                name="read_mcp_resource",
                arguments=json.dumps({"server": "everything", "uri": uri}),
            ),
            ToolCall(
                id="l1", name="list_mcp_resources", arguments=json.dumps({"server": "everything"})
            ),
        ]
        out: list[Message] = []
        events = [e async for e in executor.execute(calls, out, asyncio.Event())]
        rejected = [e for e in events if e.type == "tool_rejected"]
        assert {e.id for e in rejected} == {"r1", "l1"}, (mode, events)
        assert all("mcp__everything" in e.reason for e in rejected)
        assert not any(canary in m.content for m in out)
