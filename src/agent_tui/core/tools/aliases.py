"""Input shapes a tool accepts besides its schema: the ones models trained on Claude Code send.

A model trained on Claude Code may call ``read_file`` with ``file_path`` instead of ``path``,
or the plan tool with Claude Code's ``{"todos": [...]}``. A tool declares what it also accepts
as a function (``Tool.input_aliases``) that rewrites the raw arguments into its own shape; the
registry applies it in one place, before validation (``ToolRegistry.prepare``), so the schema
the model sees is unchanged and everything after validation — the permission rules, hooks,
the tool itself — sees only the tool's own field names.

A rewrite never guesses: a field given both ways with different values is left as it is, and
validation refuses the unknown field, naming it. The Claude Code field names are those of
``core.claude.names`` (a test holds the two together: ``core.tools`` cannot import
``core.claude``, which reads settings that import the tools).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

InputAliases = Callable[[dict[str, Any]], dict[str, Any]]
"""``rewrite(arguments) -> arguments``: the raw arguments (a JSON object) in the tool's own
shape. It must not fail: what it does not understand it leaves for validation to refuse."""


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
