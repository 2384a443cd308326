"""The two always-present tools of progressive disclosure: ``search_tool`` and ``run_tool``.

``search_tool`` asks a ``Finder`` (the session's ``state.Disclosure``) for the deferred tools;
this module knows it only through that protocol, so the disclosure state can build the tools
without the two modules importing each other."""

from __future__ import annotations

import json
from typing import Any, Protocol

from pydantic import Field

from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolMeta, ToolOutput
from agent_tui.core.tools.errors import ToolFailure

SEARCH_TOOL = "search_tool"
RUN_TOOL = "run_tool"


class Finder(Protocol):
    """What ``search_tool`` needs of the disclosure: its catalog, a search, a tool's schema."""

    @property
    def protocol(self) -> str:
        """``free-text`` (deferred tools are called through ``run_tool``) or ``strict``."""
        ...

    def catalog(self) -> str: ...

    def search(self, query: str, limit: int = 5) -> list[Tool[Any]]: ...

    def schema_of(self, tool: Tool[Any]) -> dict[str, Any]: ...


class SearchToolInput(ToolInput):
    query: str = Field(
        min_length=1,
        description="What the tool does (e.g. 'create github issue'), its name, or "
        "'SERVER: words' for one server's tools.",
    )
    limit: int = Field(default=5, ge=1, le=20, description="Most hits.")


class RunToolInput(ToolInput):
    name: str = Field(min_length=1, description="Its full name.")
    input: dict[str, Any] = Field(default_factory=dict, description="Its arguments.")


def search_description(disclosure: Finder) -> str:
    catalog = disclosure.catalog()
    return (
        "Find deferred tools; returns each hit's name, description and input schema. "
        + (
            "Call one with run_tool(name, input). "
            if disclosure.protocol == "free-text"
            else "Then call it by its name. "
        )
        + "Search before saying a capability is missing.\n"
        + catalog
    )


def make_search_tool(disclosure: Finder) -> Tool[SearchToolInput]:
    async def call(inp: SearchToolInput, ctx: ToolContext) -> ToolOutput:
        hits = disclosure.search(inp.query, inp.limit)
        if not hits:
            return ToolOutput(
                f"No deferred tool matches {inp.query!r}. Try other words (what the tool acts "
                "on, e.g. 'issue', 'file', 'database'), or 'SERVER:' to list a server's tools.",
                data={"hits": []},
            )
        how = (
            'Call with run_tool(name="<name>", input={...}).'
            if disclosure.protocol == "free-text"
            else "Call it by its name; it is available from your next step."
        )
        blocks = [f"{len(hits)} tool(s) for {inp.query!r}. {how}"]
        for tool in hits:
            schema = json.dumps(disclosure.schema_of(tool), ensure_ascii=False, sort_keys=True)
            blocks.append(f"## {tool.name}\n{tool.description.strip()}\ninput schema: {schema}")
        return ToolOutput("\n\n".join(blocks), data={"hits": [t.name for t in hits]})

    return Tool(
        name=SEARCH_TOOL,
        description=search_description(disclosure),
        input_model=SearchToolInput,
        call=call,
        meta=ToolMeta(read_only=True, concurrency_safe=True),
    )


def make_run_tool() -> Tool[RunToolInput]:
    async def call(inp: RunToolInput, ctx: ToolContext) -> ToolOutput:
        # Never reached: the executor resolves run_tool to its target before permissions
        # and execution (``Tool.proxy``), so the target is judged and run as itself.
        raise ToolFailure("proxy_not_resolved", f"run_tool could not resolve {inp.name!r}.")

    def target(inp: RunToolInput) -> tuple[str, str]:
        return inp.name, json.dumps(inp.input, ensure_ascii=False)

    return Tool(
        name=RUN_TOOL,
        description="Call a tool found by search_tool.",
        input_model=RunToolInput,
        call=call,
        proxy=target,
    )
