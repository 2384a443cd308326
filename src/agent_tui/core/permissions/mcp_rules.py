"""An MCP server's rules for what acts on it without a call of its own.

The pipeline judges a call that names its server (``read_mcp_resource(server=…)``,
``list_mcp_resources(server=…)``: ``ToolMeta.acts_on_server``) under that server's rules. Two
ways reach a server's resources without such a call, and ask this module instead
(``server_gate``, given to the MCP resource hub):

- ``list_mcp_resources`` **without** a server lists every server's resources: a server a deny
  rule covers is left out, and so is one an ask rule covers (nobody is asked about a listing
  of everything; naming the server asks), with a line saying so;
- an ``@server:uri`` **mention** in the user's prompt attaches the resource: a deny rule for
  the server refuses it (the attachment says why); an ask rule does not — the user typed it.

The server is named as in its tools' names (``mcp__ev_1__`` for ``ev.1``), letter case of a
rule's server part ignored (``mcp_names.covers``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agent_tui.core.permissions.mcp_names import server_prefix
from agent_tui.core.permissions.modes import Mode

if TYPE_CHECKING:
    from agent_tui.core.permissions.judging import Judging

Gate = Callable[[str, str, bool], str | None]
"""``(server, tool name, ask rules count)`` → why the server's rules refuse it, or None."""


def server_gate(p: Judging) -> Gate:
    """The gate of ``p``'s rules (read when asked: rules added later count)."""

    def gate(server: str, tool_name: str, asks: bool) -> str | None:
        acting = f"{server_prefix(server)}{tool_name}"
        for rule in p.rules.deny:
            if rule.pattern is None and rule.names_tool(acting):
                return f"denied by the rule {rule}{_source(rule.source)}"
        if asks and p.mode is not Mode.BYPASS:
            for rule in p.rules.ask:
                if rule.pattern is None and rule.names_tool(acting):
                    return f"the rule {rule}{_source(rule.source)} asks for calls on it"
        return None

    return gate


def _source(source: str) -> str:
    return f" (from {source})" if source else ""
