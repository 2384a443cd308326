"""``unzip`` (Info-ZIP 6.0): what it writes, written from ``unzip -hh``.

``unzip ARCHIVE [members] [-x excluded…] [-d DIR]``, options anywhere (``-qo``, ``-d DIR``):
it writes the members the archive names, known only when it runs, below ``-d`` or the working
directory — through the links already there, and any it extracts —, stripping ``../`` and a
leading ``/`` unless ``-:`` (then anywhere: a file named only at run time). ``-l -t -v -z -Z
-p -c`` list, test or print, writing nothing. ``-T`` sets the archive's time (a write of it).
Unknown letters are not understood (redteam3: ``unzip`` had no table, so ``run_shell(unzip:*)``
let ``unzip -o shipped.zip`` overwrite ``.git/hooks/pre-commit`` and ``.mcp.json``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.files import note_reads
from agent_tui.core.permissions.shell.model import DYN, FileWrite, SimpleCommand, Word

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_tui.core.permissions.shell.walking import Walker

NO_WRITE = frozenset("ltvzpcZ")
"""Modes that list, test or print (``-Z`` is zipinfo: its own options follow)."""
MODIFIERS = frozenset("nojaUCLXVKqDsNbBMfuT2")
"""Modifiers that change how it extracts, not where (``-T``: the archive's time, judged apart)."""
VALUED = frozenset("dxPOI")
"""``-d DIR``, ``-x LIST…``, ``-P password``, ``-O``/``-I`` charset."""
ANYWHERE = frozenset(":^")
"""``-:`` keeps ``../`` in names, ``-^`` control characters: the names go anywhere."""


def judge_unzip(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    args = command.words[1:]
    operands: list[Word] = []
    places: list[Word] = []
    letters: set[str] = set()
    excluding = False
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        index += 1
        if not word.literal and text.startswith(("-", DYN)):
            a.note_opaque(f"unzip with an argument known only at run time ({word.shown[:40]})")
            return True
        if text.startswith("-") and len(text) > 1 and text != "--":
            excluding = False
            for position, letter in enumerate(text[1:], 1):
                letters.add(letter)
                if letter in VALUED:
                    rest = text[position + 1 :]
                    value = Word(rest, rest) if rest else None
                    if value is None and letter != "x":
                        value = args[index] if index < len(args) else None
                        index += 1
                    if letter == "d" and value is not None:
                        places.append(value)
                    excluding = letter == "x"
                    break
                if letter not in NO_WRITE | MODIFIERS | ANYWHERE:
                    a.note_opaque(
                        f"unzip -{letter}, an option the analysis does not know (see unzip -hh; "
                        "a rule cannot allow it)"
                    )
                    return True
                if letter == "Z":
                    return True  # zipinfo: it lists
            continue
        if not excluding:
            operands.append(word)
    if not operands:
        return True
    archive = operands[0]
    note_reads(a, [archive], base)
    if "T" in letters:
        a.writes.append(FileWrite(archive, "unzip -T (sets the archive's time)"))
    if letters & NO_WRITE:
        return True
    how = "unzip (the files the archive names)"
    if letters & ANYWHERE or len(places) > 1:
        a.writes.append(FileWrite(Word(DYN, ""), how))
        return True
    place = places[0] if places else Word(".", ".")
    a.writes.append(FileWrite(place, how, tree=True, through_links=True))
    return True


JUDGES: dict[str, Callable[[Walker, SimpleCommand, str], bool]] = {"unzip": judge_unzip}
