"""A server's resources, roots and logging: the side of a connection that is not tools.

``ResourceSide`` belongs to one ``Connection``, which it sees through ``Host`` (its spec, its
``request`` and its ``note``), and works on its task (through ``request``) with the SDK's own
calls:

- **resources**: ``resources/list`` and ``resources/templates/list`` (every page) when the
  server has the resources capability, again on ``notifications/resources/list_changed`` (or
  the ``subscriptions/listen`` event on 2026-07-28 connections); ``read`` is
  ``resources/read``; a resource read once is subscribed to (``resources/subscribe``) when
  the server supports it, and ``notifications/resources/updated`` marks it updated;
- **roots**: ``roots/list`` is answered with the roots the manager gives (the workspace and
  ``mcp.roots``, ``core.mcp.client.roots``); ``roots_changed()`` sends
  ``notifications/roots/list_changed``;
- **logging**: ``notifications/message`` go into a bounded ``ServerLog``; ``set_level`` is
  ``logging/setLevel`` for servers with the logging capability.

Nothing here imports the SDK at module level (``connection`` imports it when it starts).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import time
import warnings
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.core.mcp.client.roots import RootEntry
from agent_tui.core.mcp.client.server_log import LogEntry, ServerLog
from agent_tui.core.mcp.config.spec import ServerSpec, offers_roots

if TYPE_CHECKING:
    from agent_tui.core.mcp.client.adapter import MediaStore

log = logging.getLogger(__name__)
MAX_PAGES = 50


@dataclass(frozen=True)
class ResourceInfo:
    """A resource as listed (``resources/list``), or a template (``uri`` is its template)."""

    server: str
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    template: bool = False
    updated: float | None = None
    """When the server last said it changed (a subscribed resource), else None."""
    subscribed: bool = False
    """Subscribed to (``resources/subscribe``, after a first read), so updates are told."""

    @property
    def label(self) -> str:
        return self.title or self.name or self.uri


def _info(server: str, item: Any, *, template: bool = False) -> ResourceInfo:
    return ResourceInfo(
        server=server,
        uri=str(item.uri_template if template else item.uri),
        name=str(getattr(item, "name", "") or ""),
        title=getattr(item, "title", None),
        description=getattr(item, "description", None),
        mime_type=getattr(item, "mime_type", None),
        size=getattr(item, "size", None) if not template else None,
        template=template,
    )


async def _quiet(call: Callable[[], Awaitable[Any]]) -> Any:
    """Await a deprecated SDK method (logging, roots, subscribe are deprecated as of
    2026-07-28, still the protocol of handshake-era servers) without its warning."""
    from mcp.shared.exceptions import MCPDeprecationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return await call()


class Host(Protocol):
    """What a side uses of its connection (``connection.Connection``)."""

    @property
    def spec(self) -> ServerSpec: ...
    @property
    def cwd(self) -> Path: ...
    async def request(self, label: str, op: Callable[[Any], Awaitable[Any]]) -> Any: ...
    def note(self, key: str, text: str | None) -> None: ...


class ResourceSide:
    def __init__(self) -> None:
        self.server = ""
        self.resources: list[ResourceInfo] = []
        self.templates: list[ResourceInfo] = []
        self.updated: dict[str, float] = {}
        self.subscribed: set[str] = set()
        self.log = ServerLog("")
        self.level: str | None = None
        """The level last set with ``logging/setLevel`` (None: the server's default)."""
        self.has_resources = False
        self.can_subscribe = False
        self.can_log = False
        self.roots: Callable[[], Sequence[RootEntry]] = lambda: ()
        """The roots to answer ``roots/list`` with (the manager sets it)."""
        self.on_update: Callable[[str], None] = lambda _server: None
        """Resources or log changed (not the tools: the registry need not be synced)."""
        self.on_log: Callable[[LogEntry], None] = lambda _entry: None
        self._conn: Host | None = None
        self._refresh = asyncio.Event()
        self._roots_changed = asyncio.Event()

    def bind(self, conn: Host) -> None:
        self._conn = conn
        self.server = conn.spec.name
        self.log = ServerLog(conn.spec.name)

    # -- the SDK client's options and events ----------------------------------------------------

    def client_options(self) -> dict[str, Any]:
        """``Client`` keywords: answer ``roots/list`` (this declares the roots capability with
        ``listChanged``; not for a server configured ``"roots": false``) and receive
        ``notifications/message``."""
        options: dict[str, Any] = {"logging_callback": self._on_log}
        if self._conn is None or offers_roots(self._conn.spec, self._conn.cwd):
            options["list_roots_callback"] = self._list_roots
        return options

    async def _list_roots(self, _context: Any) -> Any:
        from mcp.types import ListRootsResult, Root

        return ListRootsResult(
            roots=[Root(uri=entry.uri, name=entry.name) for entry in self.roots()]  # type: ignore[arg-type]
        )

    async def _on_log(self, params: Any) -> None:
        entry = self.log.add(str(params.level), params.logger, params.data)
        self.on_log(entry)
        self.on_update(self.server)

    def notified(self, message: Any) -> None:
        """A ``notifications/resources/*`` from the server."""
        method = getattr(message, "method", None)
        if method == "notifications/resources/list_changed":
            self._refresh.set()
        elif method == "notifications/resources/updated":
            self._mark_updated(str(message.params.uri))

    def event(self, event: Any) -> None:
        """A resource event of a ``subscriptions/listen`` stream (2026-07-28)."""
        uri = getattr(event, "uri", None)
        if uri is None:
            self._refresh.set()
        else:
            self._mark_updated(str(uri))

    def listen_filter(self, client: Any) -> dict[str, bool]:
        resources = getattr(client.server_capabilities, "resources", None)
        return {"resources_list_changed": bool(resources and resources.list_changed)}

    def _mark_updated(self, uri: str) -> None:
        self.updated[uri] = time.time()
        self.on_update(self.server)

    # -- on the connection's task -------------------------------------------------------------

    async def connected(self, client: Any) -> None:
        self.subscribed.clear()  # a new session (a reconnect): nothing subscribed, the
        self.level = None  # server's own log level
        capabilities = client.server_capabilities
        resources = getattr(capabilities, "resources", None)
        self.has_resources = resources is not None
        self.can_subscribe = bool(resources and resources.subscribe)
        self.can_log = getattr(capabilities, "logging", None) is not None
        if self.has_resources:
            await self._list(client)

    async def serve(self, client: Any) -> None:
        """Refresh the lists when told to; send ``roots/list_changed`` when the roots change."""
        import anyio

        async with anyio.create_task_group() as group:
            group.start_soon(self._refresher, client)
            group.start_soon(self._roots_notifier, client)

    async def _refresher(self, client: Any) -> None:
        while True:
            await self._refresh.wait()
            self._refresh.clear()
            if self.has_resources:
                await self._list(client)
                self.on_update(self.server)

    async def _roots_notifier(self, client: Any) -> None:
        while True:
            await self._roots_changed.wait()
            self._roots_changed.clear()
            try:
                await _quiet(client.send_roots_list_changed)
            except Exception as exc:
                log.warning(
                    "MCP server %s: telling it the roots changed failed: %s", self.server, exc
                )
                self._note("roots", f"telling it the roots changed failed: {exc}")

    async def _list(self, client: Any) -> None:
        try:
            resources = await _pages(client.list_resources, "resources")
            templates = await _pages(client.list_resource_templates, "resource_templates")
        except Exception as exc:
            log.warning("MCP server %s: listing the resources failed", self.server, exc_info=True)
            self._note("resources", f"listing the resources failed: {type(exc).__name__}: {exc}")
            return
        self._note("resources", None)
        self.resources = [_info(self.server, r) for r in resources]
        self.templates = [_info(self.server, t, template=True) for t in templates]

    def _note(self, key: str, text: str | None) -> None:
        if self._conn is not None:
            self._conn.note(key, text)

    # -- from anywhere (the manager) ----------------------------------------------------------

    def roots_changed(self) -> None:
        self._roots_changed.set()

    def listed(self) -> tuple[ResourceInfo, ...]:
        """Resources then templates, with when each was last updated."""
        out = []
        for item in self.resources:
            when = self.updated.get(item.uri)
            subscribed = item.uri in self.subscribed
            changed = when is not None or subscribed
            out.append(item if not changed else _with_update(item, when, subscribed))
        return (*out, *self.templates)

    async def read(self, uri: str) -> Any:
        """``resources/read`` of ``uri`` (a ``ReadResourceResult``; failures raise
        ``ToolFailure``); subscribes to it the first time when the server supports that."""
        assert self._conn is not None
        conn = self._conn

        async def op(client: Any) -> Any:
            result = await client.read_resource(uri)
            if self.can_subscribe and uri not in self.subscribed:
                self.subscribed.add(uri)
                try:
                    await _quiet(lambda: client.subscribe_resource(uri))
                except Exception as exc:
                    log.warning(
                        "MCP server %s: subscribing to %s failed: %s", self.server, uri, exc
                    )
                    self.subscribed.discard(uri)  # not shown as subscribed; tried once only
                    self._note("subscribe", f"subscribing to {uri} failed: {exc}")
                self.on_update(self.server)
            return result

        return await conn.request(f"resources/read {uri}", op)

    async def set_level(self, level: str) -> None:
        """``logging/setLevel``; failures raise ``ToolFailure``."""
        assert self._conn is not None

        async def op(client: Any) -> Any:
            return await _quiet(lambda: client.set_logging_level(level))

        await self._conn.request("logging/setLevel", op)
        self.level = level
        self.on_update(self.server)


def _with_update(item: ResourceInfo, when: float | None, subscribed: bool) -> ResourceInfo:
    from dataclasses import replace

    return replace(item, updated=when, subscribed=subscribed)


async def _pages(fetch: Callable[..., Any], field: str) -> list[Any]:
    found: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor=cursor)
        found.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            break
    return found


