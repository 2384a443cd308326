"""Text that can always be written as UTF-8: no lone surrogates in what the transcript, the
events, the session file and the wire carry.

A Python ``str`` can hold code points UTF-8 cannot: lone surrogates (U+D800–U+DFFF). They come
from bytes decoded with ``surrogateescape`` (file names from the OS, ``sys.argv``, a file that
is not valid UTF-8 read for an edit: each undecodable byte ``0xNN`` becomes ``U+DCNN``) and
from JSON, which may spell one (``"\\udce9"``) — a model's reply, an MCP server's result, an
old session file. One of them in a message made every later request fail
(``UnicodeEncodeError``) and ``stream-json`` crash, so they are removed where text enters:

- a byte that was not valid UTF-8 (U+DC80–U+DCFF) is shown as ``\\xNN``, the way read_file,
  grep and edit_file show such bytes of a file;
- any other lone surrogate becomes U+FFFD; a high and a low surrogate next to each other (a
  pair split across two JSON strings) become the character they encode.

``clean_text`` is cheap on ordinary text (an ASCII check, else one ``encode``). A model validated
with the context ``SURROGATE_FREE`` (its input known to hold none: JSON the parser refuses lone
surrogate escapes in) skips its recursive ``clean`` (``known_clean``).
"""

from __future__ import annotations

import re
from typing import Any

SURROGATE_FREE: dict[str, Any] = {"surrogate_free": True}
"""The validation context saying the input holds no lone surrogate (``known_clean``)."""

_SURROGATES = re.compile("([\ud800-\udbff][\udc00-\udfff])|[\ud800-\udfff]")
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def _pair(high: str, low: str) -> str:
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def _shown(match: re.Match[str]) -> str:
    pair = match.group(1)
    if pair is not None:
        return _pair(pair[0], pair[1])
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return "\ufffd"


def _json_escape(match: re.Match[str]) -> str:
    pair = match.group(1)
    if pair is not None:
        return _pair(pair[0], pair[1])
    return f"\\u{ord(match.group()):04x}"


def encodable(text: str) -> bool:
    """Whether ``text`` can be encoded as UTF-8 (it holds no surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clean_text(text: str) -> str:
    """``text`` without lone surrogates (see the module docstring); ``text`` itself when it
    has none."""
    if encodable(text):
        return text
    return _SURROGATES.sub(_shown, text)


def clean_json_text(text: str) -> str:
    """A JSON document's text (a tool call's raw arguments) without lone surrogates, its
    meaning kept: each one becomes the ``\\uXXXX`` escape that JSON parses back to it (only
    inside a string is a surrogate valid JSON at all)."""
    if encodable(text):
        return text
    return _SURROGATES.sub(_json_escape, text)


def known_clean(context: Any) -> bool:
    """Whether a validation's ``context`` (``ValidationInfo.context``) says its input holds no
    lone surrogate (``SURROGATE_FREE``): cleaning it would change nothing."""
    return isinstance(context, dict) and context.get("surrogate_free") is True


def clean(value: Any) -> Any:
    """``value`` with every string in it cleaned (``clean_text``): dict keys and values,
    lists and tuples, recursively. Anything else is returned as it is."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    if isinstance(value, tuple):
        return tuple(clean(v) for v in value)
    return value


def first_surrogate(value: Any) -> str | None:
    """The first lone surrogate in ``value`` (strings inside dicts and lists included), or
    None."""
    if isinstance(value, str):
        if encodable(value):
            return None
        for char in value:
            if 0xD800 <= ord(char) <= 0xDFFF:
                return char
        return None
    if isinstance(value, dict):
        items: list[Any] = [*value.keys(), *value.values()]
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        return None
    for item in items:
        found = first_surrogate(item)
        if found is not None:
            return found
    return None


def decode_escaped(raw: bytes) -> tuple[str, int]:
    """``raw`` decoded as UTF-8, each byte that is not valid UTF-8 shown as ``\\xNN``; and how
    many such bytes there were."""
    return escape_bytes(raw.decode("utf-8", "surrogateescape"))


def undecodable(text: str) -> int:
    """How many bytes that were not valid UTF-8 ``text`` (decoded with ``surrogateescape``)
    holds."""
    return 0 if encodable(text) else len(_ESCAPED_BYTE.findall(text))


def escape_bytes(text: str) -> tuple[str, int]:
    """``text`` decoded with ``surrogateescape``, its undecodable bytes (U+DC80–U+DCFF) shown
    as ``\\xNN``; and how many there were. Any other lone surrogate becomes U+FFFD."""
    if encodable(text):
        return text, 0
    return _SURROGATES.sub(_shown, text), len(_ESCAPED_BYTE.findall(text))


def escaped_bytes(count: int) -> str:
    """How a tool counts the undecodable bytes it showed: ``3 bytes shown as \\xNN``."""
    return f"{count:,} byte{'s' if count != 1 else ''} shown as \\xNN"
