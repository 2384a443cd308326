"""A raw JSON Schema never makes us fetch anything: remote ``$ref``s are refused, not retrieved.

A real HTTP server on 127.0.0.1 counts the requests it gets; a FIFO stands for a file that
must never be opened (opening it for reading would block until someone writes to it).
"""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.core.mcp.conftest import write_config
from tests.core.mcp.servers import status_server

from agent_tui.core.mcp.client.adapter import PLAIN_SCHEMA, wire_schema
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import JsonInput, Tool, ToolContext, ToolOutput
from agent_tui.core.tools.json_schema import schema_problem, validate_arguments
from agent_tui.core.tools.registry import ToolRegistry

DEADLINE = 20.0


class _Counting(http.server.BaseHTTPRequestHandler):
    """Answers every GET with a schema that would accept anything, and counts it."""

    requests: list[str]

    def do_GET(self) -> None:
        self.requests.append(self.path)
        body = json.dumps({"type": "object"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/schema+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def schema_server() -> Iterator[tuple[str, list[str]]]:
    """(base URL, the paths requested so far) of a live HTTP server on 127.0.0.1."""
    seen: list[str] = []
    handler = type("Handler", (_Counting,), {"requests": seen})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(DEADLINE)


def test_the_counting_server_does_count(schema_server: tuple[str, list[str]]) -> None:
    """The negative tests below mean something only if a request would have been seen."""
    import urllib.request

    base, seen = schema_server
    with urllib.request.urlopen(f"{base}/probe.json", timeout=DEADLINE) as response:
        assert json.load(response) == {"type": "object"}
    assert seen == ["/probe.json"]


def test_a_remote_ref_is_a_schema_problem_naming_it(schema_server: tuple[str, list[str]]) -> None:
    base, seen = schema_server
    url = f"{base}/x.json"
    problem = schema_problem({"$ref": url})
    assert problem is not None
    assert problem.startswith(
        f"the input schema refers to {url} ($ref at #), which is never fetched"
    )
    nested = {"type": "object", "properties": {"a": {"items": {"$ref": f"{base}/y.json#/a"}}}}
    assert f"{base}/y.json#/a ($ref at #/properties/a/items)" in (schema_problem(nested) or "")
    assert seen == []


def test_validating_against_a_remote_ref_refuses_and_fetches_nothing(
    schema_server: tuple[str, list[str]],
) -> None:
    base, seen = schema_server
    url = f"{base}/x.json"
    problems = validate_arguments({"$ref": url}, {"a": 1})
    assert len(problems) == 1
    assert problems[0].startswith(f"$: the input schema refers to {url} ($ref at #)")
    assert "never fetched" in problems[0]
    assert "refused" in problems[0]
    # A ref only some arguments would reach is refused for every call too.
    branch = {"type": "object", "properties": {"deep": {"anyOf": [{"$ref": f"{base}/z.json"}]}}}
    assert validate_arguments(branch, {}) != []
    assert validate_arguments(branch, {"deep": {"x": 1}}) != []
    relative = {"type": "object", "properties": {"a": {"$ref": "other.json"}}}
    assert "other.json" in validate_arguments(relative, {"a": 1})[0]
    assert seen == []


async def test_a_call_with_such_a_schema_is_refused_as_invalid_arguments(
    schema_server: tuple[str, list[str]], tmp_path: Path
) -> None:
    base, seen = schema_server
    url = f"{base}/args.json"
    ran: list[dict[str, Any]] = []

    async def call(inp: JsonInput, ctx: ToolContext) -> ToolOutput:
        ran.append(inp.model_dump())
        return ToolOutput("ran")

    tool = Tool(
        name="remote_ref",
        description="A tool whose schema points elsewhere.",
        input_model=JsonInput,
        call=call,
        input_schema={"type": "object", "properties": {"a": {"$ref": url}}},
    )
    outcome = await ToolRegistry([tool]).dispatch(
        "remote_ref", '{"a": 1}', ToolContext(cwd=tmp_path)
    )
    assert outcome.error is not None
    assert outcome.error.code == "invalid_arguments"
    assert any(url in line for line in outcome.error.details)
    assert ran == []
    assert seen == []


def test_mcp_tools_with_a_remote_ref_get_the_plain_schema_and_the_reason(
    schema_server: tuple[str, list[str]],
) -> None:
    """The adapter's rule for broken schemas holds: the model sees a plain object schema (the
    server judges the arguments), and ``mcp list`` / the panel show why."""
    base, seen = schema_server
    wired, problem = wire_schema({"type": "object", "properties": {"a": {"$ref": f"{base}/a"}}})
    assert wired == PLAIN_SCHEMA
    assert problem is not None
    assert f"{base}/a" in problem
    assert seen == []


def test_local_refs_still_resolve_and_validate() -> None:
    schema = {
        "type": "object",
        "$defs": {"name": {"type": "string", "minLength": 1}},
        "properties": {
            "a": {"$ref": "#/$defs/name"},
            "b": {"$ref": "#/properties/a"},
            "c": {"type": "array", "items": {"$ref": "#/$defs/name"}},
        },
        "required": ["a"],
    }
    assert schema_problem(schema) is None
    assert validate_arguments(schema, {"a": "x", "b": "y", "c": ["z"]}) == []
    problems = validate_arguments(schema, {"a": 1, "b": "", "c": ["ok", 2]})
    assert [p.split(":")[0] for p in problems] == ["$.a", "$.b", "$.c[1]"]


def test_id_anchored_subschemas_and_anchors_resolve() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "s": {"$id": "https://example.invalid/s.json", "type": "string"},
            "n": {"$anchor": "num", "type": "integer"},
        },
        "properties": {"s": {"$ref": "https://example.invalid/s.json"}, "n": {"$ref": "#num"}},
    }
    assert schema_problem(schema) is None
    assert validate_arguments(schema, {"s": "ok", "n": 3}) == []
    assert [p.split(":")[0] for p in validate_arguments(schema, {"s": 1, "n": "x"})] == [
        "$.n",
        "$.s",
    ]


