"""How shell rules match the commands the analysis found.

Allow rules are strict: a rule's words must equal the command's first words exactly (the
whole command for a rule without ``:*``), all of them literal, leading ``NAME=value``
assignments included — an allow rule never covers an assignment it does not name. Wrappers
that only change how a command runs (``timeout 5``, ``nice``) are looked through; others
(``sudo``, ``uv run``) are part of the words a rule must name.

Deny and ask rules are loose, so spelling cannot dodge them: the program is compared by its
basename, ignoring case (``/bin/RM`` is ``rm``); the rule's other words may appear anywhere
among the arguments, in any order, short flags in any grouping (``rm -rf`` matches ``rm -r -f
x`` and ``rm x -fr``); every wrapper layer is matched too (a deny of ``sudo`` denies ``sudo
rm``). A match that depends on text only known at run time is a *maybe*: the call asks, in
every mode.

A ``*`` inside a pattern (not the trailing ``:*`` or `` *`` of a prefix) is a wildcard, as
in Claude Code's rules: it matches any text, spaces included (``git * main``, ``* --version``,
``git push --force*``, ``ls*``). An allow rule with one matches the command's words joined as
the shell would quote them, all of them literal. A deny or ask rule with one stays loose: its
program may be a wildcard (``*``, ``py*``), each of its other words is found among the
arguments as a glob (``--force*`` is there in ``--force-with-lease``; a word that is only
``*`` needs nothing), and short flags before a ``*`` in any grouping (``-rf*``).
"""

from __future__ import annotations

import os
import re
import shlex
from enum import Enum
from functools import lru_cache

from agent_tui.core.permissions.bash_glob import name_matches
from agent_tui.core.permissions.rules import Rule, RuleError
from agent_tui.core.permissions.shell import DYN, ShellAnalysis, SimpleCommand, Word
from agent_tui.core.permissions.shell.programs import dangerous_variable


class Match(Enum):
    NO = 0
    MAYBE = 1
    YES = 2


def _rule_words(rule: Rule) -> tuple[list[str], bool] | None:
    try:
        return rule.shell_words()
    except RuleError:
        return None


def allow_words(command: SimpleCommand, *, harmless: bool = True) -> list[Word]:
    """The words an allow rule is compared with: the command's assignments (without those of
    variables outside the dangerous list when ``harmless`` is False), then its words from the
    outermost wrapper that is not transparent."""
    assigned = [
        Word(a.text, a.text)
        if a.value is None or a.value.literal
        else Word(f"{a.name}={DYN}", a.text)
        for a in command.assignments
        if harmless or dangerous_variable(a.name) is not None
    ]
    return [*assigned, *command.outer_words]


def allows(rule: Rule, command: SimpleCommand) -> bool:
    """Does allow rule ``rule`` cover ``command``: with its leading assignments as written,
    or without those of harmless variables (``CI=true npm test`` under
    ``run_shell(npm test:*)``; ``PATH=. npm test`` still needs a rule that names it)."""
    return _allows(rule, command, harmless=True) or (
        any(dangerous_variable(a.name) is None for a in command.assignments)
        and _allows(rule, command, harmless=False)
    )


def has_wildcard(words: list[str]) -> bool:
    """Does a shell pattern (its words, the prefix ``:*`` taken off) hold a wildcard?"""
    return any("*" in word for word in words)


@lru_cache(maxsize=512)
def _glob(text: str) -> re.Pattern[str]:
    """``*`` any text (spaces too), everything else literal."""
    return re.compile(".*".join(re.escape(part) for part in text.split("*")), re.S)


def _wildcard_regex(words: tuple[str, ...], prefix: bool) -> re.Pattern[str]:
    parts = [
        ".*".join(re.escape(piece) for piece in w.split("*"))
        if "*" in w
        else re.escape(shlex.quote(w))
        for w in words
    ]
    return re.compile(" ".join(parts) + ("(?: .*)?" if prefix else ""), re.S)


def _allows(rule: Rule, command: SimpleCommand, *, harmless: bool) -> bool:
    parsed = _rule_words(rule)
    if parsed is None or not parsed[0]:
        return False
    words, prefix = parsed
    target = allow_words(command, harmless=harmless)
    if has_wildcard(words):  # every word known; the joined text must match the whole pattern
        if command.extra_args or not target or any(not w.literal for w in target):
            return False
        joined = shlex.join(w.text for w in target)
        return _wildcard_regex(tuple(words), prefix).fullmatch(joined) is not None
    n = len(words)
    if len(target) < n or any(not w.literal for w in target[:n]):
        return False
    if not prefix and (
        len(target) != n or command.extra_args or any(not w.literal for w in target)
    ):
        return False
    return [w.text for w in target[:n]] == words


