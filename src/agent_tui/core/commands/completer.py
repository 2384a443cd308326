"""The slash-command completer: ``/`` at the start of the prompt, fuzzy over the registry."""

from __future__ import annotations

from agent_tui.core.commands.registry import WORD, CommandRegistry
from agent_tui.core.text.completion import Completion, Completions
from agent_tui.core.text.fuzzy import rank

LIMIT = 50


class SlashCompleter:
    """Answers while the cursor is in the first word of a prompt that starts with ``/``."""

    def __init__(self, registry: CommandRegistry, *, limit: int = LIMIT) -> None:
        self.registry = registry
        self.limit = limit

    def complete(self, text: str, cursor: int) -> Completions | None:
        if not text.startswith("/") or text.startswith("//"):
            return None
        end = len(text)
        for index, char in enumerate(text):
            if char.isspace():
                end = index
                break
        if cursor < 1 or cursor > end:
            return None
        query = text[1:cursor]
        if query and not WORD.match(query):
            return None
        commands = self.registry.commands()
        ranked = rank(query, [c.name for c in commands])
        items = tuple(
            Completion(
                label=f"/{commands[index].name}",
                insert=f"/{commands[index].name} ",
                description=commands[index].description,
                source=commands[index].source,
                hint=commands[index].hint,
                matched=tuple(i + 1 for i in matched),
            )
            for _, index, matched in ranked[: self.limit]
        )
        if not items:
            return None
        total = len(ranked) if len(ranked) > self.limit else 0
        return Completions(0, end, items, total)
