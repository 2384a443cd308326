"""``make`` (GNU make 4.3/4.4) and ``perl`` (5.x): what their options add to the program a rule
already allows.

``make`` runs the recipes of the project's makefile, the user's business under ``run_shell(make
…)``; not another makefile's (``-f``, ``--file``, ``-C`` to another directory's), not code given
inline (``--eval``/``-E``), not recipes whose programs a variable replaces (``make CC=x``,
``SHELL=…``: only a few variables that only say how much to print are allowed), and not
``-t``, which touches files the makefile names. ``perl`` code given inline (``-e``, ``-E``,
``-M``/``-m``, which perl pastes into code, and ``-F``) is not read by the analysis; ``-i``
edits its operand files (and writes their backups).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import FileWrite, SimpleCommand, Word
from agent_tui.core.permissions.shell.option_table import (
    Arg,
    Kind,
    Table,
    check,
    operand_reads,
    options,
    row,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_tui.core.permissions.shell.walking import Walker

MAKE = Table(
    "make",
    options(
        "-B -d -e -h -i -k -L -n -p -q -r -R -s -S -v -w --always-make --check-symlink-times "
        "--dry-run --environment-overrides --help --ignore-errors --just-print --keep-going "
        "--no-builtin-rules --no-builtin-variables --no-keep-going --no-print-directory "
        "--no-silent --print-data-base --print-directory --question --quiet --recon --silent "
        "--stop --trace --version --warn-undefined-variables",
        "-o -W --assume-new --assume-old --new-file --old-file --what-if",
        "-j -l -O --debug --jobs --load-average --max-load --output-sync --shuffle",
        rows=(
            row("-f --file --makefile", Kind.RUNS, "runs the recipes of another makefile"),
            row("-C --directory", Kind.RUNS, "runs the makefile of another directory"),
            row("-E --eval", Kind.RUNS, "evaluates make code given here"),
            row("-I --include-dir", Kind.OPAQUE, "looks for included makefiles in DIR"),
            row("-t --touch", Kind.OPAQUE, "touches the files the makefile names", Arg.NONE),
        ),
    ),
)
MAKE_VARIABLES = frozenset({"V", "VERBOSE", "Q", "QUIET"})
"""Variables a command line may set: they only change how much make prints."""


def judge_make(w: Walker, command: SimpleCommand, base: str) -> bool:
    parsed = check(w, command, MAKE)
    for word in parsed.operands:
        name, eq, _ = word.text.partition("=")
        variable = eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*[:+?!]?", name)
        if variable and name not in MAKE_VARIABLES:
            w.a.note_opaque(
                f"make: {word.shown} sets a make variable, which can change the programs "
                f"recipes run (CC, SHELL…); only {', '.join(sorted(MAKE_VARIABLES))} are "
                "allowed under a rule"
            )
    return True


PERL_FLAGS = frozenset("acfhnpsStTuUvwWX")
PERL_CODE = frozenset("eEmMF")
PERL_ARGUMENT = {
    "l": re.compile(r"[0-7]*"),
    "0": re.compile(r"x[0-9A-Fa-f]*|[0-7]*"),
    "C": re.compile(r"[0-9]+|[IOEioeASLa]*"),
    "d": re.compile(r"t?(?::.*)?"),
    "D": re.compile(r".*"),
    "x": re.compile(r".*"),
    "I": re.compile(r".*"),
    "i": re.compile(r".*"),
}
"""Switches with an argument in their own word, and how much of the rest is that argument
(``-lane`` is ``-l -a -n -e``: ``-l`` takes octal digits only; ``-i.bak`` takes it all)."""


def judge_perl(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    args = command.words[1:]
    in_place: Word | None = None
    code = False
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text
        if text == "--":
            i += 1
            break
        if not text.startswith("-") or text == "-":
            break
        if not word.literal:
            a.note_opaque(f"perl: the switch {word.raw or word.shown!r} is known only when it runs")
            i += 1
            continue
        pos, consumed = 1, 0
        while pos < len(text):
            letter = text[pos]
            pos += 1
            if letter in PERL_CODE:
                code = True
                consumed = 0 if pos < len(text) or letter == "F" else 1
                break
            pattern = PERL_ARGUMENT.get(letter)
            if pattern is not None:
                match = pattern.match(text, pos)
                argument = match.group() if match else ""
                pos += len(argument)
                if letter == "i":
                    in_place = Word(argument, argument)
                elif letter == "I" and not argument:
                    consumed = 1
                elif letter == "d" and argument.startswith(("t:", ":")):
                    a.note_opaque(f"perl: -d{argument} loads a debugger module (its code runs)")
                continue
            if letter not in PERL_FLAGS:
                a.note_opaque(f"perl: the switch -{letter} is not among those the analysis knows")
                break
        i += 1 + consumed
    if code:
        a.note_opaque(
            "perl: code given inline (-e, -E, -M, -m, -F) is perl, which the analysis does not "
            "read; put it in a script file and run that"
        )
        a.note_code("perl -e", " ".join(word.text for word in args))
        files = args[i:]
    else:
        files = args[i + 1 :]
        operand_reads(w, command, args[i : i + 1], base)
    operand_reads(w, command, files, base)
    if in_place is not None:
        for target in files:
            a.writes.append(FileWrite(target, "perl -i"))
            if in_place.text:
                suffix = in_place.text if "*" in in_place.text else "*" + in_place.text
                backup = suffix.replace("*", target.text)
                a.writes.append(FileWrite(Word(backup, backup), "perl -i's backup"))
    return True


JUDGES: dict[str, Callable[[Walker, SimpleCommand, str], bool]] = {
    "make": judge_make,
    "gmake": judge_make,
    "perl": judge_perl,
}