# -- what the model reads of a resource -----------------------------------------------------------


async def render_contents(
    result: Any, *, server: str, uri: str, media: MediaStore, call_id: str
) -> tuple[str, list[str]]:
    """The text of a ``ReadResourceResult`` (each part headed by its URI and type; text as it
    is, a blob saved as a file with a one-line note) and the paths of the saved files."""
    parts: list[str] = []
    saved: list[str] = []
    for content in getattr(result, "contents", None) or []:
        where = str(getattr(content, "uri", uri))
        mime = getattr(content, "mime_type", None)
        text = getattr(content, "text", None)
        if text is not None:
            parts.append(f"[resource <{where}>{f' ({mime})' if mime else ''}]\n{text}")
            continue
        mime = mime or "application/octet-stream"
        try:
            raw = base64.b64decode(getattr(content, "blob", ""), validate=True)
        except (binascii.Error, ValueError, TypeError):
            parts.append(f"[resource <{where}>: {mime}, the data is not valid base64; not saved]")
            continue
        try:
            path = await asyncio.to_thread(media.save, raw, mime, f"{server}-resource", call_id)
        except OSError as exc:
            parts.append(
                f"[resource <{where}>: {mime}, {len(raw):,} bytes; could not be saved: "
                f"{exc.strerror or exc}]"
            )
            continue
        saved.append(path)
        parts.append(f"[resource <{where}>: {mime}, {len(raw):,} bytes, saved to {path}]")
    if not parts:
        parts.append(f"[resource <{uri}>: the server returned no contents]")
    return "\n".join(parts), saved


def media_path(media: MediaStore, saved: str) -> Path:
    path = Path(saved)
    return path if path.is_absolute() else media.cwd / path


__all__ = ["ResourceInfo", "ResourceSide", "render_contents"]
