"""The overview the MCP panel and ``mcp list`` share: disclosure marks and why, the permission
per tool, the cost line (no servers started here: the registry is filled by hand)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.disclosure import Disclosure, DisclosureSettings
from agent_tui.core.disclosure.marks import approx_tokens, cost_line, exposure, tools_cost
from agent_tui.core.mcp.client.overview import build_overview
from agent_tui.core.mcp.config.load import config_paths
from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.tools.base import JsonInput, Tool, ToolContext, ToolMeta, ToolOutput
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.registry import ToolRegistry


async def _never(arguments: JsonInput, ctx: ToolContext) -> ToolOutput:
    raise AssertionError("not called")


WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]


def _tool(name: str, read_only: bool = True) -> Tool[Any]:
    digits = "".join(c for c in name if c.isdigit())
    word = WORDS[int(digits) % len(WORDS)] if digits else "zulu"
    return Tool(
        name=name,
        description=f"Handles the {word} resources of the project, one at a time. " * 4,
        input_model=JsonInput,
        call=_never,
        meta=ToolMeta(read_only=read_only),
        input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
    )


def registry_with(*names: str) -> ToolRegistry:
    registry = default_registry()
    for name in names:
        registry.register(_tool(name))
    return registry


MANY = [f"mcp__fx__t{i}" for i in range(6)] + ["mcp__gh__issue", "mcp__gh__pr"]


def test_marks_follow_the_disclosure_settings() -> None:
    few = registry_with("mcp__fx__t0")
    marks = exposure(Disclosure(few), ["mcp__fx__t0", "read_file"])
    assert marks["mcp__fx__t0"].kind == "direct"
    assert "not more than 10" in marks["mcp__fx__t0"].why
    assert marks["read_file"].why == "built-in tools are always direct"

    settings = DisclosureSettings(promote=["mcp__fx__t1"], always_load=["gh"])
    disclosure = Disclosure(registry_with(*MANY), settings)
    marks = exposure(disclosure, MANY)
    assert marks["mcp__fx__t0"].kind == "deferred"
    assert "(17 tools > auto:10)" in marks["mcp__fx__t0"].why
    assert marks["mcp__fx__t1"].kind == "promoted"
    assert "disclosure.promote (mcp__fx__t1)" in marks["mcp__fx__t1"].why
    assert marks["mcp__gh__issue"].kind == "promoted"
    assert "always_load" in marks["mcp__gh__issue"].why

    found = disclosure.search("charlie", limit=1)
    assert [t.name for t in found] == ["mcp__fx__t2"]
    marks = exposure(disclosure, MANY)
    assert marks["mcp__fx__t2"].kind == "unmasked"
    assert "run_tool" in marks["mcp__fx__t2"].why
    disclosure.protocol = "strict"
    assert "tools array from the next request" in exposure(disclosure, MANY)["mcp__fx__t2"].why

    off = Disclosure(registry_with(*MANY), DisclosureSettings(deferred="off"))
    assert {m.kind for m in exposure(off, MANY).values()} == {"direct"}
    assert {m.kind for m in exposure(None, MANY).values()} == {"direct"}


def test_cost_line() -> None:
    assert [approx_tokens(n) for n in (950, 7_240, 69_400, 1_250_000)] == [
        "950",
        "7.2k",
        "69k",
        "1.2M",
    ]
    cost = {"total_tokens": 7_240, "without_disclosure_tokens": 69_400, "deferred_count": 120}
    assert cost_line(cost, unmasked=3) == (
        "tools array ~7.2k tokens per request with disclosure, ~69k without; "
        "120 deferred tools reachable through search_tool (3 found so far)"
    )
    direct = {"total_tokens": 900, "without_disclosure_tokens": 900, "deferred_count": 0}
    assert cost_line(direct) == "tools array ~900 tokens per request; every tool is direct"
    many = [f"mcp__big__tool{i}" for i in range(40)]
    registry = registry_with(*many)
    disclosure = Disclosure(registry)
    with_disclosure = tools_cost(disclosure, registry)
    assert with_disclosure["deferred_count"] == len(many) + 2  # + update_plan and web_fetch
    assert with_disclosure["total_tokens"] < with_disclosure["without_disclosure_tokens"]
    plain = tools_cost(None, registry_with(*MANY))
    assert plain["total_tokens"] == plain["without_disclosure_tokens"] > 0
    assert plain["deferred_count"] == 0
    # Plan mode offers read-only tools only: the array the agent sends is smaller.
    plan = PermissionPipeline(Path("."), mode=Mode.PLAN)
    assert tools_cost(disclosure, registry, plan)["total_tokens"] < with_disclosure["total_tokens"]


def test_overview_without_servers_names_the_files(tmp_path: Path) -> None:
    overview = build_overview(None, registry=default_registry(), cwd=tmp_path)
    assert overview.servers == ()
    assert list(overview.files) == config_paths(tmp_path)
    assert overview.project_file == tmp_path / ".mcp.json"
    assert overview.cost_line.startswith("tools array ~")
    assert overview == build_overview(None, registry=default_registry(), cwd=tmp_path)


def test_permissions_per_tool(tmp_path: Path) -> None:
    """What the panel shows per tool is what ``decide`` would do with a call."""
    registry = registry_with("mcp__fx__read")
    registry.register(_tool("mcp__fx__write", read_only=False))
    rules = RuleSet(deny=[Rule.parse("mcp__fx__write", source="settings.json")])
    pipeline = PermissionPipeline(tmp_path, rules)
    write = registry.get("mcp__fx__write")
    assert write is not None
    assert str(pipeline.explain(write)) == (
        "deny — denied by the rule mcp__fx__write (from settings.json)"
    )
