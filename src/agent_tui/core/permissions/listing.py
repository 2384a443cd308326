"""File lists a command reads: ``find … | xargs CMD``, ``find … -exec CMD {} +``,
``CMD $(git ls-files PATHS)``, ``CMD $(find …)``.

The names such a command reads are known only at run time, which used to make every one ask
while a read rule was in force. They are not arbitrary, though: they are what the listing
prints. When the listing is one the analysis models — ``find`` with literal roots and only
predicates that narrow (``-name``, ``-iname``, ``-type``, ``-maxdepth``…), or ``git ls-files``
with literal paths — the read check walks the roots (bounded) as the listing would and judges
every entry it would print like a read of it (through symlinks, as the reader opens them).

Two things make the printed names differ from the arguments the reader gets, and both ask:
splitting (``xargs`` without ``-0`` and an unquoted ``$(…)`` split on blanks and handle quotes
and backslashes; ``$(…)`` also globs) — so a name anywhere in the walk holding a blank, a
quote, a backslash, a glob character or a control character, or starting with ``-``, asks;
and anything the model does not cover (another predicate, ``-o``, ``!``, ``-L``, an unknown
``xargs`` or ``git ls-files`` option) — then the arguments stay unknown and the command asks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.permissions.bash_glob import name_matches
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.permissions.shell import DYN, ShellAnalysis, SimpleCommand, Word, analyse
from agent_tui.core.permissions.shell_paths import resolve_word_paths

MAX_ENTRIES = 5000


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


FIND_FLAGS = _set(
    "-print -print0 -xdev -mount -nowarn -warn -daystart -depth -noleaf -true -empty "
    "-readable -writable -executable"
)
FIND_VALUED = _set(
    "-type -xtype -maxdepth -mindepth -mtime -mmin -atime -amin -ctime -cmin -newer -size "
    "-user -group -uid -gid -perm -links -used"
)
"""Predicates that only narrow what ``find`` prints (``-newer F`` reads F's time, not F)."""
XARGS_FLAGS = _set("-0 --null -r --no-run-if-empty -t --verbose -x --exit")
XARGS_VALUED = _set("-n --max-args -L --max-lines -P --max-procs -s --max-chars -I --replace")
GIT_LS_FILES_FLAGS = _set(
    "-c --cached -m --modified -o --others -d --deleted --exclude-standard --"
)
UNSAFE = frozenset(" \t\n\r\v\f'\"\\*?[]")


@dataclass(frozen=True)
class Listing:
    roots: tuple[Word, ...]
    names: tuple[tuple[str, bool], ...] = ()
    """``-name`` globs every printed entry matches (glob, ignoring case)."""
    split: bool = True
    """The printed names are split into words (and quotes or globs read) on their way."""
    git: bool = False
    """``git ls-files``: nothing inside ``.git`` is listed."""
    how: str = ""


def find_listing(words: list[Word], *, null: bool = False) -> Listing | None:
    """What ``find`` (``words``, up to an ``-exec``) prints, or None when not modelled."""
    args = words[1:]
    roots: list[Word] = []
    i = 0
    while i < len(args) and not args[i].text.startswith("-") and args[i].text not in "(!),":
        roots.append(args[i])
        i += 1
    names: list[tuple[str, bool]] = []
    print0 = False
    while i < len(args):
        word = args[i]
        text = word.text
        if not word.literal:
            return None
        if text in ("-exec", "-execdir", "-ok", "-okdir"):
            break
        if text in ("-name", "-iname") and i + 1 < len(args) and DYN not in args[i + 1].text:
            names.append((args[i + 1].text, text == "-iname"))
            i += 2
            continue
        if text in FIND_FLAGS:
            print0 |= text == "-print0"
            i += 1
            continue
        if text in FIND_VALUED and i + 1 < len(args):
            i += 2
            continue
        return None
    if not all(root.literal for root in roots):
        return None
    split = not (null and print0)
    if print0 and not null:
        return None  # NUL bytes where a reader splits on blanks: not modelled
    return Listing(tuple(roots or [Word(".", ".")]), tuple(names), split, how="find")


def git_listing(words: list[Word]) -> Listing | None:
    """What ``git ls-files [PATHS]`` prints (paths relative to where it runs)."""
    if len(words) < 2 or words[1].text != "ls-files":
        return None
    roots: list[Word] = []
    for word in words[2:]:
        if not word.literal:
            return None
        if word.text.startswith("-"):
            if word.text not in GIT_LS_FILES_FLAGS:
                return None
            continue
        if any(c in word.text for c in "*?[:\\") or word.text.startswith("-"):
            return None  # pathspec magic
        roots.append(word)
    return Listing(tuple(roots or [Word(".", ".")]), git=True, how="git ls-files")


def listing_of(command: SimpleCommand) -> Listing | None:
    """The listing a command that prints file names is, when it is one of the modelled."""
    if command.layers or command.assignments or not command.words:
        return None
    name = command.words[0].text
    if name == "find":
        return find_listing(command.words)
    if name == "git":
        return git_listing(command.words)
    return None


def fed_listing(command: SimpleCommand) -> Listing | None:
    """For ``xargs CMD`` fed by a ``|`` pipe from a listing, or ``find … -exec CMD {} +``:
    the listing its run-time arguments come from."""
    for layer in command.layers:
        head = layer.words[0].text if layer.words else ""
        if head == "find":
            found = find_listing(list(layer.words))
            return None if found is None else Listing(found.roots, found.names, False, how="find")
        if head == "xargs":
            null = _xargs_null(list(layer.words[1:]))
            feeder = _source(command)
            if null is None or feeder is None:
                return None
            if feeder.words and feeder.words[0].text == "find" and not feeder.layers:
                return find_listing(feeder.words, null=null)
            return listing_of(feeder) if not null else None
    return None


def _source(command: SimpleCommand) -> SimpleCommand | None:
    """The one command whose output reaches ``command``'s standard input, through filters
    that only drop or reorder whole lines (``find … | sort | head -20 | xargs …``)."""
    seen = 0
    while command.fed_by is not None and len(command.fed_by) == 1 and seen < 8:
        feeder = command.fed_by[0]
        if not _line_filter(feeder):
            return feeder
        command = feeder
        seen += 1
    return None


def _line_filter(command: SimpleCommand) -> bool:
    """``sort``, ``uniq``, ``head``/``tail`` reading the pipe: whole input lines out."""
    if command.layers or command.assignments or not command.words:
        return False
    name, args = command.words[0].text, command.words[1:]
    if not all(w.literal for w in args):
        return False
    if name == "sort":
        return all(re.fullmatch(r"-[urnVf]+", w.text) for w in args)
    if name == "uniq":
        return not args
    if name in ("head", "tail"):
        texts = [w.text for w in args]
        if len(texts) == 2 and texts[0] == "-n":
            return texts[1].isdecimal()
        return len(texts) <= 1 and all(re.fullmatch(r"-n?[0-9]+", t) for t in texts)
    return False


def _xargs_null(args: list[Word]) -> bool | None:
    """Whether ``xargs``'s options (the words of its layer, the command excluded) read
    NUL-separated names; None when an option is not modelled."""
    null = False
    i = 0
    while i < len(args):
        text = args[i].text
        if text in ("-0", "--null"):
            null = True
        elif text in XARGS_FLAGS:
            pass
        elif text in XARGS_VALUED:
            i += 1
        elif any(text.startswith(v) and len(text) > len(v) for v in XARGS_VALUED if len(v) == 2):
            pass  # -n1, -I{}
        elif any(text.startswith(v + "=") for v in XARGS_VALUED if v.startswith("--")):
            pass
        elif not text.startswith("-"):
            break
        else:
            return None
        i += 1
    return null


def substituted_listing(word: Word) -> Listing | None:
    """``$(git ls-files src)`` / ``"$(find . -name '*.py')"`` as a whole argument."""
    raw = word.raw
    quoted = raw.startswith('"') and raw.endswith('"') and len(raw) > 2
    inner = raw[1:-1] if quoted else raw
    if word.text != DYN or not inner.startswith("$(") or not inner.endswith(")"):
        return None
    found: ShellAnalysis = analyse(inner[2:-1])
    if not found.understood or len(found.commands) != 1 or found.writes:
        return None
    listing = listing_of(found.commands[0])
    if listing is None or "$(" in inner[2:-1]:
        return None
    return Listing(listing.roots, listing.names, not quoted, listing.git, listing.how)


def listing_hit(
    listing: Listing, bases: list[Path], judge: Callable[[Path], Rule | None], fallback: Rule
) -> tuple[Rule, str] | None:
    """A protected file among what ``listing`` prints (or a name that would not reach the
    reader as printed), with how to say so; None when every entry is fine."""
    seen = 0
    for root_word in listing.roots:
        if listing.split and _unsafe(root_word.text):
            return fallback, f"{listing.how} lists {root_word.text}, which would be cut in words"
        for root in resolve_word_paths(root_word.text, root_word.glob, bases):
            matched_dirs: list[str] = []
            for path, is_root in _entries(root, listing.git):
                seen += 1
                if seen > MAX_ENTRIES:
                    return fallback, (
                        f"{listing.how} lists more than {MAX_ENTRIES:,} entries below "
                        f"{root_word.text}: too many to check for files the rule {fallback} "
                        "protects"
                    )
                name = path.name
                if listing.split and not is_root and (name.startswith("-") or _unsafe(name)):
                    return fallback, (
                        f"{listing.how} lists {path}, whose name the shell or xargs would cut "
                        "into other words (a blank, a quote, a glob character or a leading -), "
                        "so which files are read cannot be told"
                    )
                inside = any(str(path).startswith(d) for d in matched_dirs)
                if not inside and not all(_matches(name, g, fold) for g, fold in listing.names):
                    continue
                real = Path(os.path.realpath(path))
                found = judge(real)
                if found is not None:
                    return found, f"{listing.how} lists {path}, which the rule {found} protects"
                if path.is_dir() and not listing.git:  # a reader may read what is inside
                    if path.is_symlink():
                        return fallback, f"{listing.how} lists {path}, a link to a directory"
                    matched_dirs.append(str(path).rstrip("/") + "/")
    return None


def _entries(root: Path, git: bool) -> list[tuple[Path, bool]]:
    """The root (``find`` prints it too) and everything below it, not through symlinks;
    bounded."""
    out: list[tuple[Path, bool]] = []
    if not (git and root.is_dir()):
        out.append((root, True))
    if not root.is_dir() or root.is_symlink():
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        if git:
            dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in (*dirnames, *filenames):
            if git and name in dirnames:
                continue  # git lists files
            out.append((Path(dirpath) / name, False))
            if len(out) > MAX_ENTRIES + 1:
                return out
    return out


def _unsafe(name: str) -> bool:
    return any(c in UNSAFE or not c.isprintable() for c in name)


def _matches(name: str, glob: str, fold: bool) -> bool:
    """``find -name``: the glob against the whole name (a leading dot is an ordinary
    character); a glob this module does not model matches (the entry is judged)."""
    if fold:
        name, glob = name.lower(), glob.lower()
    return name_matches(glob, name, period=False) is not False
