"""The narrowest useful rule for "always allow": what the prompt writes to the local settings."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_tui.core.permissions.rules import Rule
from agent_tui.core.tools.base import Tool

_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_:+-]*$")
# tools whose second word is a sub-command (``git commit``); ``run``/``exec`` take a third
SUBCOMMAND_TOOLS = {
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "cargo",
    "go",
    "docker",
    "podman",
    "kubectl",
    "gh",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "pdm",
    "hatch",
    "conda",
    "brew",
    "apt",
    "apt-get",
    "systemctl",
    "dotnet",
    "mvn",
    "gradle",
    "npx",
    "make",
    "just",
    "terraform",
    "helm",
    "rustup",
}
RUNNERS = {"run", "exec", "x", "test"}
# interpreters: what they run (a script or ``-m module``) is part of the rule
INTERPRETERS = {"python", "python3", "node", "ruby", "perl", "bash", "sh", "zsh", "deno", "php"}


def command_prefix(argv: list[str]) -> list[str]:
    """The command up to the first argument that varies: ``git commit -m x`` -> ``git
    commit``, ``npm run test --watch`` -> ``npm run test``, ``python3 -m pytest -q`` ->
    ``python3 -m pytest``, ``pytest tests/x.py`` -> ``pytest``, ``echo hi`` -> ``echo``."""
    if not argv:
        return []
    name = argv[0].rsplit("/", 1)[-1]
    rest = argv[1:]
    if name in INTERPRETERS or re.fullmatch(r"python3?(\.\d+)?", name):
        if rest[:1] == ["-m"] and len(rest) > 1:
            return argv[:3]
        first = next((a for a in rest if not a.startswith("-")), None)
        return argv[: rest.index(first) + 2] if first is not None else argv[:1]
    if name in SUBCOMMAND_TOOLS and rest and _WORD.match(rest[0]):
        prefix = argv[:2]
        if rest[0] in RUNNERS and len(rest) > 1 and _WORD.match(rest[1]):
            prefix.append(rest[1])
        return prefix
    return argv[:1]


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
