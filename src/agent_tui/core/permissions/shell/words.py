"""Word values as bash computes them: quote removal, ``$'…'`` escapes, brace expansion, globs.

A word is built from *segments*: ``(text, quoted)``. Quoted text is taken literally; unquoted
text is where bash still performs brace expansion, tilde expansion and pathname expansion
(globs). Run-time values are ``DYN`` segments.
"""

from __future__ import annotations

import os
import re

from agent_tui.core.permissions.shell.model import DYN, Word

Segment = tuple[str, bool]
"""(text, quoted)."""

MAX_BRACE_WORDS = 256
"""Brace expansion beyond this many words is not followed: the word becomes run-time text."""

_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


_ANSI_ESCAPE = re.compile(
    r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.S
)


def _ansi_escape(match: re.Match[str]) -> str:
    code = match.group(1)
    first = code[0]
    if first in _SIMPLE_ESCAPES and len(code) == 1:
        return _SIMPLE_ESCAPES[first]
    if first in "01234567":
        return chr(int(code, 8) & 0xFF)
    if first == "x" and len(code) > 1:
        return chr(int(code[1:], 16))
    if first in "uU" and len(code) > 1:
        try:
            return chr(int(code[1:], 16))
        except (ValueError, OverflowError):
            return "\ufffd"
    if first == "c" and len(code) == 2:
        return chr(ord(code[1]) & 0x1F)
    return "\\" + code


def decode_ansi_c(body: str) -> str:
    """The value of ``$'body'`` (without the ``$'`` and ``'``), as bash decodes it; like bash,
    a NUL ends the string."""
    text = _ANSI_ESCAPE.sub(_ansi_escape, body) if "\\" in body else body
    return text.split("\0", 1)[0]


def unquoted_segments(text: str) -> list[Segment]:
    """An unquoted word's text: ``\\x`` is a quoted ``x``, backslash-newline disappears."""
    if "\\" not in text:
        return [(text, False)]
    out: list[Segment] = []
    plain: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            if plain:
                out.append(("".join(plain), False))
                plain = []
            if text[i + 1] != "\n":
                out.append((text[i + 1], True))
            i += 2
            continue
        plain.append(ch)
        i += 1
    if plain:
        out.append(("".join(plain), False))
    return out


def double_quoted(text: str) -> str:
    """The value of literal text inside ``"…"``: only ``\\$ \\` \\" \\\\`` and
    backslash-newline are escapes there."""
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


_GLOB = re.compile(r"[*?]|\[.*\]")


def is_glob(segments: list[Segment]) -> bool:
    """Does the word hold an unquoted glob (``*``, ``?``, ``[…]``) bash would expand?"""
    if not any(c in text for text, quoted in segments if not quoted for c in "*?["):
        return False
    unquoted = "".join(text if not quoted else "\x01" * len(text) for text, quoted in segments)
    return bool(_GLOB.search(unquoted.replace(DYN, "\x01")))


def expand_tilde(segments: list[Segment]) -> list[Segment]:
    """``~`` or ``~/…`` (unquoted, at the start) becomes the home directory."""
    if not segments or segments[0][1]:
        return segments
    first = segments[0][0]
    if first == "~" or first.startswith("~/"):
        home = os.path.expanduser("~")
        return [(home + first[1:], True), *segments[1:]]
    stack = _DIR_TILDE.match(first)
    if stack is not None:  # ~+ is $PWD, ~- $OLDPWD, ~N / ~+N / ~-N the directory stack
        return [(DYN + first[stack.end() :], True), *segments[1:]]
    return segments


_DIR_TILDE = re.compile(r"~(?:[+-]?[0-9]+|[+-])(?=/|$)")
"""Tilde prefixes that name a directory known only at run time (redteam3: ``~+/../x`` was
taken as a relative path ``~+/../x``, that is ``./x``, where bash writes ``$PWD/../x``)."""


