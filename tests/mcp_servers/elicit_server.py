"""An MCP server (official SDK, stdio) whose tools ask the client for input, for tests.

    python elicit_server.py

Tools (each returns, as JSON text, what the client answered: ``{"action": ..., "content":
...}``):

- ``signup``: a form with text (``name``, default ``Ada``), email (``email``, required), an
  integer with bounds (``age``, 0–150, default 30), a number (``score``, default 9.5), a
  boolean (``newsletter``, default true), an enum (``plan``: free/pro/team, default
  ``pro``), a titled single choice (``colour``, ``oneOf``) and a multi-select (``tags``);
- ``ask_raw(schema)``: a form with the given requested schema (JSON text), as it is;
- ``visit(url)``: a URL-mode request for ``url`` (default ``https://auth.example.com/...``).
"""

import json
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    InputRequiredResult,
)

MODERN = "2026-07-28"

SIGNUP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "default": "Ada", "maxLength": 40},
        "email": {"type": "string", "title": "Email", "format": "email"},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150, "default": 30},
        "score": {"type": "number", "title": "Score", "default": 9.5},
        "newsletter": {"type": "boolean", "title": "Newsletter", "default": True},
        "plan": {
            "type": "string",
            "title": "Plan",
            "enum": ["free", "pro", "team"],
            "default": "pro",
        },
        "colour": {
            "type": "string",
            "title": "Colour",
            "oneOf": [
                {"const": "r", "title": "Red"},
                {"const": "g", "title": "Green"},
            ],
        },
        "tags": {
            "type": "array",
            "title": "Tags",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "default": ["a"],
        },
    },
    "required": ["email"],
}


def _result(answer: Any) -> str:
    return json.dumps(
        {"action": answer.action, "content": answer.content}, sort_keys=True, default=str
    )


async def _ask(ctx: Context, params: Any) -> str | InputRequiredResult:
    """Ask the way the negotiated protocol wants: on 2026-07-28 an ``InputRequiredResult``
    the client answers by retrying the call; before, an ``elicitation/create`` request."""
    if (ctx.protocol_version or "") >= MODERN:
        responses = ctx.input_responses
        if responses and "q" in responses:
            return _result(responses["q"])
        return InputRequiredResult(
            input_requests={"q": ElicitRequest(params=params)}, request_state="asked"
        )
    session = ctx.request_context.session
    if isinstance(params, ElicitRequestURLParams):
        answer = await session.elicit_url(params.message, params.url, params.elicitation_id)
    else:
        answer = await session.elicit_form(params.message, params.requested_schema)
    return _result(answer)


def build() -> MCPServer:
    server = MCPServer("elicit")

    @server.tool()
    async def signup(ctx: Context) -> str | InputRequiredResult:
        """Ask the user to sign up (a form)."""
        params = ElicitRequestFormParams(
            message="Sign up for the newsletter", requested_schema=SIGNUP_SCHEMA
        )
        return await _ask(ctx, params)

    @server.tool()
    async def ask_raw(schema: str, ctx: Context) -> str | InputRequiredResult:
        """Ask with the requested schema given as JSON text."""
        params = ElicitRequestFormParams(
            message="Raw question", requested_schema=json.loads(schema)
        )
        return await _ask(ctx, params)

    @server.tool()
    async def visit(
        ctx: Context, url: str = "https://auth.example.com/connect?x=1"
    ) -> str | InputRequiredResult:
        """Ask the user to visit a URL (URL mode)."""
        params = ElicitRequestURLParams(
            message="Connect your account", url=url, elicitation_id="e-1"
        )
        return await _ask(ctx, params)

    return server


def main() -> None:
    build().run()
    sys.exit(0)


if __name__ == "__main__":
    main()
