"""The images of one conversation: kept beside the session, sent as base64 when asked.

``ImageStore`` keeps each image the conversation attaches (a prompt's, a tool result's) in the
session's content-addressed store (``SessionLog.images``: ``<session>/images/<2 hex>/<62 hex>``,
the SHA-256 of the bytes, the checkpoints' ``BlobStore``), so a resumed or forked session finds
it by the digest its ``ImageRef`` names. Without a session file (``--no-session``) the bytes
stay in memory for the life of the process. ``encoded`` gives a request the base64 of each
image its messages name, read and encoded in a thread (never on the event loop) and cached; an
image whose blob is missing or damaged is absent from the answer (the provider sends a note in
its place, ``ImageRef.note``).

It also remembers the models that refused images this session (``refused``).
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Callable, Iterable
from typing import Protocol

from agent_tui.core.attachments import ImageRef, ImageSink, PreparedImage
from agent_tui.core.transcript import Message

log = logging.getLogger(__name__)
CACHE_BYTES = 64 * 1024 * 1024
"""Base64 kept between requests (images are re-read when the cache is over it)."""


class BlobStore(Protocol):
    """A content-addressed store (``core.checkpoints.blobs.BlobStore`` is one)."""

    def put(self, data: bytes) -> str: ...

    def get(self, digest: str) -> bytes: ...


def image_refs(messages: Iterable[Message]) -> list[ImageRef]:
    """Every image ``messages`` carry, in order, each once."""
    seen: set[str] = set()
    refs: list[ImageRef] = []
    for message in messages:
        for ref in message.images:
            if ref.digest not in seen:
                seen.add(ref.digest)
                refs.append(ref)
    return refs


class ImageStore:
    """See the module docstring. ``root`` answers the store of the session in use now (None:
    not saved): the session changes on ``/new``, resume and fork."""

    def __init__(self, root: Callable[[], BlobStore | None]) -> None:
        self._root = root
        self._memory: dict[str, bytes] = {}
        self._encoded: dict[str, str] = {}
        self.refused: set[str] = set()
        """The models (provider names) that refused an image this session."""

    def put(self, image: PreparedImage) -> ImageRef:
        """Keep ``image``; blocking (a thread). A store that cannot be written keeps it in
        memory (logged): the conversation goes on, a resume will miss it."""
        store = self._root()
        if store is not None:
            try:
                store.put(image.data)
                return image.ref
            except OSError:
                log.exception("keeping image %s in the session failed", image.ref.name)
        self._memory[image.ref.digest] = image.data
        return image.ref

    async def keep(self, image: PreparedImage) -> ImageRef:
        return await asyncio.to_thread(self.put, image)

    def get(self, digest: str) -> bytes | None:
        """The bytes of ``digest``, or None when they are lost (blocking)."""
        if digest in self._memory:
            return self._memory[digest]
        store = self._root()
        if store is None:
            return None
        try:
            return store.get(digest)
        except (OSError, ValueError):
            log.warning("image %s is missing or damaged in the session", digest[:12])
            return None

    async def encoded(self, messages: Iterable[Message]) -> dict[str, str]:
        """The base64 of each image ``messages`` name (digest → base64), those found."""
        refs = image_refs(messages)
        wanted = {ref.digest for ref in refs}
        missing = [digest for digest in wanted if digest not in self._encoded]
        if missing:
            loaded = await asyncio.to_thread(self._load, missing)
            self._encoded.update(loaded)
        answer = {d: self._encoded[d] for d in wanted if d in self._encoded}
        if sum(len(v) for v in self._encoded.values()) > CACHE_BYTES:
            self._encoded = dict(answer)  # only what this request needs
        return answer

    def _load(self, digests: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for digest in digests:
            data = self.get(digest)
            if data is not None:
                out[digest] = base64.b64encode(data).decode("ascii")
        return out

    def sink(self, accepts: bool) -> ImageSink:
        """What a tool of this request keeps its images with (``ToolContext.images``)."""
        return _Sink(self, accepts)


class _Sink:
    def __init__(self, store: ImageStore, accepts: bool) -> None:
        self._store = store
        self._accepts = accepts

    @property
    def accepts(self) -> bool:
        return self._accepts

    async def keep(self, image: PreparedImage) -> ImageRef:
        return await self._store.keep(image)


__all__ = ["BlobStore", "ImageStore", "image_refs"]
