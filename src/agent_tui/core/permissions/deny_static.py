"""Deny wins, never asks: what a command statically resolves to, and opaque code that names a
denied program or path.

The deny step of ``shell_judge`` matches deny rules against the commands the analysis found.
A match that depends on run-time text is a *maybe*, and a maybe used to ask — so
``x=rm; $x f``, ``/???/r? f``, ``rm${IFS}-f f``, ``{rm,-f,f}`` or ``eval $(echo rm f)`` put the
user in front of a prompt to approve what a deny rule forbids. Before such a call may ask,
this module looks further:

1. **Static resolution**: the command's run-time words are filled in from what the command
   line itself determines (``shell.resolve``: literal variables, loop words, ``IFS``, what
   ``echo``/``printf``/``which`` print, ``${X:-default}``); a command name that is a glob is
   expanded against the file system (``bash_glob``, bounded); a brace word at the start of a
   command, which tree-sitter cannot parse (``{rm,-f,f}``), is read as bash reads it
   (``''{rm,-f,f}`` means the same). The words found are analysed again like any command
   (wrappers, ``bash -c``, ``eval``…), and a deny rule that matches one of them — or a
   ``write_file`` deny rule that matches a file it writes — denies the call.
2. **Copies**: a command that writes files and names a denied program's executable
   (``cp /bin/rm x``) is denied — under another name the program would dodge the rule.
3. **Mentions**: a command with code the analysis cannot follow (opaque constructs, code for
   an interpreter, a ``git -c`` value) that mentions a denied program's name — and the rule's
   other words — as a word anywhere, or the last literal component of a ``write_file`` deny
   rule's path, is denied, with how to rephrase. ``echo 'rm is a program'`` is understood, so
   it is never judged by mention.

Only the deny step calls this: nothing here can make a command allowed.
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any

from agent_tui.core.permissions import bash_glob
from agent_tui.core.permissions.matching import Match, loose_match, mentioned
from agent_tui.core.permissions.rules import Rule, RuleError
from agent_tui.core.permissions.shell import DYN, FileWrite, ShellAnalysis, SimpleCommand, Word
from agent_tui.core.permissions.shell_paths import bases, resolve_word_paths

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from agent_tui.core.permissions.judging import Judging
    from agent_tui.core.tools.base import Tool

MAX_GLOB_NAMES = 32
"""Matches of a command-name glob tried as the command."""


@dataclass
class Candidates:
    commands: list[tuple[SimpleCommand, str]] = field(default_factory=list)
    """Commands the call may run once resolved, with what they were resolved from."""
    writes: list[tuple[FileWrite, str]] = field(default_factory=list)


def static_denial(
    p: Judging, tool: Tool[Any], a: ShellAnalysis, commands: list[SimpleCommand]
) -> tuple[Rule, str] | None:
    """The deny rule a command statically resolves to, or whose program its opaque code
    mentions, with the reason; None when there is none."""
    rules = [r for r in p.rules_for("deny", tool) if r.pattern is not None]
    file_rules = [r for r in p.rules.deny if r.names_tool("write_file")]
    if not rules and not file_rules:
        return None
    try:
        found = candidates(p, a, commands)
    except Exception:  # a bug here must not crash the judgement: the maybe keeps asking
        log.exception("the static deny resolution failed (the command asks)")
        found = Candidates()
    for rule in rules:
        for command, basis in found.commands:
            if loose_match(rule, command) is Match.YES:
                return rule, f"the command runs {command.shown()[:120]} ({basis})"
    if file_rules:
        roots, _ = bases(p.workspace, a)
        for write, basis in found.writes:
            if DYN in write.target.text:
                continue
            for path in resolve_word_paths(write.target.text, write.target.glob, roots):
                denying = p.path_rule("deny", "write_file", path)
                if denying is not None:
                    return denying, f"the command writes {p.shown(path)} ({write.how}; {basis})"
    copied = _copied_program(rules, a, [c for c, _ in found.commands], bases(p.workspace, a)[0])
    if copied is not None:
        return copied
    return _mention(rules, a) or _path_mention(file_rules, a)


def unseen_writes(a: ShellAnalysis) -> str:
    """Why code the analysis cannot see matters to ``write_file`` deny rules."""
    who = a.unseen_code[0] if a.unseen_code else f"code given to {a.interpreters[0]}"
    return f"it runs code the analysis cannot follow ({who}), which could write any file"


def _path_mention(rules: list[Rule], a: ShellAnalysis) -> tuple[Rule, str] | None:
    """Code the analysis cannot follow that names a path a ``write_file`` deny rule covers
    (its last literal component: ``secrets`` of ``secrets/**``)."""
    if a.understood and not a.interpreters:
        return None
    for rule in rules:
        literal = _literal_component(rule.pattern or "")
        if literal is not None and mentioned(literal, a):
            return rule, (
                f"the command mentions {literal} in code the analysis cannot follow, and the "
                f"rule {rule} denies writing there; rephrase it without writing {literal}, or "
                "ask the user to run it"
            )
    return None


def _literal_component(pattern: str) -> str | None:
    """The last path component of a file rule with no glob character in it (at least two
    characters), or None."""
    for part in reversed(pattern.strip("/").split("/")):
        if part and not any(c in part for c in "*?[\\") and len(part) >= 2:
            return part
    return None


def _copied_program(
    rules: list[Rule], a: ShellAnalysis, resolved: list[SimpleCommand], roots: list[Any]
) -> tuple[Rule, str] | None:
    """A command that writes files and names a denied program's executable (``cp /bin/rm x;
    ./x f``, ``ln -s $(which rm) x``, ``cat /usr/bin/rm > x``): a copy under another name
    would dodge the rule, which names programs."""
    if not a.writes:  # only commands that write files
        return None
    binaries: dict[str, Rule] = {}
    for rule in rules:
        words = _named(rule)
        found = shutil.which(words[0]) if words else None
        if found is not None:
            binaries[os.path.realpath(found)] = rule
    if not binaries:
        return None
    named: list[Word] = [*a.reads, *a.tree_reads]
    for command in [*a.commands, *resolved]:
        named.extend(command.words[1:])
    for word in named:
        for text in {word.text, word.text.partition("=")[2]}:
            if not text or DYN in text or "/" not in text:
                continue
            for path in resolve_word_paths(text, word.glob, roots):
                denying = binaries.get(str(path))
                if denying is not None:
                    program = _named(denying)[0]
                    return denying, (
                        f"the command names {path}, the program {program} runs, while it "
                        f"writes files: a copy or link under another name would run {program} "
                        "past the rule; ask the user to do it"
                    )
    return None


def _mention(rules: list[Rule], a: ShellAnalysis) -> tuple[Rule, str] | None:
    for option, _why in a.dangerous_options:  # git -c alias.x='!rm f' x: configuration runs it
        probe = ShellAnalysis(option)
        for rule in rules:
            words = _named(rule)
            if words and all(mentioned(word, probe) for word in words):
                named = " ".join(words)
                return rule, (
                    f"the option {option[:60]} names {named} as a program to run; rephrase it "
                    f"without {named}, or ask the user to run it"
                )
    if a.understood and not a.interpreters:
        return None
    if a.unseen_code:
        why = a.unseen_code[0]
    elif not a.understood:
        why = a.opaque[0]
    else:
        why = f"code given to {a.interpreters[0]}"
    for rule in rules:
        words = _named(rule)
        if words and all(mentioned(word, a) for word in words):
            named = " ".join(words)
            return rule, (
                f"the command mentions {named} in code the analysis cannot follow ({why}); "
                f"rephrase it without {named}, or ask the user to run it"
            )
    return None


def _named(rule: Rule) -> list[str]:
    """The words a mention must show: the rule's program (its basename, lower-cased) and its
    other words; leading ``NAME=value`` assignments left out."""
    try:
        words = rule.shell_words()[0]
    except RuleError:
        words = (rule.pattern or "").split()
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        words = words[1:]
    if not words or not os.path.basename(words[0]):
        return []
    return [os.path.basename(words[0]).lower(), *words[1:]]


def candidates(p: Judging, a: ShellAnalysis, commands: list[SimpleCommand]) -> Candidates:
    """Every command and write the call may resolve to (see the module's docstring)."""
    from agent_tui.core.permissions.shell.commands import add_simple
    from agent_tui.core.permissions.shell.expand import Budget
    from agent_tui.core.permissions.shell.resolve import resolve_words, variable_values
    from agent_tui.core.permissions.shell.walker import TreeWalker

    out = Candidates()
    values = variable_values(a)
    roots, _ = bases(p.workspace, a)
    scratch = ShellAnalysis(a.source)
    walker = TreeWalker(scratch, b"", 0, Budget())
    for command in commands:
        options: list[tuple[list[Word], str]] = [
            (r.words, "with " + ", ".join(sorted(r.used)))
            for r in resolve_words(command.words, values)
        ]
        if command.words and command.words[0].glob:
            options.append((command.words, ""))
        for words, basis in options:
            for named, how in _glob_names(words, basis, roots):
                before = (len(scratch.commands), len(scratch.writes))
                try:
                    add_simple(
                        walker,
                        named,
                        command.assignments,
                        command.stdin,
                        tuple(command.layers),
                        extra_args=command.extra_args,
                    )
                except RecursionError:
                    continue
                shown = f"{command.shown()[:60]} resolves to it, {how}" if how else ""
                out.commands.extend((c, shown) for c in scratch.commands[before[0] :])
                out.writes.extend((w, shown) for w in scratch.writes[before[1] :])
    for write in a.writes:
        for resolved in resolve_words([write.target], values):
            if len(resolved.words) == 1:
                basis = "with " + ", ".join(sorted(resolved.used))
                out.writes.append((FileWrite(resolved.words[0], write.how, write.tree), basis))
    out.commands.extend((c, "as bash reads a brace word") for c in _brace_commands(a))
    return out


def _glob_names(words: list[Word], basis: str, roots: list[Any]) -> list[tuple[list[Word], str]]:
    """``words`` with a glob command name replaced by each file it matches."""
    name = words[0] if words else None
    if name is None or not name.glob or DYN in name.text:
        return [(words, basis)]
    out: list[tuple[list[Word], str]] = []
    for root in roots:
        matches = bash_glob.expand(name.text, str(root))
        if not matches:
            continue
        for match in islice(matches, MAX_GLOB_NAMES):
            how = f"the glob {name.text} matches {match}"
            out.append(([Word(match, match), *words[1:]], f"{basis}; {how}" if basis else how))
        if name.text.startswith("/"):
            break
    return out


def _brace_commands(a: ShellAnalysis) -> list[SimpleCommand]:
    """``{rm,-f,x}`` at the start of a command is a word to bash (brace expansion: ``rm -f
    x``) and a parse error to tree-sitter; read with ``''`` before it, which changes nothing
    for bash, it parses."""
    from agent_tui.core.permissions.shell import analyse
    from agent_tui.core.permissions.shell.parse import parse

    if a.understood or a.too_large:
        return []
    source = a.source.encode("utf-8", "surrogateescape")
    parsed = parse(source)
    if parsed.cut or not parsed.root.has_error:
        return []
    positions: list[int] = []
    stack = [parsed.root]
    while stack:
        node = stack.pop()
        children = node.children
        if (
            node.type == "ERROR"
            and len(children) > 1
            and children[0].type == "{"
            and children[1].start_byte == children[0].end_byte
        ):
            positions.append(children[0].start_byte)
        stack.extend(c for c in children if c.has_error)
    if not positions:
        return []
    for position in sorted(positions, reverse=True):
        source = source[:position] + b"''" + source[position:]
    return analyse(source.decode("utf-8", "surrogateescape")).commands
