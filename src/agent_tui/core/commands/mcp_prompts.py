"""MCP prompts as slash commands: ``/mcp__<server>__<prompt> args``.

A server advertising the ``prompts`` capability lists its prompts (``prompts/list``, refreshed
on ``notifications/prompts/list_changed``; ``core.mcp.client.connection``). Each becomes a command
whose words map, in order, onto the prompt's declared arguments (the last one takes the rest
of the line); missing required ones are asked for (the TUI) or named in an error (headless).
``prompts/get`` answers messages; their text becomes the user message, other content is
described in brackets.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agent_tui.core.permissions.mcp_names import server_prefix

UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]")


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class McpPrompt:
    server: str
    name: str
    description: str = ""
    arguments: tuple[PromptArgument, ...] = ()

    @property
    def command(self) -> str:
        """``mcp__<server>__<prompt>``, the server named as in its tools' names and rules
        (``ev.1`` is ``mcp__ev_1__``: ``permissions.mcp_names``)."""
        return f"{server_prefix(self.server)}{UNSAFE.sub('_', self.name)}"

    @property
    def hint(self) -> str:
        return " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in self.arguments)

    def bind(self, text: str) -> tuple[dict[str, str], list[PromptArgument]]:
        """``(arguments, missing required ones)`` for the words of ``text``: the n-th word
        fills the n-th declared argument, the last declared one takes what is left."""
        words = _words(text)
        values: dict[str, str] = {}
        declared = list(self.arguments)
        for index, argument in enumerate(declared):
            if index >= len(words):
                break
            if index == len(declared) - 1:
                values[argument.name] = " ".join(words[index:])
            else:
                values[argument.name] = words[index]
        missing = [a for a in declared if a.required and not values.get(a.name)]
        return values, missing


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def from_sdk(server: str, prompt: Any) -> McpPrompt:
    """An ``mcp.types.Prompt`` as a ``McpPrompt`` (duck-typed: core imports no SDK)."""
    arguments = tuple(
        PromptArgument(
            str(getattr(a, "name", "")),
            str(getattr(a, "description", "") or ""),
            bool(getattr(a, "required", False)),
        )
        for a in (getattr(prompt, "arguments", None) or ())
    )
    description = " ".join(str(getattr(prompt, "description", "") or "").split())
    return McpPrompt(server, str(prompt.name), description, arguments)


def render_messages(messages: Iterable[Any]) -> str:
    """The text of a ``GetPromptResult``'s messages: text as it is, other content described
    (``[image: image/png]``); more than one message, or an assistant one, is labelled with
    its role."""
    parts: list[tuple[str, str]] = []
    for message in messages:
        role = str(getattr(message, "role", "user"))
        parts.append((role, _content(getattr(message, "content", None))))
    if len(parts) == 1 and parts[0][0] == "user":
        return parts[0][1]
    return "\n\n".join(f"[{role}]\n{text}" for role, text in parts)


def _content(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(_content(c) for c in content)
    kind = getattr(content, "type", None)
    if kind == "text":
        return str(getattr(content, "text", ""))
    if kind in ("image", "audio"):
        return f"[{kind}: {getattr(content, 'mime_type', None) or 'unknown type'}]"
    if kind == "resource":
        resource = getattr(content, "resource", None)
        uri = getattr(resource, "uri", "")
        text = getattr(resource, "text", None)
        if text is not None:
            return f"[resource {uri}]\n{text}"
        return f"[resource {uri}: {getattr(resource, 'mime_type', None) or 'binary'}]"
    if kind == "resource_link":
        return f"[resource link: {getattr(content, 'uri', '')}]"
    return f"[{kind or type(content).__name__} content]"


def missing_message(prompt: McpPrompt, missing: Iterable[PromptArgument]) -> str:
    names = ", ".join(a.name for a in missing)
    return (
        f"/{prompt.command} needs its required argument(s) {names} "
        f"(usage: /{prompt.command} {prompt.hint})"
    )


def as_mapping(values: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in values.items() if v}
