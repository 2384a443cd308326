"""A git config file read the way git reads it (config.c, git 2.39): which keys it sets.

The checks that decide whether a config a command wrote runs code (``aftercheck``) must see the
keys git sees. Python's ``str.splitlines`` is not git's line splitting (it also splits at
``\\v``, ``\\f``, ``\\x1c``–``\\x1e``, ``\\x85``, ``\\u2028``…), so a comment holding ``\\f``
could show a section header to the check that git never reads, and put a key git files under
``[alias]`` under ``[remote "x"]`` for the check. Here the grammar is git's:

- lines end at ``\\n`` only (``\\r\\n`` is ``\\n``; a lone ``\\r`` is a character); a UTF-8 byte
  order mark at the start is skipped;
- blanks are space, tab, ``\\r`` and ``\\n`` (not ``\\v`` or ``\\f``); ``#`` and ``;`` start a
  comment outside a quoted value;
- ``[section]``, ``[section.sub]`` and ``[section "sub"]`` (``\\`` escapes in the quotes), and
  keys may follow on the header's line;
- a key is a letter then letters, digits and ``-``; ``key`` alone is ``true``; a value may be
  quoted, continue after ``\\`` at the end of a line, and use ``\\n \\t \\b \\\\ \\"``.

Anything git would refuse (a bad line, an unclosed quote, an unknown escape) raises
``ConfigError``: callers treat a config they cannot read as one that may run code.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

SPACE = " \t\n\r"


class ConfigError(ValueError):
    """git would refuse this config (``fatal: bad config line``)."""


@dataclass(frozen=True)
class Entry:
    section: str
    """As written (``[Core]``: ``Core``); git compares it ignoring case."""
    subsection: str | None
    """``[remote "origin"]``: ``origin`` (case kept); ``[branch.main]``: ``main``."""
    key: str
    """As written; git compares it ignoring case."""
    value: str | None
    """None for a bare ``key`` (true)."""

    @property
    def name(self) -> str:
        """The name ``git config --list`` prints (section and key lower case)."""
        middle = "" if self.subsection is None else f".{self.subsection}"
        if not self.section:  # a key before any section
            return self.key.lower()
        return f"{self.section.lower()}{middle}.{self.key.lower()}"

    @property
    def shown(self) -> str:
        middle = "" if self.subsection is None else f".{self.subsection}"
        return f"{self.section}{middle}.{self.key}"


def _alpha(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _keychar(c: str) -> bool:
    return _alpha(c) or ("0" <= c <= "9") or c == "-"


@dataclass
class _Reader:
    text: str
    pos: int = 0
    eof: bool = False
    line: int = 1

    def next(self) -> str:
        if self.pos >= len(self.text):
            self.eof = True
            return "\n"
        c = self.text[self.pos]
        self.pos += 1
        if c == "\r" and self.pos < len(self.text) and self.text[self.pos] == "\n":
            self.pos += 1
            c = "\n"
        if c == "\n":
            self.line += 1
        return c

    def fail(self, what: str) -> ConfigError:
        return ConfigError(f"{what} (line {self.line})")


def entries(text: str) -> Iterator[Entry]:
    """The entries of a config, in order."""
    r = _Reader(text.removeprefix("\ufeff"))
    section: tuple[str, str | None] = ("", None)
    comment = False
    while True:
        c = r.next()
        if c == "\n":
            if r.eof:
                return
            comment = False
            continue
        if comment or c in SPACE:
            continue
        if c in "#;":
            comment = True
            continue
        if c == "[":
            section = _section(r)
            continue
        if not _alpha(c):
            raise r.fail("a line that is neither a section, a key nor a comment")
        key, value = _key_value(r, c)
        yield Entry(section[0], section[1], key, value)


def _section(r: _Reader) -> tuple[str, str | None]:
    """``[name]``, ``[name.sub]`` (git takes the first ``.`` as the end of the section) or
    ``[name "sub"]``."""
    name = ""
    while True:
        c = r.next()
        if r.eof:
            raise r.fail("an unclosed section header")
        if c == "\n":
            raise r.fail("an unclosed section header")
        if c in SPACE:
            if not name:
                raise r.fail("an empty section name")
            return name, _subsection(r)
        if c == "]":
            if not name:
                raise r.fail("an empty section name")
            head, dot, rest = name.partition(".")
            return (head, rest.lower()) if dot else (name, None)
        if not _keychar(c) and c != ".":
            raise r.fail(f"{c!r} in a section name")
        name += c


def _subsection(r: _Reader) -> str:
    c = r.next()
    while c in SPACE:
        if c == "\n":
            raise r.fail("an unclosed section header")
        c = r.next()
    if c != '"':
        raise r.fail("a subsection without quotes")
    sub = ""
    while True:
        c = r.next()
        if c == "\n":
            raise r.fail("an unclosed subsection")
        if c == '"':
            break
        if c == "\\":
            c = r.next()
            if c == "\n":
                raise r.fail("an unclosed subsection")
        sub += c
    if r.next() != "]":
        raise r.fail("a subsection not closed by ]")
    return sub


def _key_value(r: _Reader, first: str) -> tuple[str, str | None]:
    key = first
    while True:
        c = r.next()
        if r.eof or not _keychar(c):
            break
        key += c
    while c in " \t" and not r.eof:  # git skips blanks (not a newline) before '='
        c = r.next()
    if c == "\n":
        return key, None
    if c != "=":
        raise r.fail(f"{c!r} after the key {key}")
    return key, _value(r)


def _value(r: _Reader) -> str:
    value: list[str] = []
    quote = comment = False
    space = 0
    while True:
        c = r.next()
        if c == "\n":
            if quote:
                raise r.fail("an unclosed quote")
            return "".join(value)
        if comment:
            continue
        if c in SPACE and not quote:
            if value:
                space += 1
            continue
        if not quote and c in ";#":
            comment = True
            continue
        value.append(" " * space)
        space = 0
        if c == "\\":
            c = r.next()
            if c == "\n":
                continue  # a line continued
            escaped = {"t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}.get(c)
            if escaped is None:
                raise r.fail(f"the escape \\{c}")
            value.append(escaped)
            continue
        if c == '"':
            quote = not quote
            continue
        value.append(c)
