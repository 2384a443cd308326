"""MCP resources, roots and logging against the real npm reference servers: server-everything
(resources, templates, text and blob reads, resource links, subscriptions, logging) and
server-filesystem started without directories (it asks for the client's roots)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.client.server_log import LogEntry
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import DEADLINE, of_type, run_calls, write_config

pytestmark = pytest.mark.asyncio(loop_scope="module")
STATIC = "demo://resource/static/document/features.md"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("resources")
    (root / "notes.txt").write_text("the workspace's own notes\n")
    (root / "extra").mkdir()
    (root / "extra" / "more.txt").write_text("an extra root\n")
    return root


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(project: Path, npm_bin: Path) -> AsyncIterator[McpManager]:
    config = write_config(
        project / ".mcp.json",
        {
            "everything": {"command": str(npm_bin / "mcp-server-everything")},
            # No directory arguments: it serves what the client's roots/list answers.
            "files": {"command": str(npm_bin / "mcp-server-filesystem")},
        },
    )
    settings = project / "settings.json"
    settings.write_text("{}")
    manager = McpManager(project, default_registry(), paths=[config], settings_paths=[settings])
    await manager.start()
    await manager.wait_ready()
    yield manager
    await manager.aclose()


async def test_resources_and_templates_are_listed(manager: McpManager) -> None:
    state = manager.state("everything")
    assert state.status == "connected", (state.reason, state.stderr_tail)
    uris = {r.uri: r for r in state.resources}
    assert STATIC in uris
    assert uris[STATIC].mime_type == "text/markdown"
    templates = {r.uri for r in state.resources if r.template}
    assert templates == {
        "demo://resource/dynamic/text/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
    }
    assert manager.state("files").resources == ()  # no resources capability
    assert {"read_mcp_resource", "list_mcp_resources"} <= set(manager.registry.names())


async def test_the_model_lists_and_reads_text_and_blobs(manager: McpManager, project: Path) -> None:
    events, _ = await run_calls(
        manager.registry,
        project,
        [
            ("list_mcp_resources", {"server": "everything"}),
            ("read_mcp_resource", {"server": "everything", "uri": STATIC}),
            (
                "read_mcp_resource",
                {"server": "everything", "uri": "demo://resource/dynamic/text/7"},
            ),
            (
                "read_mcp_resource",
                {"server": "everything", "uri": "demo://resource/dynamic/blob/2"},
            ),
            ("read_mcp_resource", {"server": "files", "uri": "file:///etc/hostname"}),
            ("read_mcp_resource", {"server": "everything", "uri": "demo://nothing/here"}),
        ],
    )
    results = {e.id: e for e in of_type(events, "tool_result")}
    errors = {e.id: e for e in of_type(events, "tool_error")}
    listing = results["call_0"].content
    assert f"- everything <{STATIC}> features.md — text/markdown" in listing
    assert "template <demo://resource/dynamic/blob/{resourceId}>" in listing
    assert results["call_1"].content.startswith(f"[resource <{STATIC}> (text/markdown)]\n")
    assert "Resource 7" in results["call_2"].content
    blob = results["call_3"].content
    saved = results["call_3"].data["media"][0]
    data = (project / saved).read_bytes()  # the decoded bytes, on disk
    assert data
    # its size is the bytes saved (the dynamic blob holds a timestamp: 55 or 56 bytes)
    assert blob.startswith(
        f"[resource <demo://resource/dynamic/blob/2>: text/plain, {len(data)} bytes, "
    )
    assert "saved to .agent-spill/mcp-media/" in blob
    assert "does not offer resources" in errors["call_4"].message
    assert errors["call_5"].code == "mcp_error"  # the server's JSON-RPC error


async def test_resource_links_point_at_read_mcp_resource(
    manager: McpManager, project: Path
) -> None:
    events, _ = await run_calls(
        manager.registry, project, [("mcp__everything__get-resource-links", {"count": 2})]
    )
    [result] = of_type(events, "tool_result")
    assert (
        'read with read_mcp_resource(server="everything", uri="demo://resource/dynamic/blob/1")]'
        in result.content
    )


async def test_roots_let_the_filesystem_server_read_the_workspace(
    manager: McpManager, project: Path
) -> None:
    state = manager.state("files")
    assert state.status == "connected", (state.reason, state.stderr_tail)
    ctx = ToolContext(cwd=project)
    allowed = await manager.registry.dispatch("mcp__files__list_allowed_directories", "{}", ctx)
    assert allowed.output is not None
    workspace = manager.hub.roots.entries[0]  # the first root: the workspace, resolved
    assert workspace.uri == workspace.path.as_uri()
    assert str(workspace.path) in allowed.output.content
    read = await manager.registry.dispatch(
        "mcp__files__read_text_file", json.dumps({"path": str(project / "notes.txt")}), ctx
    )
    assert read.output is not None, read.error
    assert read.output.content == "the workspace's own notes\n"


async def test_extra_roots_from_settings_reach_the_server(
    manager: McpManager, project: Path
) -> None:
    settings = project / "settings.json"
    settings.write_text(json.dumps({"mcp": {"roots": ["extra", "missing-dir", 3]}}))
    await manager.reload()  # re-reads the roots, notifies roots/list_changed
    problems = [p.message for p in manager.problems]
    assert any("'missing-dir' is not a directory" in p for p in problems), problems
    assert any("entry 3 is not a path" in p for p in problems), problems
    ctx = ToolContext(cwd=project)
    path = json.dumps({"path": str(project / "extra" / "more.txt")})

    async def readable() -> bool:
        done = await manager.registry.dispatch("mcp__files__read_text_file", path, ctx)
        return done.output is not None

    end = asyncio.get_running_loop().time() + DEADLINE
    while not await readable():
        assert asyncio.get_running_loop().time() < end, "the extra root was never allowed"
        await manager.wait_for(lambda: False, 0.2)
    settings.write_text("{}")
    await manager.reload()


async def test_logging_messages_and_set_level(manager: McpManager, project: Path) -> None:
    severe: list[LogEntry] = []
    unsubscribe = manager.hub.add_log_listener(severe.append)
    try:
        state = manager.state("everything")
        assert state.can_log
        # Roots were sent at start: the server logs that it got them (~350 ms after start).
        ok = await manager.wait_for(
            lambda: any("Roots updated" in e.text for e in manager.state("everything").log),
            DEADLINE,
        )
        assert ok, manager.state("everything").log
        assert await manager.hub.cycle_level("everything") == "debug"
        assert manager.state("everything").log_level == "debug"
        await run_calls(
            manager.registry, project, [("mcp__everything__toggle-simulated-logging", {})]
        )
        ok = await manager.wait_for(
            lambda: any(e.level != "info" for e in manager.state("everything").log), DEADLINE
        )
        assert ok, manager.state("everything").log
        entry = manager.state("everything").log[-1]
        assert entry.server == "everything"
        assert entry.logger in (None, "everything-server")
        ok = await manager.wait_for(lambda: bool(severe), 60)
        assert ok, "no error-or-worse message reached the listener"
        assert all(e.severe for e in severe)
    finally:
        unsubscribe()
        await run_calls(
            manager.registry, project, [("mcp__everything__toggle-simulated-logging", {})]
        )


async def test_a_read_resource_is_subscribed_and_updates_arrive(
    manager: McpManager, project: Path
) -> None:
    uri = "demo://resource/dynamic/text/3"
    await manager.hub.read("everything", uri)
    await run_calls(manager.registry, project, [("mcp__everything__toggle-subscriber-updates", {})])
    try:
        ok = await manager.wait_for(
            lambda: (
                any(r.uri == uri and r.updated for r in manager.state("everything").resources)
                or uri in manager._connections["everything"].side.updated
            ),
            DEADLINE,
        )
        assert ok, "no notifications/resources/updated for the subscribed resource"
    finally:
        await run_calls(
            manager.registry, project, [("mcp__everything__toggle-subscriber-updates", {})]
        )


async def test_a_mention_attaches_the_resource_and_the_completer_offers_them(
    manager: McpManager, project: Path
) -> None:
    from agent_tui.core.mcp.client.resource_mentions import McpMentionResources
    from agent_tui.core.mentions import FileIndex, MentionCompleter, MentionExpander

    resources = McpMentionResources(manager.hub)
    assert resources.servers() == {"everything"}
    expander = MentionExpander(project, resources=resources)
    prompt = f"summarise @everything:{STATIC} please, and @everything:demo://no/such"
    expansion = await expander.expand(prompt)
    [mention] = expansion.mentions  # the unknown URI stays text
    assert mention.kind == "resource"
    assert mention.path == f"everything:{STATIC}"
    assert mention.attached
    assert f'<attachment kind="resource" path="everything:{STATIC}">' in expansion.text
    assert f"[resource <{STATIC}> (text/markdown)]" in expansion.text
    assert expansion.text.startswith(prompt)

    completer = MentionCompleter(FileIndex(project, lambda _real: True), resources)
    text = "read @everything:feat"
    menu = completer.complete(text, len(text))
    assert menu is not None
    assert menu.items[0].label == f"everything:{STATIC}"
    assert menu.items[0].insert == f"@everything:{STATIC} "
    assert menu.items[0].source == "mcp: everything"
    text = "read @everything:dynamic"
    menu = completer.complete(text, len(text))
    assert menu is not None
    assert {i.label for i in menu.items} == {
        "everything:demo://resource/dynamic/text/{resourceId}",
        "everything:demo://resource/dynamic/blob/{resourceId}",
    }


async def test_the_resource_tools_are_deferred_and_found_by_search_tool(
    manager: McpManager, project: Path
) -> None:
    from agent_tui.core.disclosure import Disclosure, DisclosureSettings

    registry = manager.registry
    disclosure = Disclosure(registry, DisclosureSettings(deferred="auto:0"))
    try:
        deferred = {t.name for t in disclosure.deferred()}
        assert {"read_mcp_resource", "list_mcp_resources"} <= deferred
        assert "read_mcp_resource" not in {t.name for t in disclosure.direct()}
        found = [t.name for t in disclosure.search("read a resource of an MCP server by uri", 3)]
        assert found[0] == "read_mcp_resource", found
        # Called through run_tool, as the model reaches a deferred tool.
        args = {"name": "read_mcp_resource", "input": {"server": "everything", "uri": STATIC}}
        events, _ = await run_calls(registry, project, [("run_tool", args)])
        [result] = of_type(events, "tool_result")
        assert result.content.startswith(f"[resource <{STATIC}>")
    finally:
        for name in ("search_tool", "run_tool"):
            registry.unregister(name)
