"""The pipeline's judgement of a shell command, from the facts of ``shell.analyse``.

In order: deny rules (any command of the tree, any layer, loosely matched; the files it writes
against the file deny rules) → plan mode → the checks that ask in every mode: an opaque part
that could run a denied program, a file a read rule protects, a variable that makes programs
run other code, a protected path, a place outside the workspace (``outside_shell``) → ask rules
→ allow rules (every command allowed, every write allowed, the whole tree understood) → the
mode → the sandbox (``sandbox.auto_allow``: ``sandbox_judge``) → ask."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.permissions.decision import Decision, Step, plan_mode
from agent_tui.core.permissions.deny_static import static_denial, unseen_writes
from agent_tui.core.permissions.git_judge import note_repositories, protected_write
from agent_tui.core.permissions.judging import source_of
from agent_tui.core.permissions.matching import (
    Match,
    allows,
    loose_match,
    mentioned,
    rule_program,
)
from agent_tui.core.permissions.modes import Mode
from agent_tui.core.permissions.outside import free_to_write, temp_dir
from agent_tui.core.permissions.outside_shell import outside_command
from agent_tui.core.permissions.protected import protection, protection_below
from agent_tui.core.permissions.read_check import read_hits
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.permissions.sandbox_judge import sandbox_verdict
from agent_tui.core.permissions.shell import ShellAnalysis, SimpleCommand
from agent_tui.core.permissions.shell.programs import dangerous_variable
from agent_tui.core.permissions.shell_paths import (
    Target,
    command_options,
    targets,
)
from agent_tui.core.permissions.vouched import vouched_code
from agent_tui.core.tools.base import Tool

if TYPE_CHECKING:
    from agent_tui.core.permissions.judging import Judging

CREATES_ONLY = frozenset({"mkdir"})
"""Writers that only make a new, empty entry and change nothing there already: inside the
workspace, the allow rule that allowed the command covers the path it creates (a deny rule,
a protected path and a place outside the workspace are judged before, as for any write)."""


def judge_command(p: Judging, tool: Tool[Any], a: ShellAnalysis) -> Decision:
    note_repositories(p.workspace, a)  # git in another repository: not understood
    understood = a.understood
    commands = [c for c in a.commands if not c.changes_directory]
    writes = targets(p.workspace, a, temp_dir(p))

    def decision(kind: str, reason: str, step: Step, rule: Rule | None = None) -> Decision:
        return Decision(kind, reason, step, rule, understood)  # type: ignore[arg-type]

    # 1. deny rules (a command too large to analyse matches none for sure, and asks below)
    maybes: list[tuple[Rule, str]] = []
    vouched = vouched_code(p.rules_for("allow", tool), a, commands)
    if a.too_large:
        for rule in p.rules_for("deny", tool):
            if rule.pattern is None:
                return decision(
                    "deny", f"denied by the rule {rule}{source_of(rule)}", Step.DENY_RULE, rule
                )
        if p.mode is Mode.PLAN:
            return plan_mode(tool).with_(understood=False)
        return decision(
            "ask",
            f"the command is too large to analyse ({len(a.source):,} characters): what it runs "
            "and writes is not known, so it asks in every mode",
            Step.OPAQUE,
        )
    for rule in p.rules_for("deny", tool):
        if rule.pattern is None:
            return decision(
                "deny", f"denied by the rule {rule}{source_of(rule)}", Step.DENY_RULE, rule
            )
        for command in commands:
            found = loose_match(rule, command)
            if found is Match.YES:
                return decision(
                    "deny",
                    f"denied by the rule {rule}{source_of(rule)}: the command runs "
                    f"{command.shown()[:120]}",
                    Step.DENY_RULE,
                    rule,
                )
            if found is Match.MAYBE:
                maybes.append(
                    (rule, f"{command.shown()[:80]} could run what the rule {rule} denies")
                )
        program = rule_program(rule)
        if a.unseen_code:
            maybes.append(
                (
                    rule,
                    f"it hands code the analysis cannot see to a shell "
                    f"({a.unseen_code[0]}), which could run {program}",
                )
            )
        elif a.interpreters and not vouched:
            maybes.append(
                (rule, f"it gives code to {a.interpreters[0]}, which could run {program}")
            )
        elif not understood and program and mentioned(program, a):
            maybes.append(
                (
                    rule,
                    f"it mentions {program} in a part the analysis does not follow ({a.opaque[0]})",
                )
            )
    file_denies = [r for r in p.rules.deny if r.names_tool("write_file")]
    for target in writes:
        if target.path is None:
            if file_denies:
                maybes.append(
                    (
                        file_denies[0],
                        f"it writes a file named only at run time ({target.write.how})",
                    )
                )
            continue
        denying = p.path_rule("deny", "write_file", target.path)
        if denying is not None:
            return decision(
                "deny",
                f"denied by the rule {denying}{source_of(denying)}: the command writes "
                f"{p.shown(target.path)} ({target.write.how})",
                Step.DENY_RULE,
                denying,
            )
        if target.write.tree and file_denies:  # rm -r DIR, find DIR -delete: all below too
            below = _denied_below(p, target.path, file_denies[0])
            if below is not None:
                rule, why = below
                maybes.append((rule, f"{target.write.how} of {p.shown(target.path)} {why}"))
    if file_denies and (a.unseen_code or (a.interpreters and not vouched)):
        maybes.append((file_denies[0], unseen_writes(a)))
    if maybes or a.dangerous_options or a.interpreters or a.writes:  # deny wins, never asks
        denied = static_denial(p, tool, a, commands)
        if denied is not None:
            rule, why = denied
            return decision(
                "deny", f"denied by the rule {rule}{source_of(rule)}: {why}", Step.DENY_RULE, rule
            )
    # 2. plan mode
    if p.mode is Mode.PLAN:
        return plan_mode(tool).with_(understood=understood)
    # 3. the checks no mode skips
    if maybes:
        rule, why = maybes[0]
        return decision(
            "ask",
            f"{why}; with that deny rule in force it asks in every mode",
            Step.OPAQUE,
            rule,
        )
    hit = read_hits(p, a, vouched=vouched)
    if hit is not None:
        rule, why = hit
        return decision("ask", f"{why}; it asks in every mode", Step.READ_DENY, rule)
    env = _dangerous_environment(p, tool, a, commands)
    if env is not None:
        return decision(
            "ask", f"{env}; it asks in every mode unless a rule names it", Step.ENVIRONMENT
        )
    for target in writes:
        protected = _protected(p, target)
        if protected is not None:
            return decision("ask", protected, Step.PROTECTED)
    outside = outside_command(p, a, writes)
    if outside is not None:
        return decision("ask", outside, Step.OUTSIDE)
    # 4. ask rules
    if p.mode is not Mode.BYPASS:
        for rule in p.rules_for("ask", tool):
            if rule.pattern is None:
                return decision(
                    "ask",
                    f"the rule {rule}{source_of(rule)} asks for this call",
                    Step.ASK_RULE,
                    rule,
                )
            matched = next((c for c in commands if loose_match(rule, c) is not Match.NO), None)
            if matched is not None:
                return decision(
                    "ask",
                    f"the rule {rule}{source_of(rule)} asks for {matched.shown()[:100]}",
                    Step.ASK_RULE,
                    rule,
                )
            program = rule_program(rule)
            if not understood and program and mentioned(program, a):
                return decision(
                    "ask",
                    f"the rule {rule}{source_of(rule)} asks, and the command mentions {program} "
                    "in a part the analysis does not follow",
                    Step.ASK_RULE,
                    rule,
                )
    # 5. allow rules
    allow = p.rules_for("allow", tool)
    missing = _not_allowed(p, allow, commands, writes, a.functions) if understood else None
    if understood and missing is None:
        return decision("allow", "every part of the command is allowed by a rule", Step.ALLOW_RULE)
    # 6. the mode
    if p.mode is Mode.BYPASS:
        return decision("allow", "bypass mode", Step.BYPASS)
    # 7. the sandbox (sandbox.auto_allow): what it confines runs without asking
    verdict = sandbox_verdict(p, a, commands, writes)
    if verdict is not None and verdict[0] in ("allow", "deny"):  # deny: it would be refused
        return decision(verdict[0], verdict[1], Step.SANDBOX)
    still = f"; {verdict[1]}" if verdict is not None else ""
    if not understood:
        return decision("ask", f"the command contains {a.opaque[0]}{still}", Step.DEFAULT)
    why = missing or "run_shell runs commands on your machine"
    return decision("ask", why + still, Step.DEFAULT)


def _not_allowed(
    p: Judging,
    allow: list[Rule],
    commands: list[SimpleCommand],
    writes: list[Target],
    functions: set[str],
) -> str | None:
    """Why the allow rules do not cover the command, or None when they do."""
    if not commands:
        return "the command runs nothing a rule could allow"
    everything = any(rule.pattern is None for rule in allow)
    for command in commands:
        if command.runs_code and all(layer.transparent for layer in command.layers):
            continue  # bash -c '…': the commands of the code are judged themselves
        if everything or _calls_own_function(command, functions):
            continue  # f() { …; }; f — the body was judged where it is defined
        if not any(allows(rule, command) for rule in allow):
            if command.assignments and any(
                allows(rule, _without_assignments(command)) for rule in allow
            ):
                named = " ".join(x.text for x in command.assignments)
                return (
                    f"no rule allows {command.shown()[:80]} with {named[:60]} (an allow rule "
                    "covers leading assignments only when it names them)"
                )
            return f"no rule allows {command.shown()[:120]}"
    for target in writes:
        if everything:
            break
        if target.path is None:
            return f"it writes a file named only at run time ({target.write.how})"
        if p.path_rule("allow", "write_file", target.path) is not None:
            continue
        if target.write.how in CREATES_ONLY and target.path.is_relative_to(p.workspace):
            continue  # the rule that allowed mkdir allows the new directory (as Claude Code)
        if p.mode is Mode.ACCEPT_EDITS and free_to_write(p, target.path, command=True):
            continue
        return f"it writes {p.shown(target.path)} ({target.write.how}), which no rule allows"
    return None


def _calls_own_function(command: SimpleCommand, functions: set[str]) -> bool:
    """A call of a function the command itself defines (its literal name, no wrapper)."""
    name = command.name
    return (
        bool(functions)
        and name is not None
        and name.literal
        and not command.layers
        and (name.text in functions)
    )


def _without_assignments(command: SimpleCommand) -> SimpleCommand:
    return SimpleCommand(command.words, [], command.layers, command.extra_args, command.stdin)


def _dangerous_environment(
    p: Judging, tool: Tool[Any], a: ShellAnalysis, commands: list[SimpleCommand]
) -> str | None:
    """A variable (or option) that makes programs run other code, unless the allow rule that
    covers its command names it word for word (``run_shell(GIT_PAGER=cat git log:*)``)."""
    rules = [rule for rule in p.rules_for("allow", tool) if rule.pattern]
    for command in commands:
        named = {word for rule in rules if allows(rule, command) for word in _words(rule)}
        for assignment in command.assignments:
            why = dangerous_variable(assignment.name)
            if why is not None and assignment.text not in named:
                return f"it sets {assignment.name} for {command.shown()[:60]} ({why})"
        for option, why in command_options(a, command):
            if option not in named:
                return f"it runs {command.shown()[:60]} with {option} ({why})"
    for assignment in a.assignments:
        if assignment.how in ("prefix", "env"):
            continue
        why = dangerous_variable(assignment.name)
        if why is not None:
            return f"it sets {assignment.name} ({why})"
    return None


def _words(rule: Rule) -> list[str]:
    try:
        return rule.shell_words()[0]
    except ValueError:
        return []


def _protected(p: Judging, target: Target) -> str | None:
    if target.path is None:
        return (
            f"it writes a file named only at run time ({target.write.how}), which could be a "
            "protected file (.git/, .mcp.json, shell startup files…); it asks in every mode"
        )
    if target.write.git:  # git's work-tree writes: what its index tracks, never .git/
        found = protected_write(p, target)
        if isinstance(found, str):
            return f"it writes {p.shown(target.path)} ({target.write.how}), and {found}"
        if found is None:
            return None
        path, reached = found
        if p.explicit_allow("write_file", path, reached.key) is not None:
            return None
        return (
            f"it writes {p.shown(path)} ({target.write.how}), a protected path: "
            f"{reached.what}. It asks in every mode unless a rule names it"
        )
    guarded = protection_below(target.path) if target.write.tree else protection(target.path)
    if guarded is None:
        return None
    if p.explicit_allow("write_file", target.path, guarded.key) is not None:
        return None
    return (
        f"it writes {p.shown(target.path)} ({target.write.how}), a protected path: "
        f"{guarded.what}. It asks in every mode unless a rule names it"
    )


def _denied_below(p: Judging, root: Path, fallback: Rule) -> tuple[Rule, str] | None:
    """A file below ``root`` that a ``write_file`` deny rule protects (a recursive delete
    does not follow symlinks, so neither does the check)."""
    from agent_tui.core.permissions.read_check import MAX_TREE_ENTRIES, TOO_MANY, rule_below

    below = rule_below(root, lambda path: p.path_rule("deny", "write_file", path), resolve=False)
    if below == TOO_MANY:
        return fallback, f"reaches more than {MAX_TREE_ENTRIES:,} files, too many to check"
    if isinstance(below, tuple):
        rule, path = below
        return rule, f"reaches {p.shown(path)}, which the rule {rule} protects"
    return None
