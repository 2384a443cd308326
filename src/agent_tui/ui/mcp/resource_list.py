"""The Resources section: the selected server's resources (name, URI, MIME type, size when the
server says it; subscribed, and when it last said one changed) then its resource templates
(``uriTemplate``). Enter on a resource previews it (read through the core, in a worker); on a
template it puts an ``@server:template`` mention into the prompt to fill in; ``m`` puts the
highlighted one's mention into the prompt. The list refreshes when the server announces
``resources/list_changed`` (the manager tells the panel)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from textual.content import Content

from agent_tui.core.mcp.client.overview import ServerRow
from agent_tui.core.mcp.client.resources import ResourceInfo
from agent_tui.ui.common.format import format_size, plural
from agent_tui.ui.mcp.section_list import SectionList


def mention(item: ResourceInfo) -> str:
    """``@server:uri``, as the prompt reads it (``core.mcp.client.resource_mentions``)."""
    return f"@{item.server}:{item.uri}"


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))


class ResourceList(SectionList):
    def items_of(self, server: ServerRow) -> Sequence[ResourceInfo]:
        return server.state.resources

    def key(self, item: ResourceInfo) -> str:
        return f"{'t' if item.template else 'r'}:{item.uri}"

    def line(self, item: ResourceInfo) -> Content:
        kind = ("template ", "$accent") if item.template else ("", "")
        facts = [x for x in (item.mime_type,) if x]
        if item.size is not None:
            facts.append(format_size(item.size))
        marks = []
        if item.subscribed:
            marks.append(("  subscribed", "$success"))
        if item.updated is not None:
            marks.append((f"  updated {_clock(item.updated)}", "$warning"))
        return Content.assemble(
            kind,
            (item.label, "bold"),
            "  ",
            (item.uri, "$text-primary" if not item.template else "$text-accent"),
            (f"  {' · '.join(facts)}" if facts else "", "$foreground-muted"),
            *marks,
        )

    def detail(self, item: ResourceInfo) -> Content:
        what = (
            "enter: put the template's mention in the prompt (fill in its {placeholders})"
            if item.template
            else "enter: preview · m: put its mention in the prompt"
        )
        description = " ".join((item.description or "").split())
        return Content.assemble(
            (mention(item), "bold"),
            (f"   {what}", "$foreground-muted"),
            (f"\n{description}" if description else "", "italic"),
        )

    def heading(self, server: ServerRow | None) -> str:
        if server is None or not server.state.resources:
            return ""
        items = server.state.resources
        templates = sum(1 for i in items if i.template)
        text = plural(len(items) - templates, "resource")
        if templates:
            text += f", {plural(templates, 'template')}"
        return f"{text} · the model reads them with read_mcp_resource"

    def empty_text(self, server: ServerRow | None) -> str:
        if server is None:
            return "No server selected."
        state = server.state
        if state.status != "connected":
            return f"No resources: {state.name} is {state.status}."
        return f"{state.name} offers no resources."
