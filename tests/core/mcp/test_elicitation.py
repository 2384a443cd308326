"""Elicitation end to end: the fixture server's tools ask through ``elicitation/create`` over
stdio, the manager's broker hands a typed request to a handler (or declines without one),
and what the server received comes back in the tool's result."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent_tui.core.mcp.client.elicitation import (
    ElicitationAnswer,
    ElicitationNotice,
    ElicitationRequest,
    FormRequest,
    UrlRequest,
)
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import ROOT, python_entry, write_config

pytestmark = pytest.mark.asyncio(loop_scope="module")
SERVER = ROOT / "tests" / "mcp_servers" / "elicit_server.py"


def elicit_entry(**extra: Any) -> dict[str, Any]:
    return python_entry(str(SERVER), **extra)


class Scripted:
    """A handler that records each request and answers with the next scripted answer."""

    def __init__(self) -> None:
        self.requests: list[ElicitationRequest] = []
        self.answers: list[ElicitationAnswer] = []

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.requests.append(request)
        return self.answers.pop(0)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("elicit-project")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(project: Path) -> AsyncIterator[McpManager]:
    config = write_config(project / ".mcp.json", {"el": elicit_entry(timeout=60)})
    manager = McpManager(project, default_registry(), paths=[config])
    await manager.start()
    await manager.wait_ready()
    assert manager.state("el").status == "connected", manager.state("el").reason
    yield manager
    await manager.aclose()


async def call(manager: McpManager, project: Path, tool: str, **args: Any) -> dict[str, Any]:
    result = await manager.call("el", tool, args, ToolContext(cwd=project, call_id="t"))
    assert not result.is_error, result
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


async def test_a_form_answer_reaches_the_server(manager: McpManager, project: Path) -> None:
    handler = Scripted()
    manager.elicitation.handler = handler
    handler.answers.append(
        ElicitationAnswer("accept", {"email": "ada@example.com", "age": "41", "plan": "team"})
    )
    got = await call(manager, project, "signup")
    request = handler.requests[0]
    assert isinstance(request, FormRequest)
    assert request.server == "el"
    assert request.message == "Sign up for the newsletter"
    kinds = {f.name: f.kind for f in request.fields}
    assert kinds == {
        "name": "text",
        "email": "text",
        "age": "integer",
        "score": "number",
        "newsletter": "boolean",
        "plan": "choice",
        "colour": "choice",
        "tags": "multi",
    }
    assert request.initial() == {
        "name": "Ada",
        "age": 30,
        "score": 9.5,
        "newsletter": True,
        "plan": "pro",
        "tags": ["a"],
    }
    # validated and typed (age as an integer), the defaults filled in for the rest
    assert got == {
        "action": "accept",
        "content": {
            "name": "Ada",
            "email": "ada@example.com",
            "age": 41,
            "score": 9.5,
            "newsletter": True,
            "plan": "team",
            "tags": ["a"],
        },
    }


async def test_decline_and_cancel_reach_the_server(manager: McpManager, project: Path) -> None:
    handler = Scripted()
    manager.elicitation.handler = handler
    handler.answers += [ElicitationAnswer("decline"), ElicitationAnswer("cancel")]
    assert (await call(manager, project, "signup")) == {"action": "decline", "content": None}
    assert (await call(manager, project, "signup")) == {"action": "cancel", "content": None}


async def test_an_answer_that_does_not_fit_is_never_sent(
    manager: McpManager, project: Path
) -> None:
    handler = Scripted()
    manager.elicitation.handler = handler
    notices: list[ElicitationNotice] = []
    unsubscribe = manager.elicitation.add_listener(notices.append)
    handler.answers.append(ElicitationAnswer("accept", {"email": "not an email", "age": 500}))
    try:
        got = await call(manager, project, "signup")
    finally:
        unsubscribe()
    assert got == {"action": "decline", "content": None}
    assert "email: enter an email address" in notices[0].reason
    assert "age: at most 150" in notices[0].reason


async def test_url_mode_gives_the_domain(manager: McpManager, project: Path) -> None:
    handler = Scripted()
    manager.elicitation.handler = handler
    handler.answers.append(ElicitationAnswer("accept"))
    got = await call(manager, project, "visit")
    request = handler.requests[0]
    assert isinstance(request, UrlRequest)
    assert request.domain == "auth.example.com"
    assert request.url == "https://auth.example.com/connect?x=1"
    assert request.elicitation_id in (None, "e-1")  # removed from the wire at 2026-07-28
    assert got == {"action": "accept", "content": None}


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        (
            {"type": "object", "properties": {"o": {"type": "object", "properties": {}}}},
            "unsupported type 'object'",
        ),
        ({"type": "object", "properties": {"r": {"$ref": "http://127.0.0.1:9/x"}}}, "$ref"),
        (
            {"type": "object", "properties": {"s": {"type": "string", "format": "ipv4"}}},
            "unsupported format 'ipv4'",
        ),
    ],
)
async def test_unsupported_schemas_are_declined_with_the_reason(
    manager: McpManager, project: Path, schema: dict[str, Any], why: str
) -> None:
    handler = Scripted()
    manager.elicitation.handler = handler
    notices: list[ElicitationNotice] = []
    unsubscribe = manager.elicitation.add_listener(notices.append)
    try:
        got = await call(manager, project, "ask_raw", schema=json.dumps(schema))
    finally:
        unsubscribe()
    assert got == {"action": "decline", "content": None}
    assert handler.requests == []  # the handler never saw it
    assert why in notices[0].reason
    assert "cannot show" in notices[0].reason


async def test_a_non_https_url_is_declined(manager: McpManager, project: Path) -> None:
    handler = Scripted()
    manager.elicitation.handler = handler
    notices: list[ElicitationNotice] = []
    unsubscribe = manager.elicitation.add_listener(notices.append)
    try:
        got = await call(manager, project, "visit", url="file:///etc/passwd")
    finally:
        unsubscribe()
    assert got["action"] == "decline"
    assert handler.requests == []
    assert "scheme is 'file'" in notices[0].reason


async def test_without_a_handler_it_declines_like_headless(
    manager: McpManager, project: Path
) -> None:
    manager.elicitation.handler = None
    notices: list[ElicitationNotice] = []
    unsubscribe = manager.elicitation.add_listener(notices.append)
    try:
        got = await call(manager, project, "signup")
    finally:
        unsubscribe()
    assert got == {"action": "decline", "content": None}
    assert notices[0].server == "el"
    assert notices[0].mode == "form"
    assert "headless mode declines" in notices[0].reason
    assert "Sign up for the newsletter" in notices[0].reason
