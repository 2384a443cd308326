"""The front matter of a custom command file: a small, strict subset of YAML.

Between a first line ``---`` and the next ``---`` line, one ``key: value`` per line. A value
is plain text, a quoted string (``"…"`` with ``\\"`` / ``\\\\`` escapes, or ``'…'`` with
``''``), a flow list ``[a, b]``, a block scalar (``|`` keeps the lines, ``>`` folds them), or
empty followed by a block list of ``- item`` lines. A key whose value is an indented block
(a nested map such as Claude Code's ``hooks:``) is read as ``Nested``: its lines are kept
unread, and the caller decides (a key it uses must not be nested; a key it ignores is named
to the user). Comments (``# …`` on their own line) and blank lines are skipped. Anything
else (anchors, tags, text that is not ``key: value``) is an error naming the line: a command
file is data, and a parser that guesses would run a prompt the author did not write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)\s*:(.*)$")
BLOCK_SCALAR = re.compile(r"^([|>])[+-]?$")


@dataclass(frozen=True)
class Nested:
    """A value that is an indented block (a map, or a list of maps): not read here."""

    line: int
    """Where the key is (1-based, in the file)."""


Value = str | list[str] | Nested


class FrontMatterError(ValueError):
    """The front matter cannot be read; the message names the line."""


def split(text: str) -> tuple[dict[str, Value], str]:
    """``(fields, body)`` of a command file; no front matter: ``({}, text)``."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r").strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].rstrip("\r").strip() == "---":
            fields = parse([line.rstrip("\r") for line in lines[1:end]], first_line=2)
            return fields, "\n".join(lines[end + 1 :])
    raise FrontMatterError("the front matter opened with --- on line 1 is never closed")


def parse(lines: list[str], *, first_line: int = 1) -> dict[str, Value]:
    fields: dict[str, Value] = {}
    current: str | None = None
    """The key whose block (list, nested map) the next indented lines belong to."""
    current_line = 0
    scalar: tuple[str, str, list[str]] | None = None
    """A block scalar being read: its key, ``|`` or ``>``, its lines."""
    for number, line in enumerate(lines, start=first_line):
        stripped = line.strip()
        if scalar is not None:
            if not stripped or line[:1].isspace():
                scalar[2].append(stripped)
                continue
            fields[scalar[0]] = _block_scalar(scalar[1], scalar[2])
            scalar = None
        if not stripped or stripped.startswith("#"):
            continue
        value = fields.get(current) if current is not None else None
        if isinstance(value, Nested):
            if line[:1].isspace() or stripped.startswith("- ") or stripped == "-":
                continue  # inside the nested block
        elif stripped.startswith("- ") or stripped == "-":
            if not isinstance(value, list):
                raise FrontMatterError(f"line {number}: a list item outside a list")
            value.append(_scalar(stripped[1:].strip(), number))
            continue
        elif line[:1].isspace():
            if current is None:
                raise FrontMatterError(f"line {number}: indented text outside a block")
            fields[current] = Nested(current_line)  # a map below the key (or in its items)
            continue
        match = KEY.match(line)
        if match is None:
            raise FrontMatterError(f"line {number}: not `key: value`: {_show(line)}")
        key, raw = match.group(1), match.group(2).strip()
        if key in fields:
            raise FrontMatterError(f"line {number}: {key} is given twice")
        if not raw:
            fields[key] = []  # a block list or a nested map may follow; else an empty value
            current, current_line = key, number
            continue
        current = None
        block = BLOCK_SCALAR.match(raw)
        if block is not None:
            scalar = (key, block.group(1), [])
            fields[key] = ""
        elif raw.startswith("[") and raw.endswith("]"):
            fields[key] = _flow_list(raw, number)
        else:
            fields[key] = _scalar(raw, number)
    if scalar is not None:
        fields[scalar[0]] = _block_scalar(scalar[1], scalar[2])
    return {key: ("" if value == [] else value) for key, value in fields.items()}


def _block_scalar(style: str, lines: list[str]) -> str:
    while lines and not lines[-1]:
        lines.pop()
    if style == "|":
        return "\n".join(lines)
    return " ".join(part for part in lines if part)


def _show(line: str) -> str:
    return repr(line if len(line) <= 60 else line[:57] + "...")


def _scalar(raw: str, number: int) -> str:
    if raw[:1] in ("'", '"'):
        return _quoted(raw, number)
    if raw[:1] in ("&", "*", "!", "|", ">", "{", "@", "`"):
        raise FrontMatterError(f"line {number}: YAML feature not supported here: {_show(raw)}")
    comment = raw.find(" #")
    return (raw[:comment] if comment >= 0 else raw).strip()


def _quoted(raw: str, number: int) -> str:
    quote = raw[0]
    out: list[str] = []
    index = 1
    while index < len(raw):
        char = raw[index]
        if quote == '"' and char == "\\" and index + 1 < len(raw):
            nxt = raw[index + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            index += 2
            continue
        if char == quote:
            if quote == "'" and raw[index + 1 : index + 2] == "'":
                out.append("'")
                index += 2
                continue
            rest = raw[index + 1 :].strip()
            if rest and not rest.startswith("#"):
                raise FrontMatterError(f"line {number}: text after the closing quote")
            return "".join(out)
        out.append(char)
        index += 1
    raise FrontMatterError(f"line {number}: the quoted value is never closed")


def _flow_list(raw: str, number: int) -> list[str]:
    inner = raw[1:-1].strip()
    if not inner:
        return []
    return [_scalar(part, number) for part in split_top(inner)]


def split_top(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses and quotes, each part stripped:
    ``Bash(git add:*, git status:*), read_file`` is two parts."""
    parts: list[str] = []
    depth = 0
    quote = ""
    start = 0
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return [part for part in parts if part]
