"""The built-in tools' input schemas stored ahead (``core.tools.schema.STORED``, issue 45) are
what pydantic makes now, for every tool input model of the core; a stored one is used only
for the same pydantic version and fields. Rewrite the file after changing a tool's input::

    PYTHONPATH=src:. python -m tests.core.tools.test_stored_schemas
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from typing import Any

import pytest
from pydantic import BaseModel

from agent_tui.core.tools import builtin, schema
from agent_tui.core.tools.base import ToolInput

MODULES = (
    "agent_tui.core.skills.tool",
    "agent_tui.core.disclosure.proxies",
    "agent_tui.core.subagents.tool",
    "agent_tui.core.mcp.client.resource_hub",
    "agent_tui.core.mcp.server.search_files",
)
"""Where tool inputs are defined outside ``core.tools.builtin``."""


def tool_inputs() -> list[type[BaseModel]]:
    """Every tool input model the core defines (the built-in tools', the skill, disclosure,
    subagent and MCP resource tools', the MCP server's), by name: the ``ToolInput`` classes
    of those modules (not whatever subclasses other tests of this process made)."""
    names = [f"{builtin.__name__}.{found.name}" for found in pkgutil.iter_modules(builtin.__path__)]
    models: dict[str, type[BaseModel]] = {}
    for name in (*names, *MODULES):
        module = importlib.import_module(name)
        for value in vars(module).values():
            ours = isinstance(value, type) and getattr(value, "__module__", "") == name
            if ours and issubclass(value, ToolInput):
                models[schema.model_name(value)] = value
    return [models[name] for name in sorted(models)]


def stored_now() -> dict[str, Any]:
    """What ``STORED`` holds when it is current."""
    return {
        "pydantic": schema.PYDANTIC_VERSION,
        "schemas": {
            schema.model_name(m): {
                "fields": list(m.model_fields),
                "schema": schema.made_schema_text(m),
            }
            for m in tool_inputs()
        },
    }


def test_the_stored_schemas_are_what_pydantic_makes_now() -> None:
    stored = json.loads(schema.STORED.read_text("utf-8"))
    now = stored_now()
    assert len(now["schemas"]) >= 19
    assert stored == now, (
        "rewrite it: PYTHONPATH=src:. python -m tests.core.tools.test_stored_schemas"
    )


def test_schema_text_reads_a_stored_schema() -> None:
    from agent_tui.core.tools.builtin.read_file import ReadFileInput

    stored = json.loads(schema.STORED.read_text("utf-8"))["schemas"]
    assert schema.schema_text(ReadFileInput) == stored[schema.model_name(ReadFileInput)]["schema"]


def test_another_pydantic_version_makes_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema, "PYDANTIC_VERSION", "0.0.0")
    schema._stored.cache_clear()
    try:
        assert schema._stored() == {}
    finally:
        monkeypatch.undo()
        schema._stored.cache_clear()
    assert schema._stored() != {}


def test_a_model_of_other_fields_makes_its_own() -> None:
    class GlobInput(BaseModel):  # a stored name, other fields
        other: int = 1

    GlobInput.__module__ = "agent_tui.core.tools.builtin.glob_tool"
    GlobInput.__qualname__ = "GlobInput"
    assert schema.model_name(GlobInput) in schema._stored()
    made = json.loads(schema.schema_text(GlobInput))
    assert list(made["properties"]) == ["other"]


if __name__ == "__main__":
    text = json.dumps(stored_now(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    schema.STORED.write_text(text, "utf-8")
    print(f"wrote {schema.STORED}")
