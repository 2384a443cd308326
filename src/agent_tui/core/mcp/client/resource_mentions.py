"""``@server:uri``: MCP resources as mentions (``core.mentions.resources.MentionResources``).

``servers()`` are the connected servers with resources (and lazy servers not started yet whose
cached list says they have some: reading a mention starts them); ``complete`` offers a server's
resources (and templates, to fill in) matching what is typed after ``server:``, from memory;
``read`` attaches what ``resources/read`` returns — text bounded like a file mention
(``MAX_CHARS``, with a note saying what was cut and how to read the rest), a blob saved as a
file with a one-line note. A URI the server does not know raises ``LookupError`` (the mention
stays text); a server that fails the read is a note, not an exception. A server a deny rule
covers (``mcp__ev__*``, ``mcp__ev__read_mcp_resource``) is not read: the attachment says why,
and its resources are not offered for completion.
"""

from __future__ import annotations

from agent_tui.core.mcp.client.resource_hub import READ_TOOL, ResourceHub, pointer
from agent_tui.core.text.completion import Completion, Completions
from agent_tui.core.tools.errors import ToolFailure

MAX_CHARS = 100_000
"""Characters of one resource attached (about one ``read_file`` window)."""
SHOWN = 50


class McpMentionResources:
    def __init__(self, hub: ResourceHub) -> None:
        self.hub = hub

    def servers(self) -> set[str]:
        """The connected servers with resources, and the lazy ones that had them when they
        last connected (a mention of one starts it)."""
        return self.hub.servers() | self.hub.unstarted()

    def complete(self, start: int, end: int, query: str) -> Completions | None:
        server, _, partial = query.partition(":")
        if server not in self.servers() or self.hub.refused(server, READ_TOOL, False):
            return None  # a server a deny rule covers offers nothing
        wanted = partial.lower()
        hits = [
            r
            for r in self.hub.resources(server)
            if wanted in r.uri.lower() or wanted in r.label.lower()
        ]
        hits.sort(key=lambda r: (r.template, not r.uri.lower().startswith(wanted), r.uri))
        items = tuple(
            Completion(
                label=f"{server}:{r.uri}",
                insert=f"@{server}:{r.uri}" + ("" if r.template else " "),
                description=" · ".join(
                    x for x in ("template" if r.template else "", r.label, r.mime_type or "") if x
                ),
                source=f"mcp: {server}",
            )
            for r in hits[:SHOWN]
        )
        return Completions(start, end, items, len(hits) if len(hits) > SHOWN else 0)

    async def read(self, server: str, uri: str) -> tuple[str, str]:
        denied = self.hub.refused(server, READ_TOOL, False)  # the user typed it: asks do not
        if denied is not None:
            note = f"{denied}: the server's resources are not read"
            return f"[{server}:{uri} is not attached: {note}]", note
        known = {r.uri for r in self.hub.resources(server) if not r.template}
        try:
            out = await self.hub.read(server, uri, "mention")
        except ToolFailure as failure:
            if uri not in known and failure.info.code == "mcp_error":
                raise LookupError(uri) from failure  # no such resource: the mention is text
            note = failure.info.message.rstrip(".")
            return f"[{server}:{uri} is not attached: {note}]", note
        text = out.content
        if len(text) <= MAX_CHARS:
            return text, ""
        note = (
            f"the first {MAX_CHARS:,} of {len(text):,} characters attached; the model reads "
            "the rest with read_mcp_resource"
        )
        cut = text[:MAX_CHARS]
        return f"{cut}\n[… cut: {note}; {pointer(server, uri)}]", note


__all__ = ["McpMentionResources"]
