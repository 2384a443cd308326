"""Reading a git subcommand's arguments with its option table, as git's option parser does:
options (a short cluster ``-abc``, ``--name=value``, a value in the next word), operands, and
the paths after ``--``; what the table does not know is reported, never guessed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent_tui.core.permissions.shell.git_options import Options
from agent_tui.core.permissions.shell.model import DYN, Word

_NUMBER = re.compile(r"-[0-9]+")


@dataclass(frozen=True)
class GitOption:
    name: str
    value: Word | None
    word: Word
    """The option's own word (for messages)."""


@dataclass
class GitScan:
    options: list[GitOption] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    """Words before ``--`` that are not options or their values."""
    paths: list[Word] = field(default_factory=list)
    """Words after ``--``."""
    dashdash: bool = False
    unknown: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def has(self, *names: str) -> bool:
        return any(option.name in names for option in self.options)

    def values(self, *names: str) -> list[Word]:
        return [o.value for o in self.options if o.name in names and o.value is not None]


def scan_git(args: list[Word], table: Options, *, numbers: bool | None = None) -> GitScan:
    """Split a subcommand's arguments into options (by ``table``), operands and paths, the way
    git's option parser does; unknown options and option-like words known only at run time
    are reported."""
    found = GitScan()
    numbered = table.numbers if numbers is None else numbers
    end_of_options = False
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text
        if text == "--":
            found.dashdash = True
            found.paths = args[i + 1 :]
            break
        if end_of_options or not text.startswith("-") or text == "-":
            if not end_of_options and may_be_option(word):
                found.problems.append(
                    f"{word.raw or word.shown}, an argument known only at run time that git "
                    "could take as an option (put it after -- or --end-of-options)"
                )
            found.operands.append(word)
            i += 1
            continue
        if text == "--end-of-options":
            end_of_options = True
            i += 1
            continue
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if DYN in name:
                found.problems.append(f"{word.raw}, an option named only at run time")
                i += 1
                continue
            arity = table.arity(name)
            given: Word | None = Word(value, value, word.glob) if eq else None
            if arity is None:
                found.unknown.append(name)
            elif arity == "valued" and not eq and i + 1 < len(args):
                given = args[i + 1]
                i += 1
            found.options.append(GitOption(name, given, word))
            i += 1
            continue
        if numbered and _NUMBER.fullmatch(text):
            found.options.append(GitOption("-<n>", Word(text[1:], text[1:]), word))
            i += 1
            continue
        i += 1 + _short_cluster(found, table, word, args[i + 1] if i + 1 < len(args) else None)
    return found


def _short_cluster(found: GitScan, table: Options, word: Word, following: Word | None) -> int:
    """Read ``-abc`` letter by letter; returns 1 when the next word was taken as a value."""
    letters = word.text[1:]
    for pos, letter in enumerate(letters):
        name = "-" + letter
        if letter == DYN:
            found.problems.append(f"{word.raw}, options named only at run time")
            return 0
        arity = table.arity(name)
        if arity is None:
            found.unknown.append(name)
            found.options.append(GitOption(name, None, word))
            return 0
        rest = letters[pos + 1 :]
        if arity == "flag":
            found.options.append(GitOption(name, None, word))
            continue
        if rest:
            found.options.append(GitOption(name, Word(rest, rest, word.glob), word))
            return 0
        if arity == "valued" and following is not None:
            found.options.append(GitOption(name, following, word))
            return 1
        found.options.append(GitOption(name, None, word))
        return 0
    return 0


def may_be_option(word: Word) -> bool:
    """A word that git could see begin with ``-``: its start is known only at run time, or it
    is a glob that could match such a name."""
    if word.text.startswith(DYN):
        return True
    return word.glob and bool(word.raw) and word.raw[0] in "*?["
