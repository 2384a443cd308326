"""The Prompts section: each prompt of the selected server as the slash command that runs it
(``/mcp__server__prompt <required> [optional]``), its description, and under the list the
highlighted prompt's arguments (required ones marked) and how to use it. Enter puts the command
into the prompt."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from agent_tui.core.commands.mcp_prompts import McpPrompt
from agent_tui.core.mcp.client.overview import ServerRow
from agent_tui.ui.common.format import first_line, plural
from agent_tui.ui.mcp.section_list import SectionList


class PromptList(SectionList):
    def items_of(self, server: ServerRow) -> Sequence[McpPrompt]:
        return server.prompts

    def key(self, item: McpPrompt) -> str:
        return item.name

    def line(self, item: McpPrompt) -> Content:
        return Content.assemble(
            (f"/{item.command}", "bold"),
            (f" {item.hint}" if item.hint else "", "$text-accent"),
            (f"  {first_line(item.description, 120)}" if item.description else "", "italic"),
        )

    def detail(self, item: McpPrompt) -> Content:
        parts: list[Content | str | tuple[str, str]] = []
        for argument in item.arguments:
            mark = (
                ("required", "$warning") if argument.required else ("optional", "$foreground-muted")
            )
            about = first_line(argument.description, 100) if argument.description else ""
            parts += ["\n", (f"  {argument.name}", "bold"), "  ", mark, f"  {about}".rstrip()]
        usage = f"/{item.command} {item.hint}".rstrip()
        return Content.assemble(
            ("usage ", "$foreground-muted"),
            (usage, "bold"),
            (
                "   enter: put it in the prompt; the words fill the arguments in order",
                "$foreground-muted",
            ),
            *(parts or [("\n  no arguments", "$foreground-muted")]),
        )

    def heading(self, server: ServerRow | None) -> str:
        if server is None or not server.prompts:
            return ""
        return f"{plural(len(server.prompts), 'prompt')} · each runs as a slash command"

    def empty_text(self, server: ServerRow | None) -> str:
        if server is None:
            return "No server selected."
        state = server.state
        if state.status != "connected":
            return f"No prompts: {state.name} is {state.status}."
        return f"{state.name} offers no prompts."
