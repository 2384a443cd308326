"""Images attached to a conversation: the reference the transcript keeps, never the bytes.

``ImageRef`` is what a user message (an image pasted, dropped or ``@``-mentioned) or a tool
result (``read_file`` of an image) carries in the transcript and the session file: the SHA-256
of the bytes sent, their media type, a name, their size and dimensions. The bytes live in the
session's content-addressed image store (``core.images.store``), beside the session file, so a
resumed or forked session shows the same chip and sends the same image again. ``PreparedImage``
is an image ready to send (``core.images.prepare``): its reference and its bytes. ``ImageSink``
is how a tool keeps an image it returns (``ToolContext.images``).

Shared vocabulary: it imports nothing of agent-tui.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

MediaType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
"""The formats both wire formats accept (Anthropic's list; OpenAI takes the same)."""
TOKENS_PER_IMAGE_MIN = 85
"""The least an image is counted (OpenAI's base cost of one image)."""
PIXELS_PER_TOKEN = 750
"""Anthropic's published estimate: tokens ≈ width × height / 750."""


def human_size(size: int) -> str:
    """``size`` bytes for people: ``812 B``, ``14 KB``, ``1.2 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


DEFERRED = ConfigDict(defer_build=True)
"""The models' config: each builds its validator on first use, not at import (a run uses few
of them; every start pays for the import: issue 45)."""


class ImageRef(BaseModel):
    """One image of the transcript: what a chip shows and what finds the bytes again."""

    model_config = DEFERRED

    digest: str
    """SHA-256 of the bytes sent (hex): the name of the blob in the session's image store."""
    media_type: MediaType
    name: str
    """What the user knows it by: the file's path as given, or ``clipboard-….png``."""
    size: int
    """Bytes sent (after any resize)."""
    width: int
    height: int
    original: str = ""
    """What it was before it was resized or converted (``3024×4032, 5.1 MB HEIC``); empty when
    it is sent as it was."""

    @property
    def label(self) -> str:
        """``shot.png · 800×600 · 120 KB`` (the chip's text)."""
        return f"{self.name} · {self.width}×{self.height} · {human_size(self.size)}"

    @property
    def kind(self) -> str:
        """``PNG``, ``JPEG``…"""
        return self.media_type.removeprefix("image/").upper()

    @property
    def tokens(self) -> int:
        """What it costs in the context, about: its pixels over ``PIXELS_PER_TOKEN``, at
        least ``TOKENS_PER_IMAGE_MIN`` (never its base64 length)."""
        return max(TOKENS_PER_IMAGE_MIN, self.width * self.height // PIXELS_PER_TOKEN)

    def note(self, why: str) -> str:
        """The text sent in its place when it cannot be sent (``why``)."""
        return f"[image {self.name} ({self.kind}, {self.width}×{self.height}) not shown: {why}]"


@dataclass(frozen=True)
class PreparedImage:
    """An image ready to send: within the bounds, in a format both APIs take."""

    ref: ImageRef
    data: bytes


class ImageSink(Protocol):
    """Where a tool keeps an image it returns (the session's image store)."""

    @property
    def accepts(self) -> bool:
        """The model of this request takes images (else the tool describes the image)."""
        ...

    async def keep(self, image: PreparedImage) -> ImageRef:
        """Store ``image`` (off the event loop); its reference for the transcript."""
        ...


class NoImages:
    """The sink where there is no session store and no model to show an image to."""

    @property
    def accepts(self) -> bool:
        return False

    async def keep(self, image: PreparedImage) -> ImageRef:
        return image.ref


NO_IMAGES = NoImages()

__all__ = [
    "NO_IMAGES",
    "ImageRef",
    "ImageSink",
    "MediaType",
    "NoImages",
    "PreparedImage",
    "human_size",
]
