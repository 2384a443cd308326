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
import logging
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.permissions.link_names import spellings
from agent_tui.core.permissions.listing import (
    Listing,
    fed_listing,
    listing_hit,
    substituted_listing,
)
from agent_tui.core.permissions.matching import mentioned
from agent_tui.core.permissions.read_guard import RuleReadGuard
from agent_tui.core.permissions.rules import Rule, RuleSet
from agent_tui.core.permissions.shell import DYN, ShellAnalysis, Word
from agent_tui.core.permissions.shell_paths import (
    bases,
    loop_words,
    path_texts,
    resolve_word_paths,
)

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from agent_tui.core.permissions.judging import Judging

MAX_TREE_ENTRIES = 5000
_MAGIC = re.compile(r"[*?\[]")


def _read_rules(p: Judging) -> list[Rule]:
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


def read_hits(p: Judging, a: ShellAnalysis, *, vouched: bool = False) -> tuple[Rule, str] | None:
    """The read rule a command could break, and why; ``vouched``: its interpreter code is
    named word for word by an allow rule (see ``vouched``)."""
    rules = _read_rules(p)
    if not rules:
        return None

    roots, unknown_cd = bases(p.workspace, a)
    names = [(rule, last) for rule in rules if (last := _last_component(rule)) is not None]

    guard = RuleReadGuard(RuleSet(ask=p.rules.ask, deny=p.rules.deny), p.workspace)

    def judge(path: Path) -> Rule | None:
        for rule in rules:
            if rule.pattern is None or rule.matches_path(path, p.workspace):
                return rule
        other = guard.other_name(path)  # a named link's target, a hard link (the walk's)
        return other[0] if other is not None else None

    words: list[Word] = []
    for word in a.reads:
        looped = loop_words(word, a)
        words.extend(looped if looped is not None else [word])
    for word in words:
        for text in path_texts(word):
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
            for path in _as_written(text, word.glob, roots):  # a link a rule names
                for spelled in spellings(path):
                    found = judge(spelled)
                    if found is not None:
                        return found, f"it names {text}, which the rule {found} protects"
            if unknown_cd and not os.path.isabs(text):
                return rules[0], f"it names {text} after a cd to a directory known only at run time"
    from agent_tui.core.permissions.git_judge import read_hit

    git = read_hit(p, a, rules)
    if git is not None:
        return git
    if a.unseen_code or (a.interpreters and not vouched):
        who = a.unseen_code[0] if a.unseen_code else f"code given to {a.interpreters[0]}"
        return rules[0], (
            f"it runs code the analysis cannot follow ({who}), which could read files the rule "
            f"{rules[0]} protects"
        )
    try:
        unknown, listings = _unknown_reads(a)
    except Exception:  # a bug here must fail closed: the run-time names stay unknown
        log.exception("the read check failed (the names stay unknown: the command asks)")
        unknown, listings = [why for why, _ in a.unknown_reads], []
    if unknown:
        return rules[0], (
            f"it reads files named only at run time ({unknown[0]}), which could be "
            f"ones the rule {rules[0]} protects"
        )
    for listing in listings:
        try:
            hit = listing_hit(listing, roots, judge, rules[0])
        except Exception:  # fail closed
            log.exception("checking a listing against the read rules failed (it asks)")
            hit = rules[0], f"it reads what {listing.how} lists, which could not be checked"
        if hit is not None:
            return hit
    for index, word in enumerate(a.tree_reads):
        if not word.literal and not word.glob:
            return rules[0], f"it reads a directory named only at run time ({word.shown})"
        filters = a.tree_filters.get(index)

        def selected(path: Path, filters: tuple[str, ...] | None = filters) -> bool:
            """The search reads ``path`` (a file's own name is filtered, before any symlink is
            followed: ``x.py -> .env`` is read by ``--include='*.py'``)."""
            return (
                filters is None
                or not path.is_file()
                or any(fnmatch.fnmatch(path.name, f.rsplit("/", 1)[-1]) for f in filters)
            )

        for root in resolve_word_paths(word.text, word.glob, roots):
            hit = _walk(root, judge, rules[0], selected)
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