# -- loose matching (deny, ask) ---------------------------------------------------------------


def _program(words: list[str]) -> tuple[str, list[str]]:
    """The rule's program (assignments skipped) and its other words, lower-cased."""
    rest = list(words)
    while rest and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", rest[0]):
        rest = rest[1:]
    if not rest:
        return "", []
    return os.path.basename(rest[0]).lower(), [w.lower() for w in rest[1:]]


def _short_flags(word: str) -> set[str] | None:
    if re.fullmatch(r"-[A-Za-z0-9]+", word):
        return set(word[1:])
    return None


def _present(rule_word: str, args: list[str], flags: set[str]) -> bool:
    if "*" in rule_word:
        stem = rule_word.rstrip("*")
        if not stem.strip("*"):
            return True  # a bare * needs no word
        if any(_glob(rule_word).fullmatch(a) for a in args):
            return True
        return "*" not in stem and _present(stem, args, flags)
    letters = _short_flags(rule_word)
    if letters and (rule_word in args or letters <= flags):
        return True
    if rule_word.startswith("--"):
        return any(a == rule_word or a.startswith(rule_word + "=") for a in args)
    return rule_word in args


def _match_words(program: str, rest: list[str], words: list[Word], extra: bool) -> Match:
    if not words:
        return Match.NO
    name = words[0]
    if not name.literal:  # a run-time name may be anything (text known only then may hold a /)
        if DYN in name.text:
            return Match.MAYBE
        pattern = os.path.basename(name.text)
        matches = [name_matches(p, program) for p in (pattern, pattern.lower())]
        if "*" in program:
            return Match.MAYBE
        return Match.NO if all(m is False for m in matches) else Match.MAYBE
    base = os.path.basename(name.text.rstrip("/")).lower()
    if base != program and not ("*" in program and _glob(program).fullmatch(base)):
        return Match.NO
    args = [w.text.lower() for w in words[1:] if w.literal]
    unknown = extra or any(not w.literal for w in words[1:])
    flags: set[str] = set()
    for arg in args:
        letters = _short_flags(arg)
        if letters:
            flags |= letters
    missing = [r for r in rest if not _present(r, args, flags)]
    if not missing:
        return Match.YES
    return Match.MAYBE if unknown else Match.NO


def loose_match(rule: Rule, command: SimpleCommand) -> Match:
    """How ``rule`` (a deny or ask rule) matches one command, looking at every layer."""
    parsed = _rule_words(rule)
    words = parsed[0] if parsed is not None else (rule.pattern or "").split()
    program, rest = _program(words)
    if not program:
        return Match.NO
    best = Match.NO
    candidates = [command.words]
    for index in range(len(command.layers)):
        candidates.append(
            [w for layer in command.layers[index:] for w in layer.words] + command.words
        )
    for candidate in candidates:
        found = _match_words(program, rest, candidate, command.extra_args)
        if found is Match.YES:
            return Match.YES
        if found is Match.MAYBE:
            best = Match.MAYBE
    if command.guessed:  # behind a wrapper the analysis reads only roughly: any mention
        words_seen = [w for layer in command.layers for w in layer.words] + command.words
        if any(_mention(program).search(w.text) for w in words_seen):
            best = Match.MAYBE
    return best


@lru_cache(maxsize=512)
def _mention(name: str) -> re.Pattern[str]:
    body = r"\S*".join(re.escape(part) for part in name.split("*"))  # a wildcard program
    return re.compile(rf"(?<![A-Za-z0-9_.\-]){body}(?![A-Za-z0-9_\-])", re.I)


def mentioned(name: str, analysis: ShellAnalysis) -> bool:
    """Does ``name`` appear as a word anywhere in the command's text or decoded strings?"""
    pattern = _mention(name)
    if pattern.search(analysis.source):
        return True
    return any(pattern.search(text) for text in analysis.texts)


def rule_program(rule: Rule) -> str:
    parsed = _rule_words(rule)
    words = parsed[0] if parsed is not None else (rule.pattern or "").split()
    return _program(words)[0]
