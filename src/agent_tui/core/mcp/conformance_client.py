"""The client the MCP conformance suite drives: our own MCP client, end to end.

    python -m agent_tui.core.mcp.conformance_client URL

``@modelcontextprotocol/conformance client --command "..."`` starts a test server for a
scenario, appends its URL to the command and names the scenario in
``MCP_CONFORMANCE_SCENARIO``. This entry connects to that URL as one streamable HTTP server of
an ``McpManager`` — the same configuration parsing, connection task, tool naming and registry
the agent uses — then does what the scenario expects:

- ``initialize``: connect (handshake and ``tools/list``), then close;
- any other scenario: connect, then call every tool the server lists through
  ``ToolRegistry.dispatch`` (JSON Schema validation, the manager, the conversion to what the
  model reads), with arguments made from each tool's input schema (``add_numbers`` of the
  ``tools_call`` scenario gets ``{"a": 2, "b": 3}``).

A server's ``elicitation/create`` goes through the manager's broker (schema parsing and
validation) to a handler that accepts with the schema's defaults, as SEP-1034 wants of a
client (``elicitation.accept_defaults``); URL-mode requests are declined.

It prints what the model would read of each call and exits 0, or 1 with the reason when the
server did not connect or a call failed. Nothing here is used by the agent itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from agent_tui.core.mcp.elicitation import ElicitationAnswer, ElicitationRequest, accept_defaults
from agent_tui.core.mcp.manager import McpManager
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.trust import ProjectTrust

SERVER = "conformance"
SAMPLES: dict[str, Any] = {
    "number": 2,
    "integer": 3,
    "string": "conformance",
    "boolean": True,
    "array": [],
    "object": {},
}


def sample_arguments(schema: Any) -> dict[str, Any]:
    """Arguments for an input schema: each required property gets its ``default``, its first
    ``enum`` value, or a sample of its type (numbers 2, 3, 4, ...)."""
    if not isinstance(schema, dict):
        return {}
    properties = schema.get("properties") or {}
    arguments: dict[str, Any] = {}
    counter = 2
    for name in schema.get("required") or []:
        prop = properties.get(name) if isinstance(properties, dict) else None
        prop = prop if isinstance(prop, dict) else {}
        if "default" in prop:
            arguments[name] = prop["default"]
        elif isinstance(prop.get("enum"), list) and prop["enum"]:
            arguments[name] = prop["enum"][0]
        else:
            kind = prop.get("type")
            kind = kind[0] if isinstance(kind, list) and kind else kind
            if kind in ("number", "integer"):
                arguments[name] = counter
                counter += 1
            else:
                arguments[name] = SAMPLES.get(str(kind), "conformance")
    return arguments


async def run(url: str, scenario: str, work: Path) -> int:
    config = work / "mcp.json"
    entry = {"type": "http", "url": url, "timeout": 30, "startup_timeout": 20}
    config.write_text(json.dumps({"mcpServers": {SERVER: entry}}), encoding="utf-8")
    manager = McpManager(
        work,
        ToolRegistry(),
        paths=[config],
        disabled_file=work / "settings.local.json",
        trust=ProjectTrust(work, path=work / "trust.json"),
        media_dir=work / "media",
    )
    manager.elicitation.handler = _accept_defaults
    await manager.start()
    try:
        await manager.wait_ready()
        state = manager.state(SERVER)
        print(f"{SERVER}: {state.status} (protocol {state.protocol_version})", flush=True)
        if state.status != "connected":
            print(f"the server did not connect: {state.reason}", file=sys.stderr)
            return 1
        if scenario == "initialize":
            return 0
        ctx = ToolContext(cwd=work)
        failed = 0
        for info in state.tools:
            if info.unavailable is not None:
                print(f"{info.name}: not offered ({info.unavailable})", flush=True)
                continue
            schema = manager.registry.get(info.name)
            arguments = sample_arguments(schema.input_schema if schema else None)
            outcome = await manager.registry.dispatch(info.name, json.dumps(arguments), ctx)
            if outcome.output is not None:
                print(f"{info.name}({json.dumps(arguments)}): {outcome.output.content}", flush=True)
            else:
                failed += 1
                error = outcome.error
                print(f"{info.name}: {error.message if error else 'no result'}", file=sys.stderr)
        return 1 if failed else 0
    finally:
        await manager.aclose()


async def _accept_defaults(request: ElicitationRequest) -> ElicitationAnswer:
    answer = accept_defaults(request)
    print(f"elicitation ({request.message!r}): {answer.action} {answer.content}", flush=True)
    return answer


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m agent_tui.core.mcp.conformance_client URL", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    with tempfile.TemporaryDirectory(prefix="agent-tui-conformance-") as tmp:
        return asyncio.run(run(args[0], scenario, Path(tmp)))


if __name__ == "__main__":
    raise SystemExit(main())