def _as_written(text: str, glob: bool, roots: list[Path]) -> list[Path]:
    """The paths a literal word names before any link is followed (a glob's matches are
    judged resolved and by their last component)."""
    if glob:
        return []
    expanded = os.path.expanduser(text)
    if os.path.isabs(expanded):
        return [Path(os.path.normpath(expanded))]
    return [Path(os.path.normpath(os.path.join(root, expanded))) for root in roots]


def _unknown_reads(a: ShellAnalysis) -> tuple[list[str], list[Listing]]:
    """The reads of names known only at run time that could be anything (why), and the file
    listings the others come from (``find … | xargs grep``, ``wc $(git ls-files src)``,
    ``find … -exec cat {} +``); a process substitution (``diff <(sort a) <(sort b)``) is a
    pipe, not a file name."""
    unknown: list[str] = []
    listings: list[Listing] = []
    fed = [c for c in a.commands if c.extra_args]
    fed_listings = [fed_listing(c) for c in fed]
    fed_known = all(listing is not None for listing in fed_listings)
    for why, word in a.unknown_reads:
        if word is None:  # a command given arguments at run time (xargs, find -exec … +)
            if not fed_known:
                unknown.append(why)
            elif not listings:
                listings.extend(x for x in fed_listings if x is not None)
            continue
        if loop_words(word, a) is not None or _process_substitution(word):
            continue
        listing = substituted_listing(word) or _exec_listing(a, word)
        if listing is None:
            unknown.append(why)
        else:
            listings.append(listing)
    return unknown, listings


def _process_substitution(word: Word) -> bool:
    """``<(cmd)`` as a whole argument: ``/dev/fd/N``, a pipe from a command judged itself."""
    return word.text == DYN and word.raw.startswith("<(") and word.raw.endswith(")")


def _exec_listing(a: ShellAnalysis, word: Word) -> Listing | None:
    """``{}`` in ``find … -exec CMD {} ;``: an entry ``find`` prints, passed unsplit."""
    if word.raw != "{}":
        return None
    for command in a.commands:
        if any(w is word for w in command.words):
            return fed_listing(command)
    return None


TOO_MANY = "too many"


def rule_below(
    root: Path,
    judge: Callable[[Path], Rule | None],
    *,
    resolve: bool,
    selected: Callable[[Path], bool] | None = None,
) -> tuple[Rule, Path] | str | None:
    """The first entry below directory ``root`` a rule ``judge`` names, as (rule, path);
    ``TOO_MANY`` past ``MAX_TREE_ENTRIES`` entries (the tree is then taken as holding one);
    None when there is none. ``resolve``: judge where symlinks point (reads follow them);
    ``selected``: which entries (by their own path) are read at all."""
    if not root.is_dir():
        return None
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (*dirnames, *filenames):
            seen += 1
            if seen > MAX_TREE_ENTRIES:
                return TOO_MANY
            path = Path(dirpath) / name
            if selected is not None and not selected(path):
                continue
            found = judge(Path(os.path.realpath(path)) if resolve else path)
            if found is not None:
                return found, path
    return None


def _walk(
    root: Path,
    judge: Callable[[Path], Rule | None],
    fallback: Rule,
    selected: Callable[[Path], bool] | None = None,
) -> tuple[Rule, str] | None:
    """A protected file at or below ``root``, and how to say so."""
    found = judge(root)
    if found is not None:
        return found, f"which the rule {found} protects"
    below = rule_below(root, judge, resolve=True, selected=selected)
    if below == TOO_MANY:
        return fallback, (
            f"which holds more than {MAX_TREE_ENTRIES:,} entries: too many to check "
            f"for files the rule {fallback} protects"
        )
    if isinstance(below, tuple):
        rule, path = below
        return rule, f"and {path} inside it is protected by the rule {rule}"
    return None


def shell_glob_match(name: str, pattern: str) -> bool:
    """``fnmatch`` as bash matches file names: a leading dot is matched only by a dot."""
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatch(name, pattern)