def make_words(segments: list[Segment], raw: str) -> list[Word]:
    """The words one shell word becomes: braces expanded (bounded), tilde and globs noted."""
    expanded = expand_braces(segments)
    if expanded is None:  # too many, or braces around run-time text: unknown words
        text = "".join(t for t, _ in segments)
        return [Word(text + DYN if DYN not in text else text, raw)]
    words = []
    for parts in expanded:
        if len(expanded) > 1 and not any(text for text, _ in parts):
            continue  # {,y}: bash drops the empty word brace expansion makes
        parts = expand_tilde(parts)
        words.append(Word("".join(t for t, _ in parts), raw, glob=is_glob(parts)))
    return words


# -- brace expansion ---------------------------------------------------------------------------

Chars = list[tuple[str, bool]]


def _chars(segments: list[Segment]) -> Chars:
    return [(ch, quoted) for text, quoted in segments for ch in text]


def _regroup(chars: Chars) -> list[Segment]:
    out: list[Segment] = []
    run: list[str] = []
    current: bool | None = None
    for ch, quoted in chars:
        if quoted is not current and run:
            out.append(("".join(run), bool(current)))
            run = []
        current = quoted
        run.append(ch)
    if run:
        out.append(("".join(run), bool(current)))
    return out


def _find_brace(chars: Chars) -> tuple[int, int, list[int]] | None:
    """The first unquoted ``{…}`` with a top-level comma: (open, close, comma positions)."""
    for start, (ch, quoted) in enumerate(chars):
        if ch != "{" or quoted:
            continue
        depth, commas = 0, list[int]()
        for pos in range(start, len(chars)):
            c, q = chars[pos]
            if q:
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    if commas:
                        return start, pos, commas
                    break
            elif c == "," and depth == 1:
                commas.append(pos)
    return None


_RANGE = re.compile(r"^\{(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?\}$")


def _range_words(text: str) -> list[str] | None:
    match = _RANGE.match(text)
    if not match:
        return None
    a, b, step_text = match.groups()
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        lo, hi = int(a), int(b)
        if abs(hi - lo) // step + 1 > MAX_BRACE_WORDS:
            return []
        seq = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [str(n) for n in seq]
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        lo, hi = ord(a), ord(b)
        seq = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [chr(n) for n in seq]
    return None


def expand_braces(segments: list[Segment]) -> list[list[Segment]] | None:
    """Bash brace expansion of one word, or None when it cannot be followed here."""
    unquoted = [text for text, quoted in segments if not quoted]
    if not any("{" in text for text in unquoted):
        return [segments]
    if sum(text.count(",") for text in unquoted) + 1 > MAX_BRACE_WORDS:
        return None  # k groups of c_i commas make at least sum(c_i) + 1 words
    start_chars = _chars(segments)
    todo: list[Chars] = [start_chars]
    done: list[Chars] = []
    while todo:
        chars = todo.pop(0)
        found = _find_brace(chars)
        if found is None:
            ranged = _expand_range(chars)
            if ranged is None:
                done.append(chars)
            else:
                if not ranged:
                    return None
                todo[:0] = ranged
            if len(done) + len(todo) > MAX_BRACE_WORDS:
                return None
            continue
        open_, close, commas = found
        if len(commas) + 1 + len(done) + len(todo) > MAX_BRACE_WORDS:
            return None
        if any(c == DYN for c, _ in chars[open_ : close + 1]):
            return None
        bounds = [open_, *commas, close]
        options = [chars[bounds[i] + 1 : bounds[i + 1]] for i in range(len(bounds) - 1)]
        todo[:0] = [chars[:open_] + option + chars[close + 1 :] for option in options]
        if len(done) + len(todo) > MAX_BRACE_WORDS:
            return None
    return [_regroup(chars) for chars in done]


def _expand_range(chars: Chars) -> list[Chars] | None:
    """A ``{1..3}`` / ``{a..c}`` sequence in unquoted text; None when there is none; [] when it
    is too long to follow."""
    text = "".join(c if not q else "\x01" for c, q in chars)
    match = re.search(r"\{(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?\}", text)
    if match is None:
        return None
    words = _range_words(match.group())
    if words is None:
        return None
    if not words:
        return []
    start, end = match.span()
    return [chars[:start] + [(c, True) for c in word] + chars[end:] for word in words]
