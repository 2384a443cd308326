"""Lazy MCP servers against the real SDK fixture server: not started at launch when their cached
tools are all deferred, found by search_tool from the cache, started by the first call (which
reports ``starting_server`` and returns the real result); a changed configuration or a corrupt
cache starts them at launch; an untrusted project server stays unstarted, cache or not."""

from __future__ import annotations

import json
import os
import stat
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent_tui.core.disclosure import Disclosure
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.client.start_mode import load_start_mode
from agent_tui.core.mcp.client.tool_cache import CachedTool, ToolCache, config_hash
from agent_tui.core.mcp.config.load import load_config
from agent_tui.core.settings import DisclosureSettings
from agent_tui.core.state.trust import ProjectTrust
from agent_tui.core.tools.base import ProgressUpdate, ToolContext
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.errors import ToolFailure
from tests.core.mcp.conftest import DEADLINE, fixture_entry, of_type, run_calls, write_config
from tests.core.mcp.servers import fixture_pids
from tests.core.tools.conftest import wait_until


class Project:
    """A project with one fixture server ``fx`` and settings that make servers lazy."""

    def __init__(self, root: Path, marker: str) -> None:
        self.root = root
        self.marker = marker
        self.config = root / ".mcp.json"
        self.settings = root / ".agent-tui" / "settings.json"
        self.settings.parent.mkdir(parents=True, exist_ok=True)
        self.settings.write_text(json.dumps({"mcp": {"start": "lazy"}}), encoding="utf-8")
        self.managers: list[McpManager] = []

    def write(self, mode: str = "normal", **extra: Any) -> None:
        write_config(self.config, {"fx": fixture_entry(mode, name=self.marker, **extra)})

    def manager(
        self, disclosure: DisclosureSettings | None = None, trust: ProjectTrust | None = None
    ) -> McpManager:
        registry = default_registry()
        manager = McpManager(
            self.root,
            registry,
            paths=[self.config],
            settings_paths=[self.settings],
            disclosure=Disclosure(registry, disclosure),
            trust=trust,
        )
        self.managers.append(manager)
        return manager

    def cache_file(self) -> Path:
        spec = load_config(self.root, paths=[self.config]).servers["fx"]
        return ToolCache().path(config_hash(spec, self.root))

    def pids(self) -> list[int]:
        return fixture_pids(self.marker)


@pytest_asyncio.fixture
async def project(workspace: Path) -> AsyncIterator[Project]:
    found = Project(workspace, f"lazy-{uuid.uuid4().hex[:8]}")
    found.write()
    yield found
    for manager in found.managers:
        await manager.aclose()


async def _fill_cache(project: Project, *, lazy: bool = True) -> int:
    """A first launch: no cache, so the lazy server starts and saves its tools (``lazy``
    False: an eager server, which saves nothing)."""
    manager = project.manager()
    await manager.start()
    await manager.wait_ready()
    assert manager.state("fx").status == "connected"
    if lazy:
        await wait_until(project.cache_file().exists, DEADLINE, "the tool cache to be written")
    count = manager.state("fx").tool_count
    await manager.aclose()
    await wait_until(lambda: not project.pids(), DEADLINE, "the first server to exit")
    return count


async def test_first_launch_starts_the_server_and_caches_its_tools(project: Project) -> None:
    count = await _fill_cache(project)
    path = project.cache_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    saved = json.loads(path.read_text(encoding="utf-8"))
    names = [t["name"] for t in saved["tools"]]
    assert len(names) == count >= 15
    assert "echo" in names
    assert "pid" in names
    echo = next(t for t in saved["tools"] if t["name"] == "echo")
    assert echo["annotations"]["readOnlyHint"] is True
    assert "text" in echo["inputSchema"]["properties"]
    assert not list(path.parent.glob("*.tmp"))  # the atomic write left nothing behind


async def test_a_lazy_server_is_not_started_and_its_first_call_starts_it(
    project: Project,
) -> None:
    count = await _fill_cache(project)
    manager = project.manager()
    await manager.start()
    await manager.wait_ready()
    state = manager.state("fx")
    assert state.status == "lazy"
    assert state.tool_count == count
    assert manager._connections == {}
    assert project.pids() == []
    # the cached tools are registered, deferred, and search_tool finds them
    registry = manager.registry
    assert "mcp__fx__echo" in registry
    assert manager.disclosure is not None
    assert "mcp__fx__echo" in {t.name for t in manager.disclosure.deferred()}
    found, _ = await run_calls(registry, project.root, [("search_tool", {"query": "process id"})])
    result = of_type(found, "tool_result")[0]
    assert "mcp__fx__pid" in result.data["hits"]
    assert project.pids() == []  # searching started nothing
    # the first call starts the server, says so while it starts, and returns the real answer
    events, _ = await run_calls(
        registry, project.root, [("run_tool", {"name": "mcp__fx__pid", "input": {}})]
    )
    progress = of_type(events, "tool_progress")
    starting = [i for i, e in enumerate(progress) if e.starting_server == "fx"]
    assert starting, [e.model_dump() for e in progress]
    assert progress[-1].starting_server is None  # then no longer starting
    result = of_type(events, "tool_result")[0]
    pids = project.pids()
    assert len(pids) == 1
    assert result.content.strip() == str(pids[0])
    assert manager.state("fx").status == "connected"


