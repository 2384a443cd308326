"""MCP prompts through a real stdio server (the SDK fixture): listed, fetched, refreshed."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from agent_tui.core.commands import CommandRegistry, Invocation
from agent_tui.core.commands.expand import CommandError, expand
from agent_tui.core.commands.mcp_prompts import render_messages
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import DEADLINE, fixture_entry, write_config

pytestmark = pytest.mark.asyncio(loop_scope="module")
MARK = f"prompts-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("prompts-project")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(project: Path) -> AsyncIterator[McpManager]:
    config = write_config(project / ".mcp.json", {"fx": fixture_entry("prompts", name=MARK)})
    manager = McpManager(project, default_registry(), paths=[config])
    await manager.start()
    await manager.wait_ready()
    yield manager
    await manager.aclose()


async def test_the_prompts_of_a_server_are_listed_with_their_arguments(
    manager: McpManager,
) -> None:
    prompts = {p.name: p for p in manager.prompts()}
    assert {"review", "greet"} <= set(prompts)
    review = prompts["review"]
    assert review.command == "mcp__fx__review"
    assert review.description == "Review a file for bugs"
    assert [(a.name, a.required) for a in review.arguments] == [("path", True), ("focus", False)]
    assert review.hint == "<path> [focus]"


async def test_positional_words_fill_the_declared_arguments_in_order(
    manager: McpManager,
) -> None:
    registry = CommandRegistry(prompts=manager.prompts)
    parsed = registry.parse("/mcp__fx__review src/app.py error handling")
    assert isinstance(parsed, Invocation)
    expanded = await expand(parsed, prompts=manager)
    assert expanded.prompt == "Please review src/app.py, focusing on error handling."


async def test_a_missing_required_argument_is_named(manager: McpManager) -> None:
    registry = CommandRegistry(prompts=manager.prompts)
    parsed = registry.parse("/mcp__fx__review")
    assert isinstance(parsed, Invocation)
    with pytest.raises(CommandError, match="path"):
        await expand(parsed, prompts=manager)


async def test_messages_other_than_text_are_described(manager: McpManager) -> None:
    result = await manager.get_prompt("fx", "greet", {})
    text = render_messages(result.messages)
    assert text == "[user]\nHello from the fixture.\n\n[assistant]\n[image: image/png]"


async def test_the_prompt_list_is_refreshed_when_the_server_says_it_changed(
    manager: McpManager, project: Path
) -> None:
    ctx = ToolContext(cwd=project, call_id="direct")
    await manager.call("fx", "add_prompt", {"prompt_name": "fresh"}, ctx)
    assert await manager.wait_for(
        lambda: any(p.name == "fresh" for p in manager.prompts()), DEADLINE
    )
    result = await manager.get_prompt("fx", "fresh", {})
    assert render_messages(result.messages) == "I am the prompt fresh"
