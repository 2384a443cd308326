"""Server-sent events: turn a stream of text lines into ``SSEEvent`` values.

Line splitting (LF, CRLF, CR, and chunk boundaries anywhere, even between CR and LF) is left to
``httpx.Response.aiter_lines``; this module implements the event-stream field rules on top:
``event:`` and ``data:`` fields, multi-line data joined with ``\\n``, ``:`` comments ignored,
one optional space after the colon stripped, a blank line ends an event.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass

__all__ = ["SSEDecoder", "SSEEvent", "iter_sse"]


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event. ``event`` is ``"message"`` when the server named none."""

    data: str
    event: str = "message"
    id: str | None = None


class SSEDecoder:
    """Feed it lines (without terminators); it returns an event when a blank line ends one."""

    def __init__(self) -> None:
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None

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
        # "retry" and unknown fields are ignored, as the spec says.
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


async def iter_sse(lines: AsyncIterable[str]) -> AsyncIterator[SSEEvent]:
    """Events from an async iterable of lines, e.g. ``response.aiter_lines()``."""
    decoder = SSEDecoder()
    async for line in lines:
        event = decoder.feed(line)
        if event is not None:
            yield event
    last = decoder.flush()
    if last is not None:
        yield last
