"""What words known only at run time are bound to be, when the command itself says so.

``x=rm; $x -f f`` runs ``rm -f f``; ``rm${IFS}-f f`` runs ``rm -f f`` (bash never takes ``IFS``
from the environment, so a command that never sets it splits on space, tab and newline);
``eval $(echo rm f)`` runs ``rm f``. The analysis keeps such words as run-time text (``DYN``),
which is right for allow rules — nothing is allowed on a guess. Deny rules must not be dodged
that way, so this module computes the words a command may resolve to, from the values the
same command line gives its variables: literal assignments (``x=rm``, ``declare x=rm``),
``for x in a b`` loop words, the default ``IFS``, the home directory, and ``$(echo WORDS)``.

The result is used only to *deny*: a variable set to several values yields each of them (any
one that a deny rule forbids denies the command), and a value set somewhere the run may not
pass still counts. Nothing here ever makes a command allowed.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
from dataclasses import dataclass, field

from agent_tui.core.permissions.shell.expand import Budget, Node, WordReader
from agent_tui.core.permissions.shell.model import DYN, ShellAnalysis, Word
from agent_tui.core.permissions.shell.parse import parse
from agent_tui.core.permissions.shell.words import (
    Segment,
    decode_ansi_c,
    expand_tilde,
    is_glob,
    make_words,
)

DEFAULT_IFS = " \t\n"
MAX_VALUES = 8
"""Values kept per variable."""
MAX_ALTERNATIVES = 16
"""Word lists one command may resolve to."""
MAX_RAW = 4096
"""Longer words are not re-read."""

_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class Resolved:
    words: list[Word]
    used: set[str] = field(default_factory=set)
    """What the resolution relied on: ``x=rm``, ``IFS``, ``$(echo …)``."""


def variable_values(a: ShellAnalysis) -> dict[str, list[str]]:
    """The literal values the command gives each variable (the shell's own, not a command's
    environment), plus the default ``IFS`` and ``HOME`` when the command never sets them."""
    values: dict[str, list[str]] = {}
    assigned: set[str] = set()
    for assignment in a.assignments:
        if assignment.how in ("prefix", "env"):
            continue  # NAME=v cmd: the command's environment; $NAME still expands the old value
        assigned.add(assignment.name)
        found: list[str] = []
        if assignment.how == "loop":
            found = [w.text for w in a.loop_values.get(assignment.name, []) if w.literal]
        elif (
            assignment.value is not None
            and DYN not in assignment.value.text
            and not assignment.value.raw.startswith("(")  # an array
        ):
            found = [assignment.value.text]
        known = values.setdefault(assignment.name, [])
        for value in found:
            if value not in known and len(known) < MAX_VALUES:
                known.append(value)
    if "IFS" not in assigned:
        values["IFS"] = [DEFAULT_IFS]
    if "HOME" not in assigned:
        values["HOME"] = [os.path.expanduser("~")]
    for _ in range(2):  # x=$(echo a); y=$x/b: values made of other known values
        for assignment in a.assignments:
            given = assignment.value
            if (
                assignment.how in ("prefix", "env", "loop")
                or given is None
                or DYN not in given.text
                or not given.raw
                or given.raw.startswith("(")
                or len(given.raw) > MAX_RAW
            ):
                continue
            known = values.setdefault(assignment.name, [])
            for resolved in resolve_raw(given.raw, {k: v for k, v in values.items() if v}):
                text = " ".join(word.text for word in resolved.words)  # no splitting there
                if text not in known and len(known) < MAX_VALUES:
                    known.append(text)
    return {name: found for name, found in values.items() if found}


def resolve_words(words: list[Word], values: dict[str, list[str]]) -> list[Resolved]:
    """The word lists ``words`` may become once run-time parts the command determines are
    filled in (only lists that differ from ``words``); bounded."""
    options: list[list[Resolved]] = []
    index = 0
    changed = False
    while index < len(words):
        word = words[index]
        end = index + 1
        if DYN not in word.text or not word.raw or len(word.raw) > MAX_RAW:
            options.append([Resolved([word])])
            index = end
            continue
        while end < len(words) and words[end].raw == word.raw and DYN in words[end].text:
            end += 1  # {a,b}$x: one source word expanded to several
        found = resolve_raw(word.raw, values)
        if found:
            options.append(found)
            changed = True
        else:
            options.append([Resolved(words[index:end])])
        index = end
    if not changed:
        return []
    out: list[Resolved] = []
    for combination in itertools.islice(itertools.product(*options), MAX_ALTERNATIVES):
        resolved = Resolved([w for part in combination for w in part.words])
        for part in combination:
            resolved.used |= part.used
        out.append(resolved)
    return out


def resolve_raw(raw: str, values: dict[str, list[str]]) -> list[Resolved]:
    """The words one source word becomes for each combination of the values of the variables
    it names; [] when it does not parse alone or nothing in it is known."""
    source = f": {raw}".encode("utf-8", "surrogateescape")
    parsed = parse(source)
    if parsed.cut or parsed.root.has_error:
        return []
    command = parsed.root.named_children[0] if parsed.root.named_children else None
    if command is None or command.type != "command":
        return []
    arguments = [c for c in command.named_children if c.type != "command_name"]
    if len(arguments) != 1:
        return []
    referenced = {m.group(1) for m in _REFERENCE.finditer(raw)} | {"IFS"}  # splitting uses IFS
    names = sorted(referenced & values.keys())
    choices = [[(name, value) for value in values[name]] for name in names]
    out: list[Resolved] = []
    for combination in itertools.islice(itertools.product(*choices), MAX_ALTERNATIVES):
        reader = _Reader(source, dict(combination))
        words = reader.read(arguments[0])
        if words is not None and reader.used:
            out.append(Resolved(words, reader.used))
    return out


def printed(program: str, words: list[str]) -> str | None:
    """What ``program words…`` prints, for the few commands whose output is their arguments;
    None for any other command or option."""
    if program == "echo":
        escapes = False
        while words and re.fullmatch(r"-[neE]+", words[0]):
            escapes = "e" in words[0] or (escapes and "E" not in words[0])
            words = words[1:]
        text = " ".join(words)
        return decode_ansi_c(text.replace("\\0", "\\")) if escapes else text
    if program == "printf" and words and not words[0].startswith("-"):
        tokens = re.split(r"(%%|%s)", words[0])
        if any("%" in t for t in tokens if t not in ("%%", "%s")):
            return None  # another conversion
        slots = tokens.count("%s")
        args = words[1:]
        out: list[str] = []
        for start in range(0, max(len(args), 1) if slots else 1, slots or 1):
            chunk = iter(args[start : start + slots])
            for token in tokens:
                if token == "%s":
                    out.append(next(chunk, ""))
                else:
                    out.append("%" if token == "%%" else decode_ansi_c(token))
        return "".join(out)
    if program in ("which", "command", "type") and words:
        flags, names = words[:-1], words[-1:]
        if (program, flags) not in (("which", []), ("command", ["-v"]), ("type", ["-P"])):
            return None
        found = shutil.which(names[0])
        return found
    return None


class _Expanded(tuple[str, bool]):
    """An unquoted expansion's value: split on ``IFS``, globbed, never brace-expanded."""


