"""``mcp__<server>__<tool>`` names, and permission rules on them."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from agent_tui.core.mcp.client.naming import MAX_NAME, pretty_name, qualify, server_segment
from agent_tui.core.permissions import ApprovalRequest, Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.tools.base import JsonInput, Tool, ToolContext, ToolMeta, ToolOutput
from agent_tui.core.transcript import ToolCall

VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_plain_names() -> None:
    names = qualify([("github", "create_issue"), ("fs", "read-file")])
    assert names == {
        ("github", "create_issue"): "mcp__github__create_issue",
        ("fs", "read-file"): "mcp__fs__read-file",
    }


def test_unsafe_characters_are_replaced() -> None:
    assert pretty_name("my server", "do.it/now") == "mcp__my_server__do_it_now"
    assert server_segment("a__b") == "a_b"  # the server part never contains the delimiter
    assert server_segment("..") == "server"


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def test_collisions_get_a_sha1_suffix_of_the_raw_identity() -> None:
    names = qualify([("s", "a.b"), ("s", "a_b"), ("s", "a b")])
    # The tool whose name needed no change keeps it; the others are disambiguated.
    assert names[("s", "a_b")] == "mcp__s__a_b"
    assert names[("s", "a.b")] == f"mcp__s__a_b_{_sha('mcp__s__a.b')}"
    assert names[("s", "a b")] == f"mcp__s__a_b_{_sha('mcp__s__a b')}"
    assert len(set(names.values())) == 3


def test_long_names_are_cut_to_64_with_a_suffix() -> None:
    tool = "x" * 80
    name = qualify([("server", tool)])[("server", tool)]
    assert len(name) == MAX_NAME
    assert name.endswith("_" + _sha(f"mcp__server__{tool}"))
    assert name.startswith("mcp__server__xxx")
    # Two long names sharing the first 64 characters stay distinct.
    other = "x" * 79 + "y"
    both = qualify([("server", tool), ("server", other)])
    assert len(set(both.values())) == 2
    assert all(VALID.fullmatch(n) for n in both.values())


def test_reserved_names_are_avoided() -> None:
    names = qualify([("s", "t")], reserved={"mcp__s__t"})
    assert names[("s", "t")] != "mcp__s__t"
    assert names[("s", "t")].startswith("mcp__s__t_")


def test_deterministic_whatever_the_input_order() -> None:
    pairs = [(f"srv{i % 3}", f"tool.{i % 5}") for i in range(30)] + [("s", "t_1"), ("s", "t.1")]
    first = qualify(pairs)
    second = qualify(list(reversed(pairs)))
    assert first == second
    assert all(VALID.fullmatch(n) for n in first.values())


async def _noop(_: JsonInput, __: ToolContext) -> ToolOutput:
    return ToolOutput("")


def _decide(rules: RuleSet, name: str) -> str:
    tool: Tool[Any] = Tool(name, "d", JsonInput, _noop, meta=ToolMeta(), input_schema={})
    pipeline = PermissionPipeline(Path("/tmp"), rules, Mode.DEFAULT)
    request = ApprovalRequest(ToolCall(id="1", name=name), tool, JsonInput())
    return pipeline.decide(request).kind


def test_permission_rules_on_mcp_names() -> None:
    name = qualify([("git-hub", "create_issue")])[("git-hub", "create_issue")]
    assert name == "mcp__git-hub__create_issue"
    # Not read-only unless annotated: asked by default.
    assert _decide(RuleSet(), name) == "ask"
    for rule in ("mcp__git-hub", "mcp__git-hub__*", "mcp__git-hub__create_issue", "*"):
        assert _decide(RuleSet(allow=[Rule.parse(rule)]), name) == "allow", rule
    for rule in ("mcp__git", "mcp__git-hub__create", "mcp__other__*"):
        assert _decide(RuleSet(allow=[Rule.parse(rule)]), name) == "ask", rule
    denied = RuleSet(allow=[Rule.parse("*")], deny=[Rule.parse("mcp__git-hub__*")])
    assert _decide(denied, name) == "deny"
