"""A remote MCP tool as a registry entry, and its results as what the model reads.

The entry carries the server's JSON Schema as its input schema (checked when the tool is
listed: a broken schema is reported and replaced by a plain object schema, so the tool stays
callable and the model's tool array stays valid), and its ``readOnlyHint`` /
``destructiveHint`` annotations as metadata (fail-closed when absent: not read-only, and
destructive unless it says otherwise). A read-only tool may run in parallel with others.

Results: text as it is; images and audio as a one-line placeholder (type, size, where the
bytes were saved in the spill directory); resource links as pointers (``read with
read_mcp_resource(server, uri)``, ``resource_hub``) and embedded resources described
(embedded text included, binary saved like images); ``structuredContent`` as JSON when the
result has no text, never with binary data in it: a base64 string that repeats an image, audio
or blob of the content becomes a pointer to its saved file, another long base64 string is saved
the same way, and a structured copy of content that holds nothing else is left out (the saved
media's one-line notes say it all); ``isError`` becomes a ``tool_error``. (Progress
notifications become progress updates in ``call_clock``, which they keep alive.) Results then
go through the output budget like any tool's. Nothing here imports the SDK: blocks are read
by their ``type``.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import mimetypes
import os
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_tui.core.budget.spill_dir import SpillDir
from agent_tui.core.mcp.client.tasks import unavailable_reason
from agent_tui.core.state.nofollow import create_at
from agent_tui.core.tools.base import (
    JsonInput,
    Tool,
    ToolContext,
    ToolMeta,
    ToolOutput,
)
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.json_schema import schema_problem

MAX_DESCRIPTION = 2048
PLAIN_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
TOOL_ERROR = "mcp_tool_error"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/svg+xml": ".svg",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "audio/webm": ".webm",
}

RemoteCall = Callable[[str, dict[str, Any], ToolContext], Awaitable[Any]]
"""``(remote tool name, arguments, ctx) -> CallToolResult``: how an entry reaches its server."""


@dataclass(frozen=True)
class ToolInfo:
    """A remote tool as registered: what ``mcp list`` and the MCP panel show."""

    name: str
    server: str
    remote_name: str
    description: str
    read_only: bool
    destructive: bool
    schema_problem: str | None = None
    unavailable: str | None = None
    """Why the tool is not offered to the model (``tasks``: it must run as a task); None
    when it is in the registry."""


@dataclass
class MediaStore:
    """Where image/audio/blob bytes of results are saved (inside the spill directory), reached
    without following a link (``budget.spill_dir``): a link on the way sends them to a private
    directory instead, and ``problem`` says so."""

    root: Path
    cwd: Path
    _dir: SpillDir | None = field(default=None, init=False, repr=False)

    @property
    def where(self) -> SpillDir:
        """The spill directory this media directory is in (``root``'s parent)."""
        if self._dir is None:
            self._dir = SpillDir(self.root.parent, self.cwd)
        return self._dir

    @property
    def problem(self) -> str | None:
        return self.where.problem

    def save(self, data: bytes, mime: str, tool: str, call_id: str) -> str:
        """Write ``data``; returns the path as the model sees it (relative to the cwd)."""
        kind = mime.split(";")[0].strip().lower()
        ext = _EXTENSIONS.get(kind) or mimetypes.guess_extension(kind) or ".bin"
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        fd = self.where.open(self.root.name, create=True)
        try:
            with contextlib.suppress(OSError):  # there already (or a link: left alone)
                ignore = create_at(fd, ".gitignore", 0o644)
                with os.fdopen(ignore, "wb") as fh:
                    fh.write(b"# agent-tui: media from MCP tool results\n*\n")
            while True:
                token = secrets.token_hex(2)
                name = f"{stamp}-{_safe(tool)}-{_safe(call_id)}-{token}{ext}"
                try:
                    out = create_at(fd, name, 0o644)
                except FileExistsError:
                    continue
                break
        finally:
            os.close(fd)
        with os.fdopen(out, "wb") as fh:
            fh.write(data)
        path = self.where.path / self.root.name / name
        try:
            return path.relative_to(self.cwd).as_posix()
        except ValueError:
            return str(path)


def _safe(part: str) -> str:
    return _UNSAFE.sub("_", part).strip("_")[:40] or "x"


def annotations_of(remote: Any) -> tuple[bool, bool]:
    """(read_only, destructive) from a remote tool's annotations, fail-closed."""
    notes = getattr(remote, "annotations", None)
    read_only = getattr(notes, "read_only_hint", None) is True
    destructive = not read_only and getattr(notes, "destructive_hint", None) is not False
    return read_only, destructive


def wire_schema(schema: Any) -> tuple[dict[str, Any], str | None]:
    """(the schema the model sees, the problem of the server's schema if it has one)."""
    problem = schema_problem(schema)
    if problem is not None:
        return dict(PLAIN_SCHEMA), problem
    if "type" not in schema:
        return {"type": "object", **schema}, None
    return schema, None


def describe(server: str, remote: Any) -> str:
    text = (getattr(remote, "description", None) or "").strip()
    if not text:
        title = getattr(remote, "title", None)
        text = f"{title}. " if title else ""
        text += f"Tool {remote.name!r} of the MCP server {server!r}."
    if len(text) > MAX_DESCRIPTION:
        text = text[: MAX_DESCRIPTION - 1].rstrip() + "…"
    return text


def build_tool(
    name: str, server: str, remote: Any, call: RemoteCall, *, timeout: float, media: MediaStore
) -> tuple[Tool[JsonInput], ToolInfo]:
    """The registry entry for ``remote`` (a ``mcp.types.Tool``) and what to show about it."""
    schema, problem = wire_schema(getattr(remote, "input_schema", None))
    read_only, destructive = annotations_of(remote)
    remote_name: str = remote.name

    async def run(arguments: JsonInput, ctx: ToolContext) -> ToolOutput:
        # The arguments as parsed from the model's JSON (no model_dump: nothing to convert).
        result = await call(remote_name, dict(arguments.model_extra or {}), ctx)
        return await convert_result(result, name=name, server=server, ctx=ctx, media=media)

    tool: Tool[JsonInput] = Tool(
        name=name,
        description=describe(server, remote),
        input_model=JsonInput,
        call=run,
        meta=ToolMeta(read_only=read_only, concurrency_safe=read_only, destructive=destructive),
        timeout=timeout,
        input_schema=schema,
    )
    info = ToolInfo(
        name,
        server,
        remote_name,
        tool.description,
        read_only,
        destructive,
        problem,
        unavailable_reason(remote),
    )
    return tool, info


@dataclass
class _Rendered:
    parts: list[str] = field(default_factory=list)
    media: list[str] = field(default_factory=list)
    texts: int = 0
    saved: dict[str, str] = field(default_factory=dict)
    """The base64 text of each binary block, and the note that stands for it."""


LONG_BASE64 = 512
"""A structured-content string at least this long that is valid base64 is binary data."""
_BASE64 = re.compile(r"(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])(?=[^0-9]*[0-9])[A-Za-z0-9+/]+={0,2}")
"""Base64 (with both cases and a digit, as binary data has: not a long hex or word)."""
_MIRROR_KEYS = frozenset({"type", "mimeType", "mime_type", "uri", "name", "title"})
"""Keys of a content block's copy in ``structuredContent`` that add nothing to its note."""


async def convert_result(
    result: Any, *, name: str, server: str, ctx: ToolContext, media: MediaStore
) -> ToolOutput:
    """What the model reads of a ``CallToolResult``; ``isError`` raises a ``ToolFailure``."""
    rendered = _Rendered()
    for block in getattr(result, "content", None) or []:
        rendered.parts.append(await _block(block, rendered, name, ctx, media, server))
    structured = getattr(result, "structured_content", None)
    if structured is not None and rendered.texts == 0:
        pointed = await _without_binary(structured, rendered, name, ctx, media)
        if not (rendered.saved and _only_mirrors(pointed, set(rendered.saved.values()))):
            rendered.parts.append(json.dumps(pointed, ensure_ascii=False, indent=2, default=str))
    text = "\n".join(p for p in rendered.parts if p)
    data: dict[str, Any] = {"server": server}
    if rendered.media:
        data["media"] = rendered.media
    if getattr(result, "is_error", False):
        raise ToolFailure(
            TOOL_ERROR,
            f"{name} reported an error: {text or '(no message)'}",
            "Read the server's message: fix the arguments, or reach the goal another way.",
            retryable=False,
        )
    return ToolOutput(content=text or "(the tool returned no content)", data=data)


async def _block(
    block: Any, rendered: _Rendered, name: str, ctx: ToolContext, media: MediaStore, server: str
) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        rendered.texts += 1
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        mime = getattr(block, "mime_type", None) or "application/octet-stream"
        return await _binary(kind, getattr(block, "data", ""), mime, rendered, name, ctx, media)
    if kind == "resource_link":
        label = getattr(block, "name", None) or getattr(block, "title", None) or "resource"
        extra = [
            x for x in (getattr(block, "mime_type", None), getattr(block, "description", None)) if x
        ]
        tail = f" ({'; '.join(extra)})" if extra else ""
        read = f'read with read_mcp_resource(server="{server}", uri="{block.uri}")'
        return f"[resource link: {label} <{block.uri}>{tail}; {read}]"
    if kind == "resource":
        resource = block.resource
        uri = getattr(resource, "uri", "")
        mime = getattr(resource, "mime_type", None)
        text = getattr(resource, "text", None)
        if text is not None:
            rendered.texts += 1
            return f"[resource <{uri}>{f' ({mime})' if mime else ''}]\n{text}"
        blob = getattr(resource, "blob", "")
        label = f"resource <{uri}>"
        return await _binary(
            label, blob, mime or "application/octet-stream", rendered, name, ctx, media
        )
    return f"[unsupported content block of type {kind!r}]"


async def _binary(
    label: str,
    data: str,
    mime: str,
    rendered: _Rendered,
    name: str,
    ctx: ToolContext,
    media: MediaStore,
) -> str:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError, TypeError):
        return f"[{label}: {mime}, the data is not valid base64; not saved]"
    try:
        where = await asyncio.to_thread(media.save, raw, mime, name, ctx.call_id or "call")
    except OSError as exc:
        return f"[{label}: {mime}, {len(raw):,} bytes; could not be saved: {exc.strerror or exc}]"
    rendered.media.append(where)
    note = f"[{label}: {mime}, {len(raw):,} bytes, saved to {where}]"
    if isinstance(data, str):
        rendered.saved[data] = note
    return note


