"""``result_type.stamped``: a result without ``resultType`` is read as complete; a result
that names its type, an error, a request and a notification pass unchanged. The wire case (a
2026-07-28 server that omits it) is the conformance suite's ``sep-2322-client-request-state``."""

from __future__ import annotations

from mcp.shared.message import SessionMessage
from mcp.types import ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCResponse

from agent_tui.core.mcp.client.result_type import stamped


def test_a_result_without_a_type_is_complete() -> None:
    item = stamped(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=1, result={"content": []})))
    assert item.message.result == {"content": [], "resultType": "complete"}


def test_a_result_that_names_its_type_keeps_it() -> None:
    result = {"resultType": "input_required", "inputRequests": {}}
    item = stamped(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=1, result=dict(result))))
    assert item.message.result == result
    unknown = stamped(
        SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=2, result={"resultType": "odd"}))
    )
    assert unknown.message.result == {"resultType": "odd"}  # left for the SDK to refuse


def test_errors_notifications_and_exceptions_pass_unchanged() -> None:
    error = SessionMessage(
        JSONRPCError(jsonrpc="2.0", id=1, error=ErrorData(code=-32601, message="no"))
    )
    assert stamped(error) is error
    note = SessionMessage(JSONRPCNotification(jsonrpc="2.0", method="notifications/x"))
    assert stamped(note) is note
    failure = OSError("connection reset")
    assert stamped(failure) is failure
