"""Does a shell command read a file that a ``read_file`` deny or ask rule protects?

One read-deny for every tool: with ``read_file(.env)`` denied, ``cat .env``, ``grep -r KEY .``
(when a ``.env`` lies below), ``echo "$(<.env)"``, ``cat .e*``, ``cat "$(pwd)/.env"`` and
``python3 -c "open('.env')"`` all ask — in every mode — instead of running. The checks:

- every literal word that may name a file (also the part after ``=``, ``:`` or a leading
  ``@``: ``--file=.env``, ``HEAD:.env``, ``-d @.env``), resolved against the workspace and
  every ``cd`` target, is judged like a ``read_file`` of it; its last component is also
  compared with the rules' last components, so a path the analysis cannot place still asks;
- a glob is expanded (bounded) and each match judged, and its last component compared;
- a word known only at run time, given to a program that reads files, asks;
- a directory read recursively (``grep -r``, ``rg``, ``tar c``, ``cp -r``) is walked (bounded)
  for protected files;
- in a part the analysis does not understand, or code given to an interpreter, the rules'
  file names are searched for as words.

The OS sandbox (when present) hides such files from commands altogether; this is the check
that holds without it.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.permissions.matching import mentioned
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.permissions.shell import DYN, ShellAnalysis, Word
from agent_tui.core.permissions.shell_paths import (
    bases,
    resolve_word_paths,
)

if TYPE_CHECKING:
    from agent_tui.core.permissions.pipeline import PermissionPipeline

MAX_TREE_ENTRIES = 5000
_MAGIC = re.compile(r"[*?\[]")


def _read_rules(p: PermissionPipeline) -> list[Rule]:
    return [r for r in (*p.rules.deny, *p.rules.ask) if r.names_tool("read_file")]


def _last_component(rule: Rule) -> str | None:
    """The rule's file-name part when it names files (``.env``, ``*.pem``, ``.env*``), else
    None (``secrets/**`` names a directory's content, matched through resolved paths)."""
    if not rule.pattern:
        return None
    last = rule.pattern.rstrip("/").rsplit("/", 1)[-1]
    literal = _MAGIC.sub("", last)
    if len(literal) < 2 or last in ("**",):
        return None
    return last


def _candidates(word: Word) -> list[str]:
    text = word.text
    out = [text]
    if "=" in text:
        out.append(text.split("=", 1)[1])
    if ":" in text:
        out.append(text.rsplit(":", 1)[1])
    return [c.removeprefix("@") for c in out if c.removeprefix("@")]


def read_hits(p: PermissionPipeline, a: ShellAnalysis) -> tuple[Rule, str] | None:
    rules = _read_rules(p)
    if not rules:
        return None

    roots, unknown_cd = bases(p.workspace, a)
    names = [(rule, last) for rule in rules if (last := _last_component(rule)) is not None]

    def judge(path: Path) -> Rule | None:
        for rule in rules:
            if rule.pattern is None or rule.matches_path(path, p.workspace):
                return rule
        return None

    words: list[Word] = []
    for word in a.reads:
        looped = _loop_variable(word, a)
        words.extend(looped if looped is not None else [word])
    for word in words:
        for text in _candidates(word):
            if DYN in text:
                piece = text.rsplit(DYN, 1)[1]
                name = piece.rsplit("/", 1)[-1]
                for rule, last in names:
                    if name and fnmatch.fnmatch(name, last):
                        return rule, f"it reads …{piece}, which the rule {rule} protects"
                continue
            if text.startswith("-") and text == word.text:
                continue
            base = os.path.basename(text.rstrip("/"))
            for rule, last in names:
                if fnmatch.fnmatch(base, last) or (word.glob and shell_glob_match(last, base)):
                    return rule, f"it names {text}, which the rule {rule} protects"
            for path in resolve_word_paths(text, word.glob, roots):
                found = judge(path)
                if found is not None:
                    return found, f"it names {p.shown(path)}, which the rule {found} protects"
            if unknown_cd and not os.path.isabs(text):
                return rules[0], f"it names {text} after a cd to a directory known only at run time"
    from agent_tui.core.permissions.git_judge import read_hit

    git = read_hit(p, a, rules)
    if git is not None:
        return git
    if a.unseen_code or a.interpreters:
        who = a.unseen_code[0] if a.unseen_code else f"code given to {a.interpreters[0]}"
        return rules[0], (
            f"it runs code the analysis cannot follow ({who}), which could read files the rule "
            f"{rules[0]} protects"
        )
    unknown = [
        why for why, word in a.unknown_reads if word is None or _loop_variable(word, a) is None
    ]
    if unknown:
        return rules[0], (
            f"it reads files named only at run time ({unknown[0]}), which could be "
            f"ones the rule {rules[0]} protects"
        )
    for index, word in enumerate(a.tree_reads):
        if not word.literal and not word.glob:
            return rules[0], f"it reads a directory named only at run time ({word.shown})"
        filters = a.tree_filters.get(index)

        def judge_filtered(path: Path, filters: tuple[str, ...] | None = filters) -> Rule | None:
            if (
                filters is not None
                and path.is_file()
                and not any(fnmatch.fnmatch(path.name, f.rsplit("/", 1)[-1]) for f in filters)
            ):
                return None
            return judge(path)

        for root in resolve_word_paths(word.text, word.glob, roots):
            hit = _walk(root, judge_filtered, rules[0])
            if hit is not None:
                rule, why = hit
                return rule, f"it reads {p.shown(root)} recursively, {why}"
    if not a.understood or a.code_texts:
        for rule, last in names:
            literal = _MAGIC.sub("", last)
            if mentioned(literal, a) or any(literal in text for text in a.code_texts):
                return rule, (
                    f"it mentions {literal} in a part the analysis does not follow, and the "
                    f"rule {rule} protects such files"
                )
    return None


TOO_MANY = "too many"


def rule_below(
    root: Path, judge: Callable[[Path], Rule | None], *, resolve: bool
) -> tuple[Rule, Path] | str | None:
    """The first entry below directory ``root`` a rule ``judge`` names, as (rule, path);
    ``TOO_MANY`` past ``MAX_TREE_ENTRIES`` entries (the tree is then taken as holding one);
    None when there is none. ``resolve``: judge where symlinks point (reads follow them)."""
    if not root.is_dir():
        return None
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (*dirnames, *filenames):
            seen += 1
            if seen > MAX_TREE_ENTRIES:
                return TOO_MANY
            path = Path(dirpath) / name
            found = judge(Path(os.path.realpath(path)) if resolve else path)
            if found is not None:
                return found, path
    return None


def _walk(
    root: Path, judge: Callable[[Path], Rule | None], fallback: Rule
) -> tuple[Rule, str] | None:
    """A protected file at or below ``root``, and how to say so."""
    found = judge(root)
    if found is not None:
        return found, f"which the rule {found} protects"
    below = rule_below(root, judge, resolve=True)
    if below == TOO_MANY:
        return fallback, (
            f"which holds more than {MAX_TREE_ENTRIES:,} entries: too many to check "
            f"for files the rule {fallback} protects"
        )
    if isinstance(below, tuple):
        rule, path = below
        return rule, f"and {path} inside it is protected by the rule {rule}"
    return None


_LOOP_WORD = re.compile(r'^"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?$')


def _loop_variable(word: Word, a: ShellAnalysis) -> list[Word] | None:
    """``$f`` / ``"$f"`` of a ``for f in WORDS`` loop (and set nowhere else): those words."""
    if word.text != DYN:
        return None
    match = _LOOP_WORD.match(word.raw)
    if match is None:
        return None
    name = match.group(1)
    values = a.loop_values.get(name)
    if not values or any(x.name == name and x.how != "loop" for x in a.assignments):
        return None
    if any(DYN in value.text for value in values):  # for f in $(ls): names known only then
        return None
    return values


def shell_glob_match(name: str, pattern: str) -> bool:
    """``fnmatch`` as bash matches file names: a leading dot is matched only by a dot."""
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatch(name, pattern)
