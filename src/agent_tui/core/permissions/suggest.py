"""The narrowest useful rules for "always allow": what the prompt offers and saves.

Only what a rule can really allow is offered. A command the analysis does not fully understand,
one that asks in every mode (it could run a denied program, reads a protected file), or a
shell keyword gets no rule: the prompt offers "allow once" and says why. A suggested rule keeps
the command's quoting, so it matches the command it was made from (``python3 -c "print(1,
2)"`` → ``run_shell(python3 -c 'print(1, 2)':*)``) — and each suggestion is checked against
its command before it is offered.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.permissions.decision import Decision, Step
from agent_tui.core.permissions.matching import allow_words, allows
from agent_tui.core.permissions.outside import temp_dir
from agent_tui.core.permissions.outside_shell import command_findings
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.permissions.shell.programs import dangerous_variable
from agent_tui.core.permissions.shell_paths import (
    command_options,
    targets,
)
from agent_tui.core.tools.base import Tool

if TYPE_CHECKING:
    from agent_tui.core.permissions.judging import Judging
    from agent_tui.core.permissions.subject import Subject

SOURCE = "always allow"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_:+.-]*$")
SUBCOMMAND_TOOLS = _words(
    "git npm pnpm yarn bun cargo go docker podman kubectl gh pip pip3 uv poetry pdm hatch conda "
    "brew apt apt-get systemctl dotnet mvn gradle npx make just terraform helm rustup"
)
RUNNERS = frozenset({"run", "exec", "x", "test"})
INTERPRETERS = _words("python python3 node ruby perl bash sh zsh deno php")


def command_prefix(argv: list[str]) -> list[str]:
    """The command up to the first argument that varies: ``git commit -m x`` -> ``git
    commit``, ``npm run test --watch`` -> ``npm run test``, ``python3 -m pytest -q`` ->
    ``python3 -m pytest``, ``pytest tests/x.py`` -> ``pytest``, ``echo hi`` -> ``echo``.
    Leading ``NAME=value`` assignments stay: a rule must name them."""
    assigned = 0
    while assigned < len(argv) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[assigned]):
        assigned += 1
    head, argv = argv[:assigned], argv[assigned:]
    if not argv:
        return head
    name = argv[0].rsplit("/", 1)[-1]
    rest = argv[1:]
    if name in INTERPRETERS or re.fullmatch(r"python3?(\.\d+)?", name):
        if rest[:1] == ["-m"] and len(rest) > 1:
            return head + argv[:3]
        first = next((a for a in rest if not a.startswith("-")), None)
        return head + (argv[: rest.index(first) + 2] if first is not None else argv[:1])
    if name in SUBCOMMAND_TOOLS and rest and _WORD.match(rest[0]):
        prefix = argv[:2]
        if rest[0] in RUNNERS and len(rest) > 1 and _WORD.match(rest[1]):
            prefix.append(rest[1])
        return head + prefix
    return head + argv[:1]


def _why_not(decision: Decision, subject: Subject) -> str | None:
    if (
        decision.step is Step.ENVIRONMENT
        and subject.analysis is not None
        and any(
            a.how not in ("prefix", "env") and dangerous_variable(a.name)
            for a in subject.analysis.assignments
        )
    ):
        return "it sets a variable for everything after it, which no rule can name"
    if not decision.understood:
        return "the command is not fully understood, so no rule can allow it"
    if decision.step is Step.OPAQUE:
        return "it may do what a deny rule forbids"
    if decision.step is Step.READ_DENY:
        return "it reads a file a read rule protects"
    return None


def suggestions_for(
    p: Judging, tool: Tool[Any], subject: Subject, decision: Decision
) -> tuple[list[Rule], str | None]:
    """(rules "always allow" saves, why none when empty)."""
    if subject.kind == "command" and subject.analysis is not None:
        why = _why_not(decision, subject)
        if why is not None:
            return [], why
        return _command_rules(p, tool, subject, whole=decision.step is Step.ENVIRONMENT)
    if subject.kind == "path" and subject.path is not None:
        return [_path_rule(tool, subject.path, p.workspace, decision)], None
    if subject.kind == "domain" and subject.host:
        return [Rule(tool.name, f"domain:{subject.host}", SOURCE)], None
    return [Rule(tool.name, None, SOURCE)], None


def _command_rules(
    p: Judging, tool: Tool[Any], subject: Subject, *, whole: bool = False
) -> tuple[list[Rule], str | None]:
    """One rule per command no rule allows yet (its prefix; with ``whole`` its every literal
    word, so the variables and options that made it ask are named), plus ``write_file`` rules
    for the files it writes."""

    analysis = subject.analysis
    assert analysis is not None
    allow = p.rules_for("allow", tool)
    rules: list[Rule] = []
    for command in analysis.commands:
        if command.changes_directory:
            continue
        risky = whole and (
            any(dangerous_variable(a.name) for a in command.assignments)
            or bool(command_options(analysis, command))
        )
        if not risky and command.runs_code and all(x.transparent for x in command.layers):
            continue
        if not risky and any(allows(rule, command) for rule in allow):
            continue
        words = allow_words(command, harmless=risky)  # CI=true npm x: run_shell(npm x:*)
        literal = []
        for word in words:
            if not word.literal:
                break
            literal.append(word.text)
        prefix = literal if risky else command_prefix(literal)
        if not prefix:
            return [], "a part of the command has no fixed name to make a rule of"
        pattern = shlex.join(prefix) + ":*"
        rule = Rule(tool.name, pattern, SOURCE)
        if not allows(rule, command):  # the round trip: it must match what it came from
            return [], f"no rule written as text matches {command.shown()[:80]} exactly"
        if rule not in rules:
            rules.append(rule)
    for target in targets(p.workspace, analysis, temp_dir(p)):
        if target.path is None:
            return [], "it writes a file named only at run time"
        if p.path_rule("allow", "write_file", target.path) is not None:
            continue
        if p.inside_workspace(target.path):
            rel = target.path.relative_to(p.workspace).as_posix()
            rule = Rule("write_file", "/" + rel, SOURCE)
        else:
            rule = Rule("write_file", "/" + target.path.as_posix(), SOURCE)
        if rule not in rules:
            rules.append(rule)
    for found in command_findings(p, analysis, targets(p.workspace, analysis, temp_dir(p))):
        if found.rule is None:
            return [], "it reaches a place outside the workspace known only at run time"
        if found.rule not in rules:
            rules.append(found.rule)
    if not rules:
        return [], "nothing in it is left for a rule to allow"
    return rules, None


def _path_rule(tool: Tool[Any], path: Path, workspace: Path, decision: Decision) -> Rule:
    if decision.step is Step.OUTSIDE and tool.meta.read_only:
        # a read outside: read_file rules name paths for every reading tool; a directory
        # searched or listed gets its content, a file itself
        pattern = "/" + path.as_posix() + ("/**" if path.is_dir() else "")
        return Rule("read_file", pattern.replace("///", "//"), SOURCE)
    try:
        rel = path.relative_to(workspace)
    except ValueError:
        return Rule(tool.name, "/" + path.as_posix(), SOURCE)
    if decision.step is Step.PROTECTED:  # a protected path: only a rule naming it allows it
        return Rule(tool.name, f"/{rel.as_posix()}", SOURCE)
    parent = rel.parent.as_posix()
    pattern = f"/{parent}/**" if parent != "." else f"/{rel.as_posix()}"
    return Rule(tool.name, pattern, SOURCE)
