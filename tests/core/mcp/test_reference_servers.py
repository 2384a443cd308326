"""Real third-party servers from the npm registry: the MCP reference ``everything`` and
``filesystem`` servers (installed by the ``npm_bin`` fixture, pinned)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from agent_tui.core.budget import BudgetSettings
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import of_type, run_calls, write_config

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reference")
    (root / "shared").mkdir()
    (root / "shared" / "notes.txt").write_text("line one\nline two\n")
    return root


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(project: Path, npm_bin: Path) -> AsyncIterator[McpManager]:
    config = write_config(
        project / ".mcp.json",
        {
            "everything": {"command": str(npm_bin / "mcp-server-everything")},
            "files": {
                "command": str(npm_bin / "mcp-server-filesystem"),
                "args": [str(project / "shared")],
                # Offered roots, it would serve them instead of its arguments.
                "roots": False,
            },
        },
    )
    manager = McpManager(project, default_registry(), paths=[config])
    await manager.start()
    await manager.wait_ready()
    yield manager
    await manager.aclose()


async def test_both_connect_with_their_tools(manager: McpManager) -> None:
    everything, files = manager.state("everything"), manager.state("files")
    assert everything.status == "connected", (everything.reason, everything.stderr_tail)
    assert files.status == "connected", (files.reason, files.stderr_tail)
    # They speak the handshake era: the SDK's server/discover probe fell back to initialize.
    assert everything.protocol_version
    assert not everything.protocol_version.startswith("2026")
    names = {t.remote_name: t for t in everything.tools}
    assert {"echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"} <= set(names)
    assert names["echo"].read_only
    assert not names["echo"].destructive
    assert not names["toggle-simulated-logging"].read_only
    fs = {t.remote_name: t for t in files.tools}
    assert fs["read_text_file"].read_only
    assert fs["write_file"].destructive
    assert not fs["write_file"].read_only
    assert fs["create_directory"].destructive is False  # annotated destructiveHint: false
    assert "mcp__everything__get-sum" in manager.registry


async def test_everything_calls(manager: McpManager, project: Path) -> None:
    events, _ = await run_calls(
        manager.registry,
        project,
        [
            ("mcp__everything__get-sum", {"a": 2, "b": 40}),
            ("mcp__everything__get-tiny-image", {}),
            ("mcp__everything__get-resource-links", {"count": 2}),
            ("mcp__everything__get-resource-reference", {}),
            ("mcp__everything__get-structured-content", {"location": "Chicago"}),
        ],
    )
    results = {e.name.removeprefix("mcp__everything__"): e for e in of_type(events, "tool_result")}
    assert "42" in results["get-sum"].content
    image = results["get-tiny-image"].content
    assert "[image: image/png, " in image
    assert "saved to .agent-spill/mcp-media/" in image
    saved = results["get-tiny-image"].data["media"][0]
    assert (project / saved).read_bytes().startswith(b"\x89PNG")
    assert "[resource link: Blob Resource 1 <demo://resource/dynamic/blob/1>" in (
        results["get-resource-links"].content
    )
    assert "[resource <demo://resource/dynamic/text/1> (text/plain)]" in (
        results["get-resource-reference"].content
    )
    assert "temperature" in results["get-structured-content"].content


async def test_long_running_operation_reports_progress(manager: McpManager, project: Path) -> None:
    events, _ = await run_calls(
        manager.registry,
        project,
        [("mcp__everything__trigger-long-running-operation", {"duration": 0.6, "steps": 3})],
    )
    progress = [(e.progress, e.total) for e in of_type(events, "tool_progress") if e.progress]
    assert progress == [(1, 3), (2, 3), (3, 3)]
    assert "Long running operation completed" in of_type(events, "tool_result")[0].content


async def test_a_large_result_is_spilled_by_the_budget(manager: McpManager, project: Path) -> None:
    message = "".join(f"line {i:06d} of a long echo\n" for i in range(6000))
    budget = BudgetSettings(per_result_chars=20_000, per_turn_chars=40_000)
    events, messages = await run_calls(
        manager.registry, project, [("mcp__everything__echo", {"message": message})], budget=budget
    )
    [spill] = of_type(events, "spill")
    [result] = of_type(events, "tool_result")
    assert result.spill is not None
    assert len(result.content) < 20_000
    assert message in (project / spill.path).read_text()
    assert spill.path in messages[0].content


async def test_filesystem_reads_inside_and_refuses_outside(
    manager: McpManager, project: Path
) -> None:
    ctx = ToolContext(cwd=project)
    allowed = await manager.registry.dispatch("mcp__files__list_allowed_directories", "{}", ctx)
    assert allowed.output is not None
    assert str(project / "shared") in allowed.output.content
    inside = await manager.registry.dispatch(
        "mcp__files__read_text_file", f'{{"path": "{project / "shared" / "notes.txt"}"}}', ctx
    )
    assert inside.output is not None
    assert inside.output.content == "line one\nline two\n"
    outside = await manager.registry.dispatch(
        "mcp__files__read_text_file", '{"path": "/etc/hostname"}', ctx
    )
    assert outside.error is not None
    assert outside.error.code == "mcp_tool_error"
    assert "outside allowed directories" in outside.error.message
    invalid = await manager.registry.dispatch("mcp__files__read_text_file", '{"head": "x"}', ctx)
    assert invalid.error is not None
    assert invalid.error.code == "invalid_arguments"
    assert "$.path: required field is missing" in invalid.error.details


REFERENCE_RETRIEVAL = [
    ("echo a message back", "mcp__everything__echo"),
    ("add two numbers", "mcp__everything__get-sum"),
    ("tiny image", "mcp__everything__get-tiny-image"),
    ("long running operation with progress", "mcp__everything__trigger-long-running-operation"),
    ("environment variables", "mcp__everything__get-env"),
    ("gzip a file", "mcp__everything__gzip-file-as-resource"),
    ("list directory contents", "mcp__files__list_directory"),
    ("move or rename a file", "mcp__files__move_file"),
    ("create a new directory", "mcp__files__create_directory"),
    ("read several files at once", "mcp__files__read_multiple_files"),
    ("file size and modification time", "mcp__files__get_file_info"),
    ("search files by pattern", "mcp__files__search_files"),
    ("recursive tree of a directory", "mcp__files__directory_tree"),
    ("files:write", "mcp__files__write_file"),
    ("files: edit", "mcp__files__edit_file"),
    ("everything:structured", "mcp__everything__get-structured-content"),
]


async def test_search_tool_retrieval_over_the_reference_servers(
    manager: McpManager, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_tui.core.disclosure import Disclosure, DisclosureSettings

    registry = manager.registry
    disclosure = Disclosure(registry, DisclosureSettings(deferred="auto:0"))
    try:
        index = disclosure._search_index()
        top1 = top3 = 0
        misses = []
        for query, expected in REFERENCE_RETRIEVAL:
            names = [doc.name for doc, _ in index.search(query, 3)]
            top1 += names[:1] == [expected]
            top3 += expected in names
            if names[:1] != [expected]:
                misses.append((query, names))
        n = len(REFERENCE_RETRIEVAL)
        with capsys.disabled():
            print(
                f"\nsearch_tool retrieval over server-everything + server-filesystem "
                f"({len(index.docs)} tools): top-1 {top1}/{n} ({top1 / n:.0%}), "
                f"top-3 {top3}/{n} ({top3 / n:.0%}); top-1 misses: {misses}"
            )
        assert top3 / n >= 0.85, misses
        assert top1 / n >= 0.7, misses
    finally:
        for name in ("search_tool", "run_tool"):
            registry.unregister(name)
