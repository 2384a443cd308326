"""What the MCP panel shows of a resource it reads: each part's URI, type and text, or for
binary content its size only (nothing is saved: the model's ``read_mcp_resource`` saves blobs,
a preview only looks).

``preview_of`` reads the SDK's ``ReadResourceResult`` by duck typing (the core imports no SDK
here), so the UI gets typed fields and never the SDK's objects.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

MAX_PREVIEW = 20_000
"""Characters of text shown at most (per resource; the rest is counted, not shown)."""


@dataclass(frozen=True)
class PreviewPart:
    uri: str
    mime_type: str | None
    text: str | None
    """The text content (cut to ``MAX_PREVIEW``); None for binary content."""
    size: int
    """Characters of the whole text, or bytes of the binary content (-1: not valid base64)."""

    @property
    def binary(self) -> bool:
        return self.text is None

    @property
    def cut(self) -> bool:
        return self.text is not None and self.size > len(self.text)


@dataclass(frozen=True)
class ResourcePreview:
    server: str
    uri: str
    parts: tuple[PreviewPart, ...] = ()


def preview_of(result: Any, *, server: str, uri: str) -> ResourcePreview:
    parts: list[PreviewPart] = []
    for content in getattr(result, "contents", None) or []:
        where = str(getattr(content, "uri", None) or uri)
        mime = getattr(content, "mime_type", None)
        text = getattr(content, "text", None)
        if isinstance(text, str):
            parts.append(PreviewPart(where, mime, text[:MAX_PREVIEW], len(text)))
            continue
        blob = getattr(content, "blob", "") or ""
        try:
            size = len(base64.b64decode(blob, validate=True))
        except (binascii.Error, ValueError, TypeError):
            size = -1
        parts.append(PreviewPart(where, mime or "application/octet-stream", None, size))
    return ResourcePreview(server, uri, tuple(parts))


__all__ = ["MAX_PREVIEW", "PreviewPart", "ResourcePreview", "preview_of"]