def test_draft_07_definitions_resolve() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {"x": {"type": "integer"}},
        "properties": {"a": {"$ref": "#/definitions/x"}},
    }
    assert schema_problem(schema) is None
    assert validate_arguments(schema, {"a": "nope"})[0].startswith("$.a: ")


def test_a_pointer_to_nowhere_is_named_too() -> None:
    schema = {"type": "object", "properties": {"a/b": {"$ref": "#/$defs/missing"}}}
    problem = schema_problem(schema)
    assert problem == (
        "the input schema refers to #/$defs/missing ($ref at #/properties/a~1b), "
        "which is not in the schema"
    )
    assert "#/$defs/missing" in validate_arguments(schema, {"a/b": 1})[0]


def test_refs_are_looked_for_only_where_schemas_are() -> None:
    """A ``$ref`` inside ``default`` / ``const`` / ``enum`` is data, not a reference."""
    schema = {
        "type": "object",
        "default": {"$ref": "http://127.0.0.1:9/x"},
        "properties": {"a": {"const": {"$ref": "file:///etc/passwd"}}},
    }
    assert schema_problem(schema) is None
    assert validate_arguments(schema, {"a": {"$ref": "file:///etc/passwd"}}) == []


def test_a_file_ref_is_refused_without_reading_the_file() -> None:
    problem = schema_problem(
        {"type": "object", "properties": {"p": {"$ref": "file:///etc/passwd"}}}
    )
    assert problem is not None
    assert "file:///etc/passwd ($ref at #/properties/p), which is never fetched" in problem
    assert "root:" not in problem
    problems = validate_arguments({"$ref": "file:///etc/passwd"}, {})
    assert len(problems) == 1
    assert "file:///etc/passwd" in problems[0]
    assert "root:" not in problems[0]


async def test_a_file_ref_to_a_fifo_never_opens_it(tmp_path: Path) -> None:
    """Opening a FIFO for reading blocks until a writer comes: had anything tried to read the
    ref, these checks would hang (and the deadline below would fail the test)."""
    fifo = tmp_path / "schema.fifo"
    os.mkfifo(fifo)
    schema = {"type": "object", "properties": {"p": {"$ref": fifo.as_uri()}}}

    def check() -> tuple[str | None, list[str]]:
        return schema_problem(schema), validate_arguments(schema, {"p": 1})

    worker = asyncio.create_task(asyncio.to_thread(check))
    try:
        problem, problems = await asyncio.wait_for(asyncio.shield(worker), DEADLINE)
    finally:
        if not worker.done():  # unblock a reader stuck in open() so the thread can end
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
            await worker
    assert problem is not None
    assert fifo.as_uri() in problem
    assert fifo.as_uri() in problems[0]


async def test_a_real_servers_tool_with_a_remote_ref_never_fetches_it(
    schema_server: tuple[str, list[str]], tmp_path: Path
) -> None:
    """Through the manager, from a real MCP server on 127.0.0.1 whose tool schema points at
    the counting server: listed with the problem, the model shown a plain object schema, the
    call still made, and nothing ever fetched."""
    base, seen = schema_server
    with status_server(ref=f"{base}/arg.json") as url:
        config = write_config(tmp_path / ".mcp.json", {"web": {"type": "http", "url": url}})
        manager = McpManager(tmp_path, ToolRegistry(), paths=[config])
        try:
            await manager.start()
            await manager.wait_ready()
            info = next(t for t in manager.tool_infos() if t.remote_name == "refd")
            ctx = ToolContext(cwd=tmp_path, call_id="c")
            outcome = await manager.registry.dispatch(info.name, '{"a": 1}', ctx)
            wire = manager.registry.anthropic_tools_json()
        finally:
            await manager.aclose()
    assert info.schema_problem is not None
    assert f"{base}/arg.json" in info.schema_problem
    assert "never fetched" in info.schema_problem
    assert f"{base}/arg.json" not in wire  # the model gets the plain object schema
    # Its schema replaced by a plain object, the tool stays callable (the server validates).
    assert outcome.output is not None
    assert outcome.output.content == "refd ran"
    assert seen == []