async def _without_binary(
    value: Any, rendered: _Rendered, name: str, ctx: ToolContext, media: MediaStore
) -> Any:
    """``value`` (structured content) with base64 data replaced by notes: the note of the
    block it repeats, else the note of the file it was saved to (``mimeType`` beside it
    names its type)."""
    if isinstance(value, str):
        if value in rendered.saved:
            return rendered.saved[value]
        if _looks_base64(value):
            return await _binary(
                "data", value, "application/octet-stream", rendered, name, ctx, media
            )
        return value
    if isinstance(value, list):
        return [await _without_binary(v, rendered, name, ctx, media) for v in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        mime = value.get("mimeType") or value.get("mime_type")
        for key, item in value.items():
            if (
                isinstance(item, str)
                and isinstance(mime, str)
                and item not in rendered.saved
                and _looks_base64(item)
            ):
                out[key] = await _binary("data", item, mime, rendered, name, ctx, media)
            else:
                out[key] = await _without_binary(item, rendered, name, ctx, media)
        return out
    return value


def _looks_base64(text: str) -> bool:
    return len(text) >= LONG_BASE64 and len(text) % 4 == 0 and bool(_BASE64.fullmatch(text))


def _only_mirrors(value: Any, notes: set[str]) -> bool:
    """Whether ``value`` holds nothing but notes of saved media and their metadata."""
    if isinstance(value, str):
        return value in notes
    if isinstance(value, list):
        return all(_only_mirrors(v, notes) for v in value)
    if isinstance(value, dict):
        return all(k in _MIRROR_KEYS or _only_mirrors(v, notes) for k, v in value.items())
    return False
