"""``find`` (GNU findutils 4.9): its expression, primary by primary.

Every primary is in a table: the tests and the harmless actions (``-name``, ``-type``,
``-print``, ``-printf``…), the ones that take a value (and how many words), and the ones that act:
``-exec``/``-execdir``/``-ok``/``-okdir`` run a command, judged like any other (``{}`` is a path
known only when it runs: below the start directory for ``-exec``, ``./NAME`` for ``-execdir``);
``-delete`` deletes the start directories' trees; ``-fprint``, ``-fprint0``, ``-fprintf``,
``-fls`` write a file; ``-files0-from`` reads one. A primary not in the table is not understood.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import DYN, FileWrite, Layer, SimpleCommand, Word
from agent_tui.core.permissions.shell.option_table import may_be_option

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


NO_VALUE = _set(
    "-print -print0 -ls -prune -quit -true -false -empty -executable -readable -writable "
    "-nouser -nogroup -depth -d -mount -xdev -noleaf -ignore_readdir_race "
    "-noignore_readdir_race -daystart -follow -warn -nowarn -help --help -version --version "
    "-not -a -and -o -or ( ) ! ,"
)
ONE_VALUE = _set(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname "
    "-regextype -type -xtype -size -perm -user -group -uid -gid -mtime -atime -ctime -mmin "
    "-amin -cmin -used -links -inum -maxdepth -mindepth -fstype -context -printf -newer "
    "-anewer -cnewer -samefile"
)
WRITES_ONE = _set("-fprint -fprint0 -fls")
EXEC = _set("-exec -execdir -ok -okdir")
OPTIONS = _set("-H -L -P")


def judge_find(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    args = command.words[1:]
    i = 0
    while i < len(args) and (args[i].text in OPTIONS or args[i].text.startswith(("-D", "-O"))):
        i += 2 if args[i].text == "-D" else 1
    roots: list[Word] = []
    while i < len(args) and not args[i].text.startswith("-") and args[i].text not in "(!)":
        roots.append(args[i])
        i += 1
    roots = roots or [Word(".", ".")]
    for root in roots:
        if may_be_option(root):
            a.note_opaque(
                f"find: the start point {root.raw or root.shown!r} is known only when it runs "
                "and could be a primary such as -delete"
            )
    while i < len(args):
        word = args[i]
        text = word.text
        if not word.literal:
            a.note_opaque(
                f"find: the word {word.raw or word.shown!r} of its expression is known only "
                "when it runs"
            )
            i += 1
            continue
        if text in EXEC:
            i = _exec(w, command, args, i, roots)
            continue
        if text == "-delete":
            for root in roots:
                a.writes.append(FileWrite(root, "find -delete", tree=True))
        elif text in WRITES_ONE or text == "-fprintf":
            if i + 1 < len(args):
                a.writes.append(FileWrite(args[i + 1], f"find {text}"))
            i += 3 if text == "-fprintf" else 2
            continue
        elif text == "-files0-from":
            if i + 1 < len(args):
                a.reads.append(args[i + 1])
            i += 2
            continue
        elif text in ONE_VALUE or (text.startswith("-newer") and len(text) == 8):
            if text in ("-newer", "-anewer", "-cnewer", "-samefile") and i + 1 < len(args):
                a.reads.append(args[i + 1])
            i += 2
            continue
        elif text not in NO_VALUE:
            a.note_opaque(
                f"find: {text} is not among the primaries the analysis knows for find "
                "(only those in its table are allowed under a rule)"
            )
        i += 1
    a.reads.extend(roots)
    return True


def _exec(w: Walker, command: SimpleCommand, args: list[Word], i: int, roots: list[Word]) -> int:
    text = args[i].text
    j = i + 1
    while j < len(args) and args[j].text not in (";", "+"):
        j += 1
    if j >= len(args):
        w.a.note_opaque(f"find: {text} without its closing ; or +")
    path = _found_path(text, roots)
    inner = [
        Word(word.text.replace("{}", path), word.raw, word.glob) if "{}" in word.text else word
        for word in args[i + 1 : j]
    ]
    if inner:  # with `+`, the paths come where `{}` is: its word stands for them all
        layer = Layer(tuple(command.words[: i + 2]), True)
        w.simple(inner, (*command.layers, layer))
    return j + 1


def _found_path(action: str, roots: list[Word]) -> str:
    """What ``{}`` becomes: a path below the start directory (``-exec``), or ``./NAME`` in the
    file's own directory (``-execdir``); known only when find runs, but never an option."""
    if action in ("-execdir", "-okdir"):
        return "./" + DYN
    if len(roots) == 1 and roots[0].literal and not roots[0].text.startswith("-"):
        return roots[0].text + DYN
    return DYN
