"""The front matter of a custom command file: a small, strict subset of YAML.

Between a first line ``---`` and the next ``---`` line, one ``key: value`` per line. A value
is plain text, a quoted string (``"…"`` with ``\\"`` / ``\\\\`` escapes, or ``'…'`` with
``''``), a flow list ``[a, b]``, or empty followed by a block list of ``- item`` lines.
Comments (``# …`` on their own line) and blank lines are skipped. Anything else (nested maps,
anchors, multi-line scalars) is an error naming the line: a command file is data, and a
parser that guesses would run a prompt the author did not write.
"""

from __future__ import annotations

import re

KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)\s*:(.*)$")
Value = str | list[str]


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
    for number, line in enumerate(lines, start=first_line):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") or stripped == "-":
            items = fields.get(current) if current is not None else None
            if not isinstance(items, list):
                raise FrontMatterError(f"line {number}: a list item outside a list")
            items.append(_scalar(stripped[1:].strip(), number))
            continue
        if line[:1].isspace():
            raise FrontMatterError(f"line {number}: indented text (nested values are not read)")
        match = KEY.match(line)
        if match is None:
            raise FrontMatterError(f"line {number}: not `key: value`: {_show(line)}")
        key, raw = match.group(1), match.group(2).strip()
        if key in fields:
            raise FrontMatterError(f"line {number}: {key} is given twice")
        if not raw:
            fields[key] = []  # a block list may follow; else an empty value
            current = key
            continue
        current = None
        if raw.startswith("["):
            fields[key] = _flow_list(raw, number)
        else:
            fields[key] = _scalar(raw, number)
    return {key: ("" if value == [] else value) for key, value in fields.items()}


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
    if not raw.endswith("]"):
        raise FrontMatterError(f"line {number}: the list [ is never closed on its line")
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
