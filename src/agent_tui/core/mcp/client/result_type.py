"""A result without ``resultType`` is a complete result (SEP-2322), whatever the session.

The 2026-07-28 revision makes ``resultType`` a required member of every result, and the SDK
(mcp 2.3) validates each result against the negotiated revision's wire schema, so a 2026 result
without it fails as malformed ("resultType: Field required"). The revision also says clients
must treat an absent ``resultType`` as ``"complete"`` (for servers of earlier revisions, in its
final text), and servers that negotiate 2026-07-28 but omit it are in the wild: the Go and C#
SDKs' servers did (go-sdk#1032, csharp-sdk#1676), and so does the conformance suite's own
``sep-2322-client-request-state`` probe (conformance#475). Refusing every result of such a server
helps nobody: the call did complete. So the read stream stamps ``"complete"`` on a response's
result that has no ``resultType``; one that names a type (``input_required``, an extension's)
keeps it, and an unknown one is still refused by the SDK. On a session of an earlier revision
the SDK drops the field again (a later revision's field) or ignores it.
"""

from __future__ import annotations

from typing import Any

COMPLETE = "complete"


def stamped(item: Any) -> Any:
    """``item`` as read from the transport (a ``SessionMessage``, or an exception the
    transport hands on), with ``resultType: "complete"`` on a response's result that lacks
    one. Everything else passes through unchanged."""
    result = getattr(getattr(item, "message", None), "result", None)
    if isinstance(result, dict) and "resultType" not in result:
        result["resultType"] = COMPLETE
    return item
