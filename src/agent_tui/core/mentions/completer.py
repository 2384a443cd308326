"""The ``@`` side of the prompt's completion menu (``core.text.completion``): what the index holds
for the mention the cursor is in, best first. Answers from memory on every keystroke."""

from __future__ import annotations

from agent_tui.core.mentions.index import FileIndex
from agent_tui.core.mentions.resources import MentionResources
from agent_tui.core.mentions.syntax import RESOURCE, typing_at, written
from agent_tui.core.text.completion import Completion, Completions

SHOWN = 50
"""Entries offered at most (the menu scrolls)."""


class MentionCompleter:
    """``complete(text, cursor)`` for ``@`` at the start of the prompt or after whitespace;
    None elsewhere (and for ``@server:uri`` of a known server: resources complete there, once
    ``resources`` can)."""

    def __init__(self, index: FileIndex, resources: MentionResources | None = None) -> None:
        self.index = index
        self.resources = resources

    def complete(self, text: str, cursor: int) -> Completions | None:
        typing = typing_at(text, cursor)
        if typing is None:
            return None
        resource = RESOURCE.match(typing.query)
        resources = self.resources
        if resource is not None and resources is not None and resource[1] in resources.servers():
            return resources.complete(typing.start, typing.end, typing.query)
        result = self.index.query(typing.query, SHOWN)
        items = tuple(
            Completion(
                label=hit.label,
                insert=written(hit.label) + " ",
                description="directory" if hit.is_dir else "",
                source="workspace",
                matched=hit.positions,
            )
            for hit in result.hits
        )
        total = result.matched if result.matched > len(items) else 0
        return Completions(typing.start, typing.end, items, total)