async def test_a_changed_configuration_misses_the_cache_and_starts_at_launch(
    project: Project,
) -> None:
    await _fill_cache(project)
    old = project.cache_file()
    project.write(env={"FIXTURE_FLAVOUR": "changed"})
    assert project.cache_file() != old
    manager = project.manager()
    await manager.start()
    assert manager.state("fx").status in ("connecting", "connected")
    await manager.wait_ready()
    assert manager.state("fx").status == "connected"
    assert len(project.pids()) == 1
    await wait_until(project.cache_file().exists, DEADLINE, "the new cache")


async def test_a_corrupt_cache_is_ignored_with_a_warning_and_rewritten(
    project: Project, caplog: pytest.LogCaptureFixture
) -> None:
    await _fill_cache(project)
    path = project.cache_file()
    path.write_text('{"version": 1, "tools": [', encoding="utf-8")
    manager = project.manager()
    await manager.start()
    state = manager.state("fx")
    assert state.status in ("connecting", "connected")
    assert any("tool cache" in note and "not valid JSON" in note for note in state.notes)
    assert any("tool cache" in r.getMessage() for r in caplog.records)
    await manager.wait_ready()
    assert manager.state("fx").status == "connected"
    await wait_until(
        lambda: path.read_text(encoding="utf-8").rstrip().endswith("}"), DEADLINE, "a rewrite"
    )
    assert json.loads(path.read_text(encoding="utf-8"))["tools"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


async def test_a_cache_for_another_configuration_is_not_used(project: Project) -> None:
    await _fill_cache(project)
    path = project.cache_file()
    data = json.loads(path.read_text(encoding="utf-8"))
    data["hash"] = "0" * 64
    path.write_text(json.dumps(data), encoding="utf-8")
    manager = project.manager()
    await manager.start()
    assert manager.state("fx").status in ("connecting", "connected")
    await manager.wait_ready()
    assert len(project.pids()) == 1


async def test_a_server_with_a_direct_tool_starts_at_launch(project: Project) -> None:
    await _fill_cache(project)
    manager = project.manager(DisclosureSettings(always_load=["fx"]))
    await manager.start()
    assert manager.state("fx").status in ("connecting", "connected")
    await manager.wait_ready()
    assert len(project.pids()) == 1


async def test_lazy_is_the_default(project: Project) -> None:
    project.settings.write_text("{}", encoding="utf-8")
    assert load_start_mode(project.root, [project.settings])[0] == "lazy"
    await _fill_cache(project)  # no cache yet: started at launch, which caches its tools
    manager = project.manager()
    await manager.start()
    assert manager.state("fx").status == "lazy"
    assert project.pids() == []


async def test_eager_in_the_settings_keeps_no_cache(project: Project) -> None:
    project.settings.write_text(json.dumps({"mcp": {"start": "eager"}}), encoding="utf-8")
    await _fill_cache(project, lazy=False)  # connects at launch, closes: any save is done
    assert not project.cache_file().exists()  # eager servers keep no cache
    assert load_start_mode(project.root, [project.settings])[0] == "eager"


async def test_start_lazy_on_the_entry_wins_over_the_settings(project: Project) -> None:
    project.settings.write_text(json.dumps({"mcp": {"start": "eager"}}), encoding="utf-8")
    project.write(start="lazy")
    await _fill_cache(project)
    manager = project.manager()
    await manager.start()
    assert manager.state("fx").status == "lazy"
    assert project.pids() == []


async def test_a_bad_start_setting_is_a_problem_and_the_default_stays(project: Project) -> None:
    project.settings.write_text(json.dumps({"mcp": {"start": "later"}}), encoding="utf-8")
    manager = project.manager()
    assert any('"mcp.start"' in p.message and "'later'" in p.message for p in manager.problems)
    assert manager.start_mode == "lazy"


async def test_a_lazy_server_that_fails_to_start_fails_the_call_with_its_reason(
    project: Project,
) -> None:
    project.write("exit-at-start")
    spec = load_config(project.root, paths=[project.config]).servers["fx"]
    ToolCache().save(
        config_hash(spec, project.root),
        "fx",
        [CachedTool({"name": "echo", "inputSchema": {"type": "object"}})],
        resources=False,
    )
    manager = project.manager(DisclosureSettings(deferred="auto:0"))
    await manager.start()
    assert manager.state("fx").status == "lazy"
    seen: list[ProgressUpdate] = []
    ctx = ToolContext(cwd=project.root, call_id="c1", progress=seen.append)
    with pytest.raises(ToolFailure) as caught:
        await manager.call("fx", "echo", {"text": "x"}, ctx)
    message = caught.value.info.message
    assert "failed to start" in message
    assert "the server exited during start-up" in message
    assert "fixture: bad configuration, giving up" in "\n".join(caught.value.info.details)
    assert [u.starting_server for u in seen] == ["fx", None]
    # its tools stay registered: a second call says the same instead of "unknown tool"
    events, _ = await run_calls(manager.registry, project.root, [("mcp__fx__echo", {"text": "y"})])
    error = of_type(events, "tool_error")[0]
    assert "the server exited during start-up" in error.message


async def test_disable_removes_a_lazy_servers_cached_tools(project: Project) -> None:
    await _fill_cache(project)
    manager = project.manager()
    await manager.start()
    assert "mcp__fx__echo" in manager.registry
    await manager.disable("fx")
    assert manager.state("fx").status == "disabled"
    assert "mcp__fx__echo" not in manager.registry
    await manager.enable("fx")
    await manager.wait_ready()
    assert manager.state("fx").status == "connected"


async def test_reconnect_starts_a_lazy_server(project: Project) -> None:
    await _fill_cache(project)
    manager = project.manager()
    await manager.start()
    await manager.reconnect("fx")
    await manager.wait_ready()
    assert manager.state("fx").status == "connected"
    assert len(project.pids()) == 1


@pytest.mark.real_trust
async def test_an_untrusted_project_server_stays_unstarted_with_a_cache(
    project: Project,
) -> None:
    spec = load_config(
        project.root, paths=[project.config], trust=ProjectTrust(project.root)
    ).servers["fx"]
    assert spec.untrusted
    ToolCache().save(
        config_hash(spec, project.root),
        "fx",
        [CachedTool({"name": "echo", "inputSchema": {"type": "object"}})],
        resources=False,
    )
    manager = project.manager(DisclosureSettings(deferred="auto:0"))
    await manager.start()
    state = manager.state("fx")
    assert state.status == "disabled"
    assert state.disabled_by == "untrusted"
    assert "mcp__fx__echo" not in manager.registry
    ctx = ToolContext(cwd=project.root, call_id="c1")
    with pytest.raises(ToolFailure):
        await manager.call("fx", "echo", {"text": "x"}, ctx)
    events, _ = await run_calls(manager.registry, project.root, [("mcp__fx__echo", {"text": "y"})])
    assert "not trusted yet" in of_type(events, "tool_error")[0].message
    await manager.wait_ready()
    assert project.pids() == []


def test_the_config_hash_follows_what_defines_the_server(tmp_path: Path) -> None:
    def spec_of(**entry: Any) -> Any:
        path = write_config(tmp_path / "mcp.json", {"s": {"command": "srv", **entry}})
        return load_config(tmp_path, paths=[path]).servers["s"]

    base = config_hash(spec_of(args=["a"]), tmp_path)
    same: list[Callable[[], Any]] = [
        lambda: spec_of(args=["a"], timeout=5),
        lambda: spec_of(args=["a"], start="lazy"),
    ]
    for make in same:
        assert config_hash(make(), tmp_path) == base
    for other in (
        spec_of(args=["b"]),
        spec_of(args=["a"], env={"K": "v"}),
        spec_of(args=["a"], cwd="sub"),
    ):
        assert config_hash(other, tmp_path) != base
    assert config_hash(spec_of(args=["a"]), tmp_path / "elsewhere") != base
    assert os.sep not in base
    assert len(base) == 64


async def test_a_mention_of_a_lazy_servers_resource_starts_it(project: Project) -> None:
    from agent_tui.core.mcp.client.resource_mentions import McpMentionResources

    project.write("logs")
    await _fill_cache(project)  # the logs mode has resources: the cache says so
    manager = project.manager()
    await manager.start()
    assert manager.state("fx").status == "lazy"
    mentions = McpMentionResources(manager.hub)
    assert "fx" in mentions.servers()
    assert project.pids() == []
    text, note = await mentions.read("fx", "fixture://note")
    assert note == ""
    assert "a note from the fixture" in text
    assert manager.state("fx").status == "connected"
    assert len(project.pids()) == 1
