"""A model's ``null`` for an optional argument whose schema refuses null is dropped before
validation (the conformance suite's "omit null"), against the real fixture server; a null
that is required, or that the schema allows, is left for validation to judge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.registry import null_free_optionals
from tests.core.mcp.conftest import fixture_entry, write_config


@pytest.mark.asyncio
async def test_a_null_optional_is_omitted_and_a_null_required_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path / ".mcp.json", {"fx": fixture_entry()})
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    ctx = ToolContext(cwd=tmp_path, call_id="c")
    try:
        await manager.start()
        await manager.wait_ready()
        assert manager.state("fx").status == "connected"
        dropped = await manager.registry.dispatch(
            "mcp__fx__slow", '{"steps": 1, "delay": null}', ctx
        )
        required = await manager.registry.dispatch("mcp__fx__slow", '{"steps": null}', ctx)
    finally:
        await manager.aclose()
    assert dropped.error is None, dropped.error
    assert dropped.output is not None
    assert required.error is not None
    assert required.error.code == "invalid_arguments"
    assert any("steps" in d for d in required.error.details)


@pytest.mark.parametrize(
    ("prop", "dropped"),
    [
        ({"type": "number"}, True),
        ({"type": ["string", "integer"]}, True),
        ({"enum": ["a", "b"]}, True),
        ({"const": 3}, True),
        ({"type": ["string", "null"]}, False),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, False),
        ({"enum": ["a", None]}, False),
        ({"$ref": "#/$defs/x"}, False),
        ({}, False),
        ({"type": "null"}, False),
    ],
)
def test_which_optionals_lose_their_null(prop: dict[str, Any], dropped: bool) -> None:
    schema = {"type": "object", "properties": {"p": prop, "r": {"type": "string"}}}
    assert null_free_optionals(schema) == ({"p", "r"} if dropped else {"r"})
    assert null_free_optionals({**schema, "required": ["p", "r"]}) == frozenset()
