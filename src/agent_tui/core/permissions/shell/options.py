"""GNU-style option scanning shared by the wrapper table and the writers' argument readers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agent_tui.core.permissions.shell.model import Word


@dataclass(frozen=True)
class Option:
    name: str
    """``-o`` or ``--output`` (a short cluster ``-abc`` yields ``-a``, ``-b``, ``-c``)."""
    value: Word | None
    index: int
    """Where the option word is in the argument list."""


@dataclass
class Scan:
    options: list[Option]
    operands: list[Word]
    end: int
    """Index of the first word not consumed (when scanning stops at the first operand)."""
    unknown: list[str]


def scan(
    args: list[Word],
    valued: frozenset[str],
    *,
    flags: frozenset[str] | None = None,
    stop_at_operand: bool = False,
    start: int = 0,
) -> Scan:
    """Split ``args`` into options and operands.

    ``valued`` options take the next word (or ``--opt=value`` / ``-ovalue``). With ``flags``
    given, a short or long option in neither set is *unknown* (reported, taken as a flag);
    without, every other option is a flag. ``--`` ends the options. With ``stop_at_operand``
    scanning ends at the first operand (``end`` says where), as for wrappers.
    """
    options: list[Option] = []
    operands: list[Word] = []
    unknown: list[str] = []
    i = start
    while i < len(args):
        word = args[i]
        text = word.text
        if text == "--":
            i += 1
            if stop_at_operand:
                return Scan(options, operands, i, unknown)
            operands.extend(args[i:])
            return Scan(options, operands, len(args), unknown)
        if not word.literal or not text.startswith("-") or text == "-":
            if stop_at_operand:
                return Scan(options, operands, i, unknown)
            operands.append(word)
            i += 1
            continue
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if eq:
                options.append(Option(name, Word(value, value), i))
            elif name in valued and i + 1 < len(args):
                options.append(Option(name, args[i + 1], i))
                i += 1
            else:
                if flags is not None and name not in flags and name not in valued:
                    unknown.append(name)
                options.append(Option(name, None, i))
            i += 1
            continue
        consumed = False
        for pos, letter in enumerate(text[1:], start=1):
            name = "-" + letter
            if name in valued:
                rest = text[pos + 1 :]
                if rest:
                    options.append(Option(name, Word(rest, rest), i))
                elif i + 1 < len(args):
                    options.append(Option(name, args[i + 1], i))
                    consumed = True
                else:
                    options.append(Option(name, None, i))
                break
            if flags is not None and name not in flags:
                unknown.append(name)
            options.append(Option(name, None, i))
        i += 2 if consumed else 1
    return Scan(options, operands, i, unknown)


def values(found: Scan, names: frozenset[str]) -> Iterator[Word]:
    for option in found.options:
        if option.name in names and option.value is not None:
            yield option.value


def has(found: Scan, names: frozenset[str]) -> bool:
    return any(option.name in names for option in found.options)
