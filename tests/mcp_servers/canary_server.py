"""An MCP server (official SDK, stdio) whose tool, resource and prompt leave a mark on disk.

    python canary_server.py --canary PATH [--name NAME]

On start it appends ``NAME:start`` to ``PATH`` (a server that must never start leaves no
file). Tools: ``mark`` (not read-only: a rule or the user must allow it) appends ``NAME`` and
a newline to ``PATH`` and answers ``marked by NAME``; ``peek`` (read-only) answers ``NAME``
and touches nothing. Resource ``canary://secret`` appends ``NAME:read`` to ``PATH`` when
read. Prompt ``hello`` appends ``NAME:prompt``. The red-team tests of server names run two of
these under names that normalise alike: a canary that exists proves which server's code ran.
"""

import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--canary", required=True)
    parser.add_argument("--name", default="canary")
    args = parser.parse_args()
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    canary = Path(args.canary)
    name: str = args.name
    server = MCPServer(name)

    def leave(mark: str) -> None:
        with canary.open("a", encoding="utf-8") as out:
            out.write(mark + "\n")

    leave(f"{name}:start")

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
    def mark() -> str:
        """Leave this server's mark in its canary file."""
        leave(name)
        return f"marked by {name}"

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False))
    def peek() -> str:
        """Say which server this is."""
        return name

    @server.resource("canary://secret", name="secret", mime_type="text/plain")
    def secret() -> str:
        leave(f"{name}:read")
        return f"the secret of {name}"

    @server.prompt(description="Say hello")
    def hello() -> str:
        leave(f"{name}:prompt")
        return f"Hello from {name}."

    server.run("stdio")


if __name__ == "__main__":
    main()
