"""MCP tasks (``execution.taskSupport``, protocol 2025-11-25): which tools we cannot offer.

A tool whose ``execution.taskSupport`` is ``"required"`` may only be called as a task
(``tools/call`` with a ``task`` field, then ``tasks/get`` / ``tasks/result`` / ``tasks/cancel``);
a plain call is refused by the server. The ``mcp`` SDK we use (2.3) has the task types but no
client side for them — ``Client.call_tool`` cannot create, poll or cancel a task — and
2026-07-28 drops the field. So such a tool is not offered to the model (it never enters the
registry, so no tools array, ``search_tool`` or ``run_tool`` sees it); it stays listed for
the user, in ``mcp list`` and in the MCP panel, with the reason (``ToolInfo.unavailable``).
``"optional"`` and ``"forbidden"`` tools are called normally, without a task.
"""

from __future__ import annotations

from typing import Any

TASK_REQUIRED = (
    "not offered to the model: the server runs it only as an MCP task "
    "(execution.taskSupport: required), and this client cannot run tasks yet "
    "(the mcp SDK has no client side for tasks/get, tasks/result, tasks/cancel)"
)


def task_support(remote: Any) -> str | None:
    """``"forbidden"``, ``"optional"``, ``"required"``, or None when the tool does not say."""
    execution = getattr(remote, "execution", None)
    support = getattr(execution, "task_support", None)
    return support if isinstance(support, str) else None


def unavailable_reason(remote: Any) -> str | None:
    """Why ``remote`` (an ``mcp.types.Tool``) is not offered to the model, or None."""
    if task_support(remote) == "required":
        return TASK_REQUIRED
    return None
