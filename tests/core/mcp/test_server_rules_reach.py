"""A server's rules hold wherever its resources are reached, and a rule's server part ignores
letter case (issue 37 follow-ups, point 5).

Real MCP servers over stdio (``tests/mcp_servers/canary_server.py``: reading its resource
``canary://secret`` appends ``NAME:read`` to its canary file), the real manager, permission
pipeline and executor (nobody to ask). Each attack is shown to work bare (no rule: the other
server's resource is listed, read, or its tool run) and to do nothing under the rule.

- ``list_mcp_resources`` without a server listed the resources of a server a deny rule covers;
- an ``@server:uri`` mention attached a resource of a denied server;
- ``mcp__EV__*`` for the server ``ev`` matched nothing (a deny that denied nothing): the server
  part of a rule is now matched ignoring case (servers whose names differ only by case are
  refused together, so it can mean only ``ev``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.events import Event
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.client.resource_mentions import McpMentionResources
from agent_tui.core.mentions import MentionExpander
from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.permissions.mcp_rules import server_gate
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import Message, ToolCall
from tests.core.mcp.conftest import ROOT, python_entry, write_config

CANARY_SERVER = ROOT / "tests" / "mcp_servers" / "canary_server.py"
SECRET = "canary://secret"


def entry(canary: Path, name: str) -> dict[str, Any]:
    args = [str(CANARY_SERVER), "--canary", str(canary), "--name", name]
    return python_entry(*args)


def marks(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


@asynccontextmanager
async def running(work: Path, canaries: dict[str, Path]) -> AsyncIterator[McpManager]:
    config = write_config(work / ".mcp.json", {n: entry(c, n) for n, c in canaries.items()})
    manager = McpManager(work, default_registry(), paths=[config])
    try:
        await manager.start()
        await manager.wait_ready()
        yield manager
    finally:
        await manager.aclose()


def ruleset(deny: tuple[str, ...] = (), ask: tuple[str, ...] = ()) -> RuleSet:
    return RuleSet(
        deny=[Rule.parse(r) for r in deny], ask=[Rule.parse(r) for r in ask]
    )  # fmt: skip


async def call(
    manager: McpManager, pipeline: PermissionPipeline, tool: str, arguments: dict[str, Any]
) -> tuple[list[Event], str]:
    manager.hub.gate = server_gate(pipeline)
    executor = ToolExecutor(manager.registry, manager.cwd, pipeline, None, FileStateCache())
    out: list[Message] = []
    events = [
        event
        async for event in executor.execute(
            [ToolCall(id="c", name=tool, arguments=json.dumps(arguments))], out, asyncio.Event()
        )
    ]
    text = "\n".join(
        getattr(e, "content", "") or getattr(e, "reason", "") or getattr(e, "message", "")
        for e in events
    )
    return events, text


@pytest.fixture
def work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    return work


# -- list_mcp_resources without a server ---------------------------------------------------------

LISTING = [
    # (rules, mode): the case, then variants of our own
    (ruleset(deny=("mcp__ev__*",)), Mode.DEFAULT),
    (ruleset(deny=("mcp__ev",)), Mode.BYPASS),  # the server form; deny wins in bypass
    (ruleset(deny=("mcp__ev__list_mcp_resources",)), Mode.DEFAULT),  # the tool itself
    (ruleset(ask=("mcp__ev__*",)), Mode.DEFAULT),  # nobody is asked about a listing of all
    (ruleset(deny=("mcp__EV__*",)), Mode.DEFAULT),  # letter case
]


@pytest.mark.parametrize(("rules", "mode"), LISTING)
async def test_a_listing_of_every_server_leaves_out_a_refused_one(
    work: Path, tmp_path: Path, rules: RuleSet, mode: Mode
) -> None:
    canaries = {"ev": tmp_path / "ev.txt", "ok": tmp_path / "ok.txt"}
    async with running(work, canaries) as manager:
        open_pipeline = PermissionPipeline(work, RuleSet(), mode)
        _, bare = await call(manager, open_pipeline, "list_mcp_resources", {})
        assert f"- ev <{SECRET}>" in bare  # the attack is real: listed without a rule
        pipeline = PermissionPipeline(work, rules, mode)
        _, text = await call(manager, pipeline, "list_mcp_resources", {})
        assert f"- ok <{SECRET}>" in text  # the other server is still listed
        assert f"- ev <{SECRET}>" not in text
        assert "Not listed, by the permission rules" in text
        assert "'ev'" in text
        # naming the server is judged by its rules as before
        _, said = await call(manager, pipeline, "list_mcp_resources", {"server": "ev"})
        assert f"- ev <{SECRET}>" not in said


async def test_an_ask_rule_does_not_hide_a_server_in_bypass_mode(
    work: Path, tmp_path: Path
) -> None:
    canaries = {"ev": tmp_path / "ev.txt"}
    async with running(work, canaries) as manager:
        pipeline = PermissionPipeline(work, ruleset(ask=("mcp__ev__*",)), Mode.BYPASS)
        _, text = await call(manager, pipeline, "list_mcp_resources", {})
        assert f"- ev <{SECRET}>" in text


# -- @server:uri mentions ---------------------------------------------------------------------

MENTIONS = [
    ruleset(deny=("mcp__ev__*",)),
    ruleset(deny=("mcp__ev__read_mcp_resource",)),  # own variants
    ruleset(deny=("mcp__EV",)),
    ruleset(deny=("*",)),
]


@pytest.mark.parametrize("rules", MENTIONS)
async def test_a_mention_of_a_denied_servers_resource_is_not_read(
    work: Path, tmp_path: Path, rules: RuleSet
) -> None:
    canary = tmp_path / "ev.txt"
    prompt = f"summarise @ev:{SECRET} please"
    async with running(work, {"ev": canary}) as manager:
        resources = McpMentionResources(manager.hub)
        bare = await MentionExpander(work, resources=resources).expand(prompt)
        assert "the secret of ev" in bare.text
        assert marks(canary) == ["ev:start", "ev:read"]
        manager.hub.gate = server_gate(PermissionPipeline(work, rules, Mode.BYPASS))
        expanded = await MentionExpander(work, resources=resources).expand(prompt)
        assert "the secret of ev" not in expanded.text
        assert "is not attached" in expanded.text
        assert "denied by the rule" in expanded.text
        assert resources.complete(0, 4, "ev:can") is None  # not offered either
    assert marks(canary) == ["ev:start", "ev:read"]  # not read again


async def test_an_ask_rule_does_not_stop_the_users_own_mention(work: Path, tmp_path: Path) -> None:
    canary = tmp_path / "ev.txt"
    async with running(work, {"ev": canary}) as manager:
        resources = McpMentionResources(manager.hub)
        manager.hub.gate = server_gate(
            PermissionPipeline(work, ruleset(ask=("mcp__ev__*",)), Mode.DEFAULT)
        )
        expanded = await MentionExpander(work, resources=resources).expand(f"@ev:{SECRET}")
        assert "the secret of ev" in expanded.text


# -- a rule's server part ignores letter case ---------------------------------------------------

CASES = [
    ("mcp__EV__*", "mcp__ev__mark"),
    ("mcp__Ev", "mcp__ev__mark"),  # own variants: the server form,
    ("mcp__EV__mark", "mcp__ev__mark"),  # one tool,
    ("mcp__EV__*", "read_mcp_resource"),  # and the resources of the server
]


@pytest.mark.parametrize(("rule", "tool"), CASES)
async def test_a_deny_rule_differing_only_by_case_denies(
    work: Path, tmp_path: Path, rule: str, tool: str
) -> None:
    canary = tmp_path / "ev.txt"
    arguments: dict[str, Any] = {}
    if tool == "read_mcp_resource":
        arguments = {"server": "ev", "uri": SECRET}
    mark = "ev" if tool.endswith("mark") else "ev:read"
    async with running(work, {"ev": canary}) as manager:
        open_pipeline = PermissionPipeline(work, RuleSet(), Mode.BYPASS)
        events, _ = await call(manager, open_pipeline, tool, arguments)
        assert marks(canary).count(mark) == 1  # bare: it ran
        events, text = await call(
            manager, PermissionPipeline(work, ruleset(deny=(rule,)), Mode.BYPASS), tool, arguments
        )
    assert [e.type for e in events if e.type in ("tool_result", "tool_rejected")] == [
        "tool_rejected"
    ]
    assert rule in text
    assert marks(canary).count(mark) == 1  # not again


def test_case_never_reaches_another_server() -> None:
    rule = Rule.parse("mcp__EV__*")
    assert rule.names_tool("mcp__ev__x")
    assert not rule.names_tool("mcp__ev_1__x")
    assert not rule.names_tool("mcp__evil__x")
    assert not Rule.parse("mcp__ev__Search").names_tool("mcp__ev__search")  # tools exactly
