"""Server-sent events: turn the bytes of a ``text/event-stream`` body into ``SSEEvent`` values.

The event-stream format (WHATWG HTML, "Server-sent events") is parsed from bytes, in two steps:

- ``SSELineDecoder`` splits bytes into lines. A line ends at CR, LF or CRLF and nowhere else;
  a CRLF split across two chunks is one line end, not two; one leading BOM is dropped; the
  text is always UTF-8 (invalid bytes become U+FFFD). Line ends are found in the bytes, before
  decoding: no UTF-8 sequence contains a CR or LF byte, so a character cut between chunks
  waits, whole, with the rest of its line.
  (``aiter_lines`` of httpx and httpx2 splits like ``str.splitlines``, also at U+2028, U+2029,
  U+0085 and a few control characters; the first three may stand raw inside a JSON string
  (JSON needs no escape for them), so an event's JSON was cut in two and the turn failed.)
- ``SSEDecoder`` applies the field rules: ``data:`` lines joined with ``\\n``, ``event:``,
  ``id:`` (kept across events, ignored if it contains NUL), ``retry:`` (ASCII digits only),
  ``:`` comments and unknown fields ignored, one space after the colon stripped, a blank line
  dispatches the event, an event without data is not dispatched.

One deliberate leniency: at the end of the stream the event still pending is dispatched (the
spec discards it), because some servers omit the blank line after their last event.

httpx2's ``EventSource`` was considered and not used: it refuses any content type but
``text/event-stream`` (the providers read a stream whatever the server calls it, unless it is
JSON or HTML), decodes with the header's charset instead of UTF-8, keeps a leading BOM (the
first event is lost) and dispatches events that carry no data.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass

__all__ = ["SSEDecoder", "SSEEvent", "SSELineDecoder", "SSEParser", "iter_sse"]

_BOM = "\ufeff"


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event. ``event`` is ``"message"`` when the server named none."""

    data: str
    event: str = "message"
    id: str | None = None


class SSELineDecoder:
    """Feed it chunks of bytes; it returns the lines they complete, without terminators."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []  # the line begun but not yet ended
        self._after_cr = False  # the last chunk ended in CR: an LF that follows belongs to it
        self._first = True  # the next line is the first of the stream (a BOM may lead it)

    def feed(self, data: bytes) -> list[str]:
        if not data:
            return []
        if self._after_cr:
            self._after_cr = False
            if data[0] == 0x0A:
                data = data[1:]
        cut = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1  # just past the last line end
        if not cut:
            if data:
                self._parts.append(data)
            return []
        head, tail = data[:cut], data[cut:]
        if self._parts:
            self._parts.append(head)
            head = b"".join(self._parts)
            self._parts = []
        if tail:
            self._parts.append(tail)
        elif head.endswith(b"\r"):
            self._after_cr = True
        # ``head`` ends at a line end, so it holds whole characters: decode it at once.
        text = head.decode("utf-8", errors="replace")
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        lines.pop()  # the empty string after the last line end
        return self._strip_bom(lines)

    def flush(self) -> list[str]:
        """The last line, if the stream ended without a line terminator."""
        self._after_cr = False
        if not self._parts:
            return []
        line = b"".join(self._parts)
        self._parts = []
        return self._strip_bom([line.decode("utf-8", errors="replace")])

    def _strip_bom(self, lines: list[str]) -> list[str]:
        if self._first:
            self._first = False
            if lines[0].startswith(_BOM):
                lines[0] = lines[0][1:]
        return lines


class SSEDecoder:
    """Feed it lines (without terminators); it returns an event when a blank line ends one."""

    def __init__(self) -> None:
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None
        self.retry: int | None = None
        """The reconnection time in ms the server asked for last (we never reconnect)."""

    def feed(self, line: str) -> SSEEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:
            self._id = value
        elif field == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value)
        # Unknown fields are ignored, as the spec says.
        return None

    def flush(self) -> SSEEvent | None:
        """The event still pending at end of stream (servers often omit the last blank line)."""
        return self._dispatch()

    def _dispatch(self) -> SSEEvent | None:
        if not self._data:
            self._event = ""
            return None
        event = SSEEvent(data="\n".join(self._data), event=self._event or "message", id=self._id)
        self._event = ""
        self._data = []
        return event


class SSEParser:
    """Bytes in, events out: ``SSELineDecoder`` and ``SSEDecoder`` together."""

    def __init__(self) -> None:
        self.lines = SSELineDecoder()
        self.fields = SSEDecoder()

    def feed(self, data: bytes) -> list[SSEEvent]:
        return self._events(self.lines.feed(data))

    def flush(self) -> list[SSEEvent]:
        events = self._events(self.lines.flush())
        last = self.fields.flush()
        return [*events, last] if last is not None else events

    def _events(self, lines: list[str]) -> list[SSEEvent]:
        return [event for line in lines if (event := self.fields.feed(line)) is not None]


async def iter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[SSEEvent]:
    """Events from an async iterable of byte chunks, e.g. ``response.aiter_bytes()``."""
    parser = SSEParser()
    async for chunk in chunks:
        for event in parser.feed(chunk):
            yield event
    for event in parser.flush():
        yield event
