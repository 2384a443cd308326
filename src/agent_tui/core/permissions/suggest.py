"""The narrowest useful rule for "always allow": what the prompt writes to the local settings."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_tui.core.permissions.rules import Rule
from agent_tui.core.tools.base import Tool

_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_.:+-]*$")
MAX_PREFIX_WORDS = 3


def command_prefix(argv: list[str]) -> list[str]:
    """The command and its leading sub-command words, up to the first argument that varies
    (a flag, a path, a number, a quoted string): ``git commit -m x`` -> ``git commit``."""
    prefix = argv[:1]
    for word in argv[1:MAX_PREFIX_WORDS]:
        if not _WORD.match(word) or "." in word:
            break
        prefix.append(word)
    return prefix


def suggest_rules(tool: Tool[Any], subject: Any, workspace: Path) -> list[Rule]:
    source = "always allow"
    if subject.kind == "command" and subject.analysis is not None:
        rules = []
        for command in subject.analysis.commands:
            if not command.argv or command.argv[0] == "cd" or not command.known_prefix(1):
                continue
            words = command_prefix(command.argv)
            rule = Rule(tool.name, " ".join(words) + ":*", source)
            if rule not in rules:
                rules.append(rule)
        return rules
    if subject.kind == "path" and subject.path is not None:
        try:
            rel = subject.path.relative_to(workspace)
        except ValueError:
            return [Rule(tool.name, "/" + subject.path.as_posix(), source)]
        parent = rel.parent.as_posix()
        pattern = f"/{parent}/**" if parent != "." else f"/{rel.as_posix()}"
        return [Rule(tool.name, pattern, source)]
    return [Rule(tool.name, None, source)]
