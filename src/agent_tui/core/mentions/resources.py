"""The extension point for ``@server:uri``: MCP resources as mentions.

``core.mcp.client.resource_mentions.McpMentionResources`` implements it over the MCP manager's
resource hub; it is given to ``MentionCompleter`` and ``MentionExpander``: ``@server:`` then
completes the server's resources and a mention of one attaches what ``resources/read``
returns, as a ``Mention(kind="resource")``. Without it (no MCP manager), or for a server
without resources, ``@server:uri`` is a path like any other (text, when no such path
exists).
"""

from __future__ import annotations

from typing import Protocol

from agent_tui.core.text.completion import Completions


class MentionResources(Protocol):
    def servers(self) -> set[str]:
        """The servers whose resources can be mentioned (by their configured name)."""
        ...

    def complete(self, start: int, end: int, query: str) -> Completions | None:
        """The resources matching ``query`` (``server:partial-uri``), replacing
        ``text[start:end]``; from memory (called on every keystroke)."""
        ...

    async def read(self, server: str, uri: str) -> tuple[str, str]:
        """The resource's text for the model and a note (what was cut, why it is refused);
        raises ``LookupError`` when there is no such resource (the mention stays text)."""
        ...
