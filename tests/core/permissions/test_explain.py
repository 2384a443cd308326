"""``explain``: the permission step that decides a tool's calls, from the same code path as
``decide`` (the MCP panel shows it per tool)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.permissions import (
    ApprovalRequest,
    Mode,
    PermissionPipeline,
    Rule,
    RuleSet,
    SimplePolicy,
)
from agent_tui.core.tools.base import JsonInput, Tool, ToolContext, ToolMeta, ToolOutput
from agent_tui.core.transcript import ToolCall


async def _never(arguments: JsonInput, ctx: ToolContext) -> ToolOutput:
    raise AssertionError("explaining never runs a tool")


def mcp_tool(name: str, *, read_only: bool) -> Tool[Any]:
    return Tool(
        name=name,
        description="a remote tool",
        input_model=JsonInput,
        call=_never,
        meta=ToolMeta(read_only=read_only, destructive=not read_only),
        input_schema={"type": "object", "properties": {}},
    )


WRITE = mcp_tool("mcp__fx__write", read_only=False)
READ = mcp_tool("mcp__fx__read", read_only=True)
OTHER = mcp_tool("mcp__gh__create_issue", read_only=False)


def rules(**kinds: list[str]) -> RuleSet:
    made = RuleSet()
    for kind, texts in kinds.items():
        getattr(made, kind).extend(Rule.parse(t, source=".agent-tui/settings.json") for t in texts)
    return made


def decided(pipeline: PermissionPipeline, tool: Tool[Any]) -> tuple[str, str]:
    request = ApprovalRequest(ToolCall(id="c", name=tool.name, arguments="{}"), tool, JsonInput())
    decision = pipeline.decide(request)
    return decision.kind, decision.reason


@pytest.mark.parametrize(
    ("ruleset", "mode", "tool", "kind", "basis", "reason"),
    [
        (
            rules(allow=["mcp__fx__*"]),
            Mode.DEFAULT,
            WRITE,
            "allow",
            "rule mcp__fx__*",
            "allowed by the rule mcp__fx__* (from .agent-tui/settings.json)",
        ),
        (
            rules(allow=["mcp__fx__*"], deny=["mcp__fx__write"]),
            Mode.BYPASS,
            WRITE,
            "deny",
            "rule mcp__fx__write",
            "denied by the rule mcp__fx__write (from .agent-tui/settings.json)",
        ),
        (
            rules(ask=["mcp__fx"]),
            Mode.DEFAULT,
            READ,
            "ask",
            "rule mcp__fx",
            "the rule mcp__fx (from .agent-tui/settings.json) asks for this call",
        ),
        (rules(), Mode.DEFAULT, READ, "allow", "read-only", "mcp__fx__read is read-only"),
        (
            rules(),
            Mode.DEFAULT,
            WRITE,
            "ask",
            "not read-only",
            "mcp__fx__write is not marked read-only by its MCP server, so it may change things",
        ),
        (rules(allow=["mcp__fx__*"]), Mode.DEFAULT, OTHER, "ask", "not read-only", None),
        (rules(), Mode.BYPASS, WRITE, "allow", "bypass mode", "bypass mode"),
        (rules(), Mode.ACCEPT_EDITS, WRITE, "ask", "not read-only", None),
        (rules(), Mode.PLAN, READ, "allow", "read-only", None),
    ],
)
def test_explain_names_the_deciding_step(
    tmp_path: Path,
    ruleset: RuleSet,
    mode: Mode,
    tool: Tool[Any],
    kind: str,
    basis: str,
    reason: str | None,
) -> None:
    pipeline = PermissionPipeline(tmp_path, ruleset, mode)
    explained = pipeline.explain(tool)
    assert (explained.kind, explained.basis) == (kind, basis)
    if reason is not None:
        assert explained.reason == reason
    # The same code path as decide: the same decision for a real call.
    assert (explained.kind, explained.reason) == decided(pipeline, tool)
    assert explained.rule is None or str(explained.rule) == basis.removeprefix("rule ")
    assert str(explained) == f"{kind} — {explained.reason}"


def test_plan_mode_is_explained_without_the_model_wording(tmp_path: Path) -> None:
    pipeline = PermissionPipeline(tmp_path, rules(allow=["mcp__fx__*"]), Mode.PLAN)
    explained = pipeline.explain(WRITE)
    assert (explained.kind, explained.basis) == ("deny", "plan mode")
    assert explained.reason == "plan mode is on: only read-only tools run"
    assert decided(pipeline, WRITE)[0] == "deny"
    assert "was not run" in decided(pipeline, WRITE)[1]  # what the model reads is unchanged


def test_session_rules_count(tmp_path: Path) -> None:
    pipeline = PermissionPipeline(tmp_path)
    assert pipeline.explain(WRITE).kind == "ask"
    pipeline.session_allow.append(Rule.parse("mcp__fx__write"))
    explained = pipeline.explain(WRITE)
    assert (explained.kind, explained.basis) == ("allow", "rule mcp__fx__write")
    assert explained.reason == "allowed by the rule mcp__fx__write"


def test_explain_works_with_any_policy(tmp_path: Path) -> None:
    """One protocol: every policy explains itself with a typed decision."""
    pipeline = PermissionPipeline(tmp_path, rules(allow=["mcp__fx__write"]))
    assert pipeline.explain(WRITE).basis == "rule mcp__fx__write"
    simple = SimplePolicy(["mcp__fx__write"])
    allowed = simple.explain(WRITE)
    assert (allowed.kind, allowed.basis) == ("allow", "rule mcp__fx__write")
    assert allowed.reason == "mcp__fx__write is allowed by configuration"
    assert (simple.explain(READ).kind, simple.explain(READ).basis) == ("allow", "read-only")
    asked = SimplePolicy().explain(WRITE)
    assert (asked.kind, asked.reason) == ("ask", "mcp__fx__write can change files or run commands")
    assert [str(r) for r in asked.suggestions] == ["mcp__fx__write"]
