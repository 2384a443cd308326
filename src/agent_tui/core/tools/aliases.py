"""Input shapes and call names a tool accepts besides its own: the ones Claude Code's models send.

A model trained on Claude Code may call ``read_file`` with ``file_path`` instead of ``path``,
the plan tool with Claude Code's ``{"todos": [...]}``, or call a tool by Claude Code's name
(``Bash`` with ``{"command", "timeout"}``, the timeout in milliseconds). A tool declares what it
also accepts: a rewrite of the raw arguments into its own shape (``Tool.input_aliases``), and
other call names, each with the rewrite of that name's input (``Tool.call_aliases``). The
registry applies them in one place, before validation (``ToolRegistry.prepare``), so the schema
the model sees is unchanged and everything after validation — the permission rules, hooks,
the card, the tool itself — sees only the tool's own name and field names.

A rewrite never guesses: a field given both ways with different values is left as it is, and
validation refuses the unknown field, naming it. A field the other shape has and ours has no
equivalent for is refused by name (``AliasRefused``) when dropping it would change what the
call does, and dropped when it does not (``Bash``'s ``description``). The Claude Code names
are those of ``core.claude.names`` (a test holds the two together: ``core.tools`` cannot
import ``core.claude``, which reads settings that import the tools).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

InputAliases = Callable[[dict[str, Any]], dict[str, Any]]
"""``rewrite(arguments) -> arguments``: the raw arguments (a JSON object) in the tool's own
shape. What it does not understand it leaves for validation to refuse; a field it understands
and cannot honour it refuses with ``AliasRefused``."""


class AliasRefused(ValueError):
    """A field of another tool's shape with no equivalent here: the call is refused, naming
    ``field`` and why (``reason``), instead of running without it."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


@dataclass(frozen=True)
class CallAlias:
    """Another tool's call name this tool answers to (``Bash`` for ``run_shell``), and the
    rewrite of that tool's input into ours."""

    name: str
    rewrite: InputAliases


def renamed(**fields: str) -> InputAliases:
    """A rewrite that accepts each field under another name: ``renamed(file_path="path")``."""

    def rewrite(arguments: dict[str, Any]) -> dict[str, Any]:
        out = dict(arguments)
        for other, ours in fields.items():
            if other not in out:
                continue
            if ours not in out:
                out[ours] = out.pop(other)
            elif out[ours] == out[other]:
                del out[other]  # the same value both ways: one is enough
        return out

    return rewrite
