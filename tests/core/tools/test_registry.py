"""Dispatch through a registry built with default_registry(): every failure is structured."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.text.utf8 import first_surrogate
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolMeta, ToolOutput
from agent_tui.core.tools.builtin import builtin_tools, default_registry
from agent_tui.core.tools.registry import PreparedCall, _may_hold_surrogate
from agent_tui.core.tools.schema import input_schema

BUILTINS = [
    "edit_file",
    "exit_plan_mode",
    "glob",
    "grep",
    "list_dir",
    "read_file",
    "run_shell",
    "shell_kill",
    "shell_output",
    "update_plan",
    "web_fetch",
    "write_file",
]
READ_ONLY = {
    "exit_plan_mode",
    "glob",
    "grep",
    "list_dir",
    "read_file",
    "update_plan",
    "web_fetch",
}
READ_ONLY |= {"shell_output", "shell_kill"}  # only the session's own background jobs
SERIALISED = {"update_plan", "exit_plan_mode", "shell_kill"}
"""Read-only, but its calls run one after the other (the last plan wins; one review at a
time; one kill at a time)."""


class _Empty(ToolInput):
    pass


async def _explode(inp: _Empty, ctx: ToolContext) -> ToolOutput:
    raise RuntimeError("kaboom")


async def _hang(inp: _Empty, ctx: ToolContext) -> ToolOutput:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


def test_default_registry_holds_the_builtins_sorted() -> None:
    registry = default_registry()
    assert registry.names() == BUILTINS
    assert [t.name for t in builtin_tools()] == BUILTINS
    assert default_registry() is not registry


def test_metadata_of_the_builtins() -> None:
    for tool in builtin_tools():
        assert tool.meta.read_only is (tool.name in READ_ONLY), tool.name
        safe = tool.name in READ_ONLY - SERIALISED
        assert tool.meta.concurrency_safe is safe, tool.name
    # Tools that must finish once started have no dispatch timeout (run_shell times itself).
    by_name = {t.name: t for t in builtin_tools()}
    assert by_name["write_file"].timeout is None
    assert by_name["edit_file"].timeout is None
    assert by_name["run_shell"].timeout is None
    assert by_name["exit_plan_mode"].timeout is None  # it waits for a person


def test_fail_closed_meta_defaults() -> None:
    assert ToolMeta() == ToolMeta(read_only=False, concurrency_safe=False, destructive=False)
    tool = Tool(name="t", description="d", input_model=_Empty, call=_explode)
    assert tool.meta.read_only is False
    assert tool.meta.concurrency_safe is False


def test_every_input_field_is_described_for_the_model() -> None:
    for tool in builtin_tools():
        assert tool.description.strip(), tool.name
        schema = input_schema(tool.input_model)
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        for name, prop in schema["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name}"


def test_schemas_leave_out_what_json_schema_assumes() -> None:
    """``"additionalProperties": true`` (what a ``dict[str, Any]`` field says) is JSON Schema's
    default: not written, it would cost tokens in every request; ``false`` (the input models'
    ``extra="forbid"``) stays, and so does a property of that name."""
    from typing import Any

    from pydantic import Field

    class Loose(ToolInput):
        options: dict[str, Any] = Field(default_factory=dict, description="Anything.")
        additionalProperties: bool = Field(default=True, description="A field of that name.")

    schema = input_schema(Loose)
    assert schema["additionalProperties"] is False
    assert schema["properties"]["options"] == {"description": "Anything.", "type": "object"}
    assert schema["properties"]["additionalProperties"]["default"] is True


def test_a_models_schema_is_made_once_and_handed_out_as_a_new_dict() -> None:
    """``input_schema`` reads the schema pydantic made once per model (``schema_text``): the
    same schema each call, in a dict of its own (a caller that changes it changes no other)."""
    from agent_tui.core.tools.schema import schema_text

    class Once(ToolInput):
        path: str

    first = input_schema(Once)
    assert first["type"] == "object"
    assert first["properties"] == {"path": {"type": "string"}}
    assert first["required"] == ["path"]
    assert list(first) == list(input_schema(Once))  # the same keys in the same order
    first["properties"]["path"]["type"] = "changed"
    assert input_schema(Once)["properties"]["path"] == {"type": "string"}
    before = schema_text.cache_info().hits
    input_schema(Once)
    assert schema_text.cache_info().hits == before + 1


def test_tool_arrays_are_sorted_and_byte_identical_across_registries() -> None:
    one, two = default_registry(), default_registry()
    assert one.openai_tools_json() == two.openai_tools_json()
    assert one.anthropic_tools_json() == two.anthropic_tools_json()
    assert [t["function"]["name"] for t in one.openai_tools()] == BUILTINS
    assert [t["name"] for t in one.anthropic_tools()] == BUILTINS
    # Stable across repeated calls too (cached, and the same when rebuilt).
    assert one.openai_tools_json() == one.openai_tools_json()


async def test_unknown_tool_suggests_closest_names(ctx: ToolContext) -> None:
    outcome = await default_registry().dispatch("read_fil", "{}", ctx)
    assert outcome.error is not None
    assert outcome.error.code == "unknown_tool"
    assert "closest: read_file" in outcome.error.details
    assert "read_file" in outcome.error.next_step


async def test_invalid_json(ctx: ToolContext) -> None:
    outcome = await default_registry().dispatch("read_file", '{"path": "a.txt",', ctx)
    assert outcome.error is not None
    assert outcome.error.code == "invalid_json"
    assert outcome.error.retryable is True


async def test_schema_violation_names_the_json_path(ctx: ToolContext) -> None:
    registry = default_registry()
    outcome = await registry.dispatch("read_file", '{"path": "a.txt", "limit": 0}', ctx)
    assert outcome.error is not None
    assert outcome.error.code == "invalid_arguments"
    assert any(d.startswith("$.limit:") for d in outcome.error.details)

    outcome = await registry.dispatch("run_shell", '{"command": "ls", "bogus": 1}', ctx)
    assert outcome.error is not None
    assert "$.bogus: unknown field (not in the schema)" in outcome.error.details

    outcome = await registry.dispatch("edit_file", '{"path": "a.txt"}', ctx)
    assert outcome.error is not None
    assert "$.old_string: required field is missing" in outcome.error.details


async def test_tool_failure_becomes_a_structured_error(ctx: ToolContext) -> None:
    outcome = await default_registry().dispatch("read_file", '{"path": "missing.txt"}', ctx)
    assert outcome.error is not None
    assert outcome.error.code == "not_found"
    text = json.loads(outcome.error.to_model_text())
    assert text["code"] == "not_found"
    assert text["next_step"]


async def test_handler_exception_is_contained(ctx: ToolContext) -> None:
    registry = default_registry()
    registry.register(Tool(name="explode", description="d", input_model=_Empty, call=_explode))
    outcome = await registry.dispatch("explode", None, ctx)
    assert outcome.error is not None
    assert outcome.error.code == "tool_exception"
    assert "RuntimeError: kaboom" in outcome.error.message


async def test_dispatch_timeout(ctx: ToolContext) -> None:
    registry = default_registry()
    registry.register(
        Tool(name="hang", description="d", input_model=_Empty, call=_hang, timeout=0.1)
    )
    outcome = await registry.dispatch("hang", "{}", ctx)
    assert outcome.error is not None
    assert outcome.error.code == "timeout"
    assert "0.1 seconds" in outcome.error.message


async def test_write_read_edit_round_trip_through_dispatch(
    ctx: ToolContext, tmp_path: Path
) -> None:
    registry = default_registry()
    args = json.dumps({"path": "pkg/m.py", "content": "A = 1\nB = 2\n"})
    assert (await registry.dispatch("write_file", args, ctx)).ok
    read = await registry.dispatch("read_file", '{"path": "pkg/m.py"}', ctx)
    assert read.output is not None
    assert read.output.content.startswith("     1\tA = 1\n")
    edit = json.dumps({"path": "pkg/m.py", "old_string": "B = 2", "new_string": "B = 3"})
    outcome = await registry.dispatch("edit_file", edit, ctx)
    assert outcome.output is not None
    assert outcome.output.data["replacements"] == 1
    assert (tmp_path / "pkg" / "m.py").read_text() == "A = 1\nB = 3\n"
    shell = await registry.dispatch("run_shell", '{"command": "cat pkg/m.py"}', ctx)
    assert shell.output is not None
    assert shell.output.content == "A = 1\nB = 3\n[exit code 0]"


def test_builtins_never_import_textual_or_rich() -> None:
    src = Path(__file__).resolve().parents[3] / "src"
    code = (
        "import sys, agent_tui.core.tools.builtin as b; b.default_registry(); "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


async def test_a_handler_raising_timeout_error_itself_is_a_plain_failure(tmp_path) -> None:
    from agent_tui.core.tools import Tool, ToolContext, ToolInput, ToolRegistry

    class Empty(ToolInput):
        pass

    async def raises(_: Empty, __: ToolContext) -> ToolOutput:
        raise TimeoutError("upstream took too long")

    for timeout in (None, 30.0):
        registry = ToolRegistry([Tool("t", "d", Empty, raises, timeout=timeout)])
        outcome = await registry.dispatch("t", "{}", ToolContext(cwd=tmp_path))
        assert outcome.error is not None
        assert outcome.error.code == "tool_exception"
        assert "upstream took too long" in outcome.error.message


_TEXT = st.text(
    st.sampled_from(["a", "\\", "u", "\u00e9", "\U0001f600", "\udce9", "\ud83d", "\ude00"])
    | st.characters(max_codepoint=0xFFFF, categories=["Cs", "Ll", "Lo", "Nd"])
)
"""Strings with lone surrogates (high, low, and pairs that are not), backslashes and more."""
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(value=_JSON_VALUES, ascii_only=st.booleans())
def test_the_surrogate_shortcut_never_misses_one(value: object, ascii_only: bool) -> None:
    """``prepare`` walks the parsed arguments for a lone surrogate only when their JSON text
    may hold one: that shortcut must agree with the walk on every JSON text (escaped, as
    providers send, or with the characters themselves)."""
    text = json.dumps(value, ensure_ascii=ascii_only)
    if first_surrogate(json.loads(text)) is not None:
        assert _may_hold_surrogate(text)


def test_a_lone_surrogate_escape_in_the_arguments_is_refused() -> None:
    registry = default_registry()
    for raw in ('{"path": "caf\\udce9"}', '{"path": "caf\udce9"}'):
        prepared = registry.prepare("read_file", raw)
        assert not isinstance(prepared, PreparedCall)
        assert prepared.code == "invalid_arguments"
        assert "surrogate" in prepared.message
    assert isinstance(registry.prepare("read_file", '{"path": "caf\\u00e9"}'), PreparedCall)
