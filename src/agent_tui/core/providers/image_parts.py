"""Images in the two wire formats: what each provider puts in a message for an ``ImageRef``.

An image is sent when the request's model takes images (``ModelRequest.vision``) and its
base64 was found (``ModelRequest.images``); otherwise a text note stands in its place
(``ImageRef.note``), so the model knows an image was there and the request does not fail.
OpenAI's chat format cannot put an image in a ``tool`` message: the images of a run of tool
results follow it in one ``user`` message that says which call they came from (what other
agents do); Anthropic's ``tool_result`` block carries its image blocks itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_tui.core.attachments import ImageRef

NOT_VISION = "this model does not accept images"
LOST = "its bytes are missing from the session's image store"


def _data(ref: ImageRef, images: Mapping[str, str], vision: bool) -> str | None:
    return images.get(ref.digest) if vision else None


def _why(vision: bool) -> str:
    return LOST if vision else NOT_VISION


def openai_parts(
    refs: list[ImageRef], images: Mapping[str, str], vision: bool
) -> list[dict[str, Any]]:
    """Content parts for ``refs``: ``image_url`` data URLs, or text notes."""
    parts: list[dict[str, Any]] = []
    for ref in refs:
        data = _data(ref, images, vision)
        if data is None:
            parts.append({"type": "text", "text": ref.note(_why(vision))})
        else:
            url = f"data:{ref.media_type};base64,{data}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def anthropic_blocks(
    refs: list[ImageRef], images: Mapping[str, str], vision: bool
) -> list[dict[str, Any]]:
    """Content blocks for ``refs``: ``image`` blocks with base64 sources, or text notes."""
    blocks: list[dict[str, Any]] = []
    for ref in refs:
        data = _data(ref, images, vision)
        if data is None:
            blocks.append({"type": "text", "text": ref.note(_why(vision))})
        else:
            source = {"type": "base64", "media_type": ref.media_type, "data": data}
            blocks.append({"type": "image", "source": source})
    return blocks


def tool_images_lead(name: str | None, call_id: str | None, refs: list[ImageRef]) -> str:
    """The text before the images of a tool result sent in a user message (OpenAI)."""
    names = ", ".join(ref.name for ref in refs)
    plural = "s" if len(refs) > 1 else ""
    return f"[The image{plural} returned by {name or 'a tool'} (call {call_id}): {names}]"


__all__ = ["NOT_VISION", "anthropic_blocks", "openai_parts", "tool_images_lead"]
