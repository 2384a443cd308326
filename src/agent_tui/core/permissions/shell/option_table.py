"""Option tables: what each option of a program does, and a getopt that reads them as it does.

A table lists every option the analysis allows for one program, each with its kind: ``SAFE``
(it changes what the program prints or how it reads), ``READ`` (its value is a file it reads),
``WRITE`` / ``WRITE_DIR`` (its value is a file, or a directory, it writes or deletes), ``RUNS``
(it makes the program run another program or code) and ``OPAQUE`` (its effect is not known
before it runs: a configuration file that can set any option). An option the table does not
list is not understood, so no rule allows the command: the table is the allow-list.

``parse`` splits the arguments as the program's own option parser does (GNU ``getopt_long`` by
default: options anywhere before ``--``, short options grouped, ``-oVALUE`` / ``-o VALUE``,
``--opt=VALUE`` / ``--opt VALUE``, optional values only attached). Long options must be spelled
out: GNU programs also accept unambiguous abbreviations (``--out`` for ``--output``), but which
prefix is unambiguous depends on the installed version's full option list, so an abbreviation
is not understood. Where one table serves subcommands whose options differ (``pip``), an option
that takes a value in one and none in another is listed without one: read so, more words count
as options, never fewer.

``check`` records a table's verdict in the analysis: an option the table does not know, or an
argument known only at run time that could be one, makes the command not understood (no rule
allows it; in bypass mode it still runs); an option that runs another program or code is unseen
code (with a deny rule in force it asks in every mode); a written file is a write, judged like
a ``write_file`` of that path; a read file is checked against the read rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.files import note_reads
from agent_tui.core.permissions.shell.model import DYN, FileWrite, SimpleCommand, Word

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker


class Arg(Enum):
    NONE = "none"
    REQUIRED = "required"
    OPTIONAL = "optional"
    """Only attached: ``-iSUFFIX``, ``--color=WHEN``."""


class Kind(Enum):
    SAFE = "safe"
    READ = "read"
    WRITE = "write"
    WRITE_DIR = "write-dir"
    RUNS = "runs"
    OPAQUE = "opaque"


DANGEROUS = frozenset({Kind.WRITE, Kind.WRITE_DIR, Kind.RUNS, Kind.OPAQUE})


@dataclass(frozen=True)
class Opt:
    arg: Arg
    kind: Kind = Kind.SAFE
    why: str = ""
    """What it does, for messages: ``writes its output to FILE``."""
    default: str | None = None
    """For an optional-value ``WRITE`` option: the file written when no value is given."""


@dataclass(frozen=True)
class Table:
    program: str
    options: Mapping[str, Opt]
    permute: bool = True
    """GNU: options may follow operands (until ``--``). False: the first operand ends them."""
    numeric: bool = False
    """``-NUM`` is an option (``head -20``, ``tail -5``)."""
    single_dash_long: bool = False
    """``-name`` is one option, not ``-n -a -m -e`` (``find``, ``xxd``)."""
    clusters: bool = True
    """``-abc`` is ``-a -b -c``."""
    plus: bool = False
    """``+N`` words are options (``tail +5``, ``more +10``)."""
    risky: bool = False
    """Its harmless-looking options can still move where it writes (``cp -t DIR``): an
    argument known only at run time may be one."""

    @property
    def dangerous(self) -> bool:
        return self.risky or any(opt.kind in DANGEROUS for opt in self.options.values())


@dataclass(frozen=True)
class Used:
    name: str
    opt: Opt
    value: Word | None
    index: int
    """Where its word is among the arguments."""


@dataclass
class Parsed:
    used: list[Used] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    operand_indexes: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    end: int = 0
    """Index of the first argument after the options (for tables that stop at an operand)."""

    def named(self, *names: str) -> list[Used]:
        return [u for u in self.used if u.name in names]

    def values(self, *names: str) -> list[Word]:
        return [u.value for u in self.used if u.name in names and u.value is not None]

    def has(self, *names: str) -> bool:
        return any(u.name in names for u in self.used)


def may_be_option(word: Word) -> bool:
    """A word whose value is not known yet could turn out to be an option: ``$x``, ``*``."""
    if word.literal:
        return False
    first = word.text[:1]
    if first == DYN:
        return True
    return word.glob and first in "*?["


def parse(args: list[Word], table: Table) -> Parsed:
    """Read ``args`` (the words after the program name) as the program would."""
    out = Parsed()
    options = table.options
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text
        if text == "--":
            out.end = i + 1
            rest = range(i + 1, len(args))
            out.operands.extend(args[k] for k in rest)
            out.operand_indexes.extend(rest)
            return out
        if may_be_option(word) and table.dangerous:
            out.problems.append(
                f"the argument {word.raw or word.shown!r} is known only when the command runs "
                f"and could be one of {table.program}'s options that write files or run programs"
            )
        if text == "-" or not text.startswith(("-", "+") if table.plus else "-"):
            if not table.permute:
                out.end = i
                rest = range(i, len(args))
                out.operands.extend(args[k] for k in rest)
                out.operand_indexes.extend(rest)
                return out
            out.operands.append(word)
            out.operand_indexes.append(i)
            i += 1
            continue
        if table.plus and text.startswith("+"):
            if text[1:].isdigit() or "+" in options:
                out.used.append(Used("+", Opt(Arg.NONE), Word(text[1:], text[1:]), i))
            else:
                out.problems.append(_unknown(table, text))
            i += 1
            continue
        if table.numeric and text[1:].isdigit():
            out.used.append(Used("-NUM", Opt(Arg.NONE), Word(text[1:], text[1:]), i))
            i += 1
            continue
        if text.startswith("--") or table.single_dash_long or not table.clusters:
            i = _long(args, i, table, out)
        else:
            i = _short(args, i, table, out)
    out.end = len(args)
    return out


def _unknown(table: Table, text: str) -> str:
    shown = text.replace(DYN, "…")
    return (
        f"{shown} is not among the options the analysis knows for {table.program} "
        "(only those in its table are allowed under a rule)"
    )


def _long(args: list[Word], i: int, table: Table, out: Parsed) -> int:
    word = args[i]
    name, eq, attached = word.text.partition("=")
    opt = table.options.get(name)
    if opt is None:
        out.problems.append(_unknown(table, name))
        return i + 1
    if eq:
        if opt.arg is Arg.NONE:
            out.problems.append(f"{name} takes no value (here {word.shown!r})")
            return i + 1
        raw = word.raw.partition("=")[2] if word.raw else attached
        out.used.append(Used(name, opt, Word(attached, raw, word.glob), i))
        return i + 1
    if opt.arg is Arg.REQUIRED:
        if i + 1 >= len(args):
            out.problems.append(f"{name} is missing its value")
            return i + 1
        out.used.append(Used(name, opt, args[i + 1], i))
        return i + 2
    out.used.append(Used(name, opt, None, i))
    return i + 1


def _short(args: list[Word], i: int, table: Table, out: Parsed) -> int:
    word = args[i]
    text = word.text
    pos = 1
    while pos < len(text):
        name = "-" + text[pos]
        opt = table.options.get(name)
        if opt is None:
            out.problems.append(_unknown(table, name))
            return i + 1
        rest = text[pos + 1 :]
        if opt.arg is Arg.NONE:
            out.used.append(Used(name, opt, None, i))
            pos += 1
            continue
        if rest:
            out.used.append(Used(name, opt, Word(rest, rest, word.glob), i))
            return i + 1
        if opt.arg is Arg.OPTIONAL:
            out.used.append(Used(name, opt, None, i))
            return i + 1
        if i + 1 >= len(args):
            out.problems.append(f"{name} is missing its value")
            return i + 1
        out.used.append(Used(name, opt, args[i + 1], i))
        return i + 2
    return i + 1


# -- building tables ------------------------------------------------------------------------------


def _names(text: str) -> list[str]:
    return text.split()


def options(
    flags: str = "",
    values: str = "",
    optional: str = "",
    rows: Iterable[tuple[str, Opt]] = (),
) -> dict[str, Opt]:
    """``flags`` take no value, ``values`` take one, ``optional`` take one only attached; all
    three are ``SAFE``. ``rows``: (names, Opt) for the options that read, write or run."""
    out: dict[str, Opt] = {}
    for name in _names(flags):
        out[name] = Opt(Arg.NONE)
    for name in _names(values):
        out[name] = Opt(Arg.REQUIRED)
    for name in _names(optional):
        out[name] = Opt(Arg.OPTIONAL)
    for names, opt in rows:
        for name in _names(names):
            out[name] = opt
    return out


def row(
    names: str, kind: Kind, why: str, arg: Arg = Arg.REQUIRED, default: str | None = None
) -> tuple[str, Opt]:
    return names, Opt(arg, kind, why, default)


# -- a table's verdict -----------------------------------------------------------------------------


def check(
    w: Walker,
    command: SimpleCommand,
    table: Table,
    *,
    args: list[Word] | None = None,
    kinds: bool = True,
) -> Parsed:
    """Parse ``args`` (default: the command's arguments) with ``table``; note its problems and,
    with ``kinds``, what each option does."""
    a = w.a
    name = table.program
    words = command.words[1:] if args is None else args
    parsed = parse(words, table)
    for problem in parsed.problems:
        a.note_opaque(f"{name}: {problem}")
    if command.extra_args and table.dangerous and table.permute and "--" not in _texts(words):
        a.note_opaque(
            f"{name}: it gets more arguments when it runs (xargs, find -exec … +), and one "
            f"could be an option of {name}'s that writes files or runs programs"
        )
    if kinds:
        record(w, parsed, name)
    return parsed


def record(w: Walker, parsed: Parsed, name: str) -> None:
    a = w.a
    for used in parsed.used:
        opt = used.opt
        value = used.value
        shown = f"{used.name}" + (f" {value.shown}" if value is not None else "")
        if opt.kind is Kind.READ and value is not None:
            note_reads(a, [value], name)
        elif opt.kind in (Kind.WRITE, Kind.WRITE_DIR):
            target = value
            if target is None and opt.default is not None:
                target = Word(opt.default, opt.default)
            if target is not None and target.text not in ("-", "/dev/stdout", "/dev/stderr"):
                a.writes.append(
                    FileWrite(target, f"{name} {used.name}", tree=opt.kind is Kind.WRITE_DIR)
                )
        elif opt.kind is Kind.RUNS:
            a.note_unseen(f"{name}: {shown} {opt.why}")
        elif opt.kind is Kind.OPAQUE:
            a.note_opaque(f"{name}: {shown} {opt.why}")


def _texts(words: list[Word]) -> list[str]:
    return [word.text for word in words]


def operand_reads(w: Walker, command: SimpleCommand, operands: list[Word], name: str) -> None:
    """Operands that name files the program reads (and, after ``xargs``, names read at run
    time)."""
    if command.extra_args:
        w.a.unknown_reads.append((f"{name} with arguments read at run time", None))
    note_reads(w.a, operands, name)
