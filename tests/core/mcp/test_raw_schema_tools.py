"""Registry entries with a raw JSON Schema (how MCP tools are registered)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.tools.base import JsonInput, Tool, ToolContext, ToolOutput
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.json_schema import schema_problem, validate_arguments
from agent_tui.core.tools.registry import ToolRegistry

SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "count": {"type": "integer", "minimum": 0},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}},
                "required": ["id"],
                "additionalProperties": False,
            },
        },
        "mode": {"enum": ["fast", "slow"]},
    },
    "required": ["name"],
    "additionalProperties": False,
}


async def _echo(arguments: JsonInput, _: ToolContext) -> ToolOutput:
    return ToolOutput(json.dumps(arguments.model_dump(), sort_keys=True))


def _tool(schema: dict[str, Any] = SCHEMA) -> Tool[JsonInput]:
    return Tool("mcp__s__t", "A remote tool.", JsonInput, _echo, input_schema=schema)


def test_the_raw_schema_is_what_the_model_sees_in_both_wire_formats() -> None:
    registry = default_registry()
    registry.register(_tool())
    openai = {t["function"]["name"]: t["function"] for t in registry.openai_tools()}
    anthropic = {t["name"]: t for t in registry.anthropic_tools()}
    assert openai["mcp__s__t"]["parameters"] == SCHEMA
    assert anthropic["mcp__s__t"]["input_schema"] == SCHEMA
    # The built-ins are unchanged (their schema still comes from their pydantic model).
    assert openai["read_file"]["parameters"]["properties"]["path"]["type"] == "string"


async def test_valid_arguments_reach_the_tool_unchanged(tmp_path: Path) -> None:
    registry = ToolRegistry([_tool()])
    args = {"name": "x", "count": 2, "items": [{"id": 1}], "mode": "fast"}
    outcome = await registry.dispatch("mcp__s__t", json.dumps(args), ToolContext(cwd=tmp_path))
    assert outcome.output is not None
    assert json.loads(outcome.output.content) == args


async def test_schema_violations_are_structured_with_json_paths(tmp_path: Path) -> None:
    registry = ToolRegistry([_tool()])
    bad = {"count": -1, "items": [{"id": "one"}, {}, {"id": 2, "extra": 1}], "mode": "x", "z": 1}
    outcome = await registry.dispatch("mcp__s__t", json.dumps(bad), ToolContext(cwd=tmp_path))
    assert outcome.error is not None
    assert outcome.error.code == "invalid_arguments"
    details = outcome.error.details
    assert "$.name: required field is missing" in details
    assert "$.z: unknown field (not in the schema)" in details
    assert "$.items[1].id: required field is missing" in details
    assert "$.items[2].extra: unknown field (not in the schema)" in details
    assert any(d.startswith("$.count: ") and "-1" in d for d in details)
    assert any(d.startswith("$.items[0].id: ") and "integer" in d for d in details)
    assert any(d.startswith("$.mode: ") for d in details)
    assert outcome.error.retryable is True
    assert str(len(details)) in outcome.error.message


def test_broken_schemas_are_detected_and_validate_nothing() -> None:
    assert schema_problem(SCHEMA) is None
    assert schema_problem({"properties": {}}) is None
    assert "not a valid JSON Schema" in (schema_problem({"type": "object", "required": 3}) or "")
    assert "must be an object" in (schema_problem({"type": "array"}) or "")
    assert "not a JSON object" in (schema_problem(["x"]) or "")
    # A schema the validator cannot use never blocks a call: the server will judge.
    assert validate_arguments({"type": "object", "required": 3}, {"a": 1}) == []
    # ... except a remote $ref: it is never fetched, so the call is refused naming it
    # (tests/core/tools/test_json_schema_refs.py).
    refused = validate_arguments({"$ref": "http://127.0.0.1:9/nope.json"}, {"a": 1})
    assert len(refused) == 1
    assert "http://127.0.0.1:9/nope.json" in refused[0]


def test_many_problems_are_capped() -> None:
    schema = {"type": "object", "additionalProperties": False}
    problems = validate_arguments(schema, {f"k{i}": i for i in range(50)})
    assert len(problems) == 21
    assert problems[-1].startswith("...")


async def test_tools_without_a_raw_schema_behave_as_before(tmp_path: Path) -> None:
    registry = default_registry()
    outcome = await registry.dispatch(
        "read_file", json.dumps({"path": 3, "bogus": 1}), ToolContext(cwd=tmp_path)
    )
    assert outcome.error is not None
    assert "$.bogus: unknown field (not in the schema)" in outcome.error.details