class _Reader(WordReader):
    def __init__(self, source: bytes, values: dict[str, str]) -> None:
        self.a = ShellAnalysis(source.decode("utf-8", "surrogateescape"))
        self.src = source
        self.budget = Budget()
        self.nesting = 0
        self.values = values
        self.used: set[str] = set()

    def substitution(self, node: Node) -> None:
        """Commands are not run here."""

    def read(self, node: Node) -> list[Word] | None:
        segments = self.segments(node, quoted=False)
        if any(DYN in text for text, _ in segments):
            return None
        raw = self.text(node)
        words: list[Word] | None
        if not any(isinstance(s, _Expanded) for s in segments):
            words = make_words(segments, raw)
        elif any(not isinstance(s, _Expanded) and not s[1] and "{" in s[0] for s in segments):
            return None  # brace expansion comes first; not followed together with splitting
        else:
            words = self._fields(segments, raw)
        if words is None or any(DYN in word.text for word in words):
            return None
        return words

    def segments(self, node: Node, quoted: bool) -> list[Segment]:
        kind = node.type
        if kind == "expansion" and self._default(node) is not None:
            return self._default_value(node, quoted)
        if kind in ("simple_expansion", "expansion"):
            name = self._plain_name(node)
            if name is None or name not in self.values:
                return [(DYN, quoted)]
            value = self.values[name]
            if name == "IFS":
                self.used.add(
                    "$IFS, which the command never sets (space, tab, newline)"
                    if value == DEFAULT_IFS
                    else f"IFS={value!r}"
                )
            else:
                self.used.add(f"{name}={value!r}")
            return self._value(self.values[name], quoted)
        if kind == "command_substitution":
            echoed = self._echo(node)
            if echoed is None:
                return [(DYN, quoted)]
            self.used.add(f"{self.text(node)[:40]} printing {echoed!r}")
            return self._value(echoed, quoted)
        return super().segments(node, quoted)

    def _default(self, node: Node) -> tuple[str, str] | None:
        """``${name:-word}`` (also ``-``, ``:=``, ``=``): (name, operator), else None."""
        children = node.children
        if len(children) < 4 or children[1].type != "variable_name":
            return None
        operator = children[2].type
        if operator not in (":-", "-", ":=", "="):
            return None
        return self.text(children[1]), operator

    def _default_value(self, node: Node, quoted: bool) -> list[Segment]:
        """The value's known values, or — when the command never sets it — the default word
        (the value it has when unset)."""
        default = self._default(node)
        assert default is not None
        name, operator = default
        if name in self.values:
            value = self.values[name]
            if value or not operator.startswith(":"):
                self.used.add(f"{name}={value!r}")
                return self._value(value, quoted)
        elif name in ("IFS", "HOME"):
            return [(DYN, quoted)]
        self.used.add(f"${{{name}{operator}…}} when {name} is unset")
        out: list[Segment] = []
        for child in node.children[3:-1]:
            for segment in self.segments(child, quoted):
                if quoted or segment[1] or isinstance(segment, _Expanded):
                    out.append(segment)
                else:  # the default's own text is split and globbed like a value
                    out.append(_Expanded((segment[0], False)))
        return out

    def _value(self, value: str, quoted: bool) -> list[Segment]:
        return [(value, True)] if quoted else [_Expanded((value, False))]

    def _plain_name(self, node: Node) -> str | None:
        """``$name`` or ``${name}``, else None."""
        named = node.named_children
        if len(named) != 1 or named[0].type != "variable_name":
            return None
        if node.type == "expansion" and [c.type for c in node.children] != [
            "${",
            named[0].type,
            "}",
        ]:
            return None
        return self.text(named[0])

    def _echo(self, node: Node) -> str | None:
        """The output of a command substitution whose command only prints its literal words
        (``echo``, ``printf`` without conversions other than ``%s``) or names a program's path
        (``which``, ``command -v``, ``type -P``), trailing newlines removed; else None."""
        named = node.named_children
        if len(named) != 1 or named[0].type != "command":
            return None
        parts = [c for c in named[0].named_children]
        if not parts or parts[0].type != "command_name":
            return None
        words: list[str] = []
        for part in parts[1:]:
            if part.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                return None
            inner = _Reader(self.src, self.values)
            found = inner.read(part)
            if found is None or any(not w.literal for w in found):
                return None
            words.extend(w.text for w in found)
        output = printed(self.text(parts[0]), words)
        return None if output is None else output.rstrip("\n")

    def _fields(self, segments: list[Segment], raw: str) -> list[Word] | None:
        ifs = self.values.get("IFS")
        if ifs is None:
            return None
        blanks = "".join(c for c in ifs if c in DEFAULT_IFS)
        others = "".join(c for c in ifs if c not in DEFAULT_IFS)
        if others:  # each one ends a field, with the blanks around it
            around = f"[{re.escape(blanks)}]*" if blanks else ""
            splitter = f"{around}[{re.escape(others)}]{around}"
            if blanks:
                splitter += f"|[{re.escape(blanks)}]+"
        else:
            splitter = f"[{re.escape(blanks)}]+" if blanks else ""
        fields: list[list[Segment]] = []
        current: list[Segment] = []
        open_field = False
        for segment in segments:
            if not isinstance(segment, _Expanded):
                current.append(segment)
                open_field = True
                continue
            value = segment[0]
            pieces = re.split(splitter, value) if splitter else [value]
            for position, piece in enumerate(pieces):
                if position > 0 and open_field:
                    fields.append(current)
                    current, open_field = [], False
                if piece:
                    current.append((piece, False))
                    open_field = True
        if open_field:
            fields.append(current)
        out: list[Word] = []
        for position, parts in enumerate(fields):
            if position == 0 and not isinstance(segments[0], _Expanded):
                parts = expand_tilde(parts)
            out.append(Word("".join(t for t, _ in parts), raw, glob=is_glob(parts)))
        return out
