"""An ACP prompt (content blocks) as what ``Agent.run`` takes: text, with images attached.

Text blocks are the prompt; an embedded resource (a file the editor attached, with its text)
follows it in a fenced block named by its URI; a resource link (a file the client only names)
is named so the model can read it with its tools; an image is prepared as a pasted one is
(``core.images.prepare``: bounded, re-encoded). What cannot be used — an audio block, a binary
resource that is not an image, an image that does not decode — is a ``PromptProblem`` saying
which block and why: the prompt is refused whole rather than sent without it.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any

from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from agent_tui.core.attachments import PreparedImage
from agent_tui.core.transcript import Prompt


class PromptProblem(ValueError):
    """A block of the prompt cannot be given to the model (the message says which, why)."""


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _image(data: str, mime: str, name: str) -> PreparedImage:
    from agent_tui.core.images.prepare import prepare_image

    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise PromptProblem(f"{name} is not valid base64 ({mime})") from None
    try:
        return prepare_image(raw, name)
    except ValueError as exc:  # ImageError, NotAnImage
        raise PromptProblem(str(exc)) from None


def to_prompt(blocks: Sequence[Any]) -> str | Prompt:
    """The prompt ``blocks`` make (blocking: images are decoded; run it in a thread)."""
    texts: list[str] = []
    attached: list[str] = []
    images: list[PreparedImage] = []
    for n, block in enumerate(blocks, 1):
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            attached.append(f"(The user refers to {block.uri}: read it if you need it.)")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                fence = _fence(resource.text)
                attached.append(f"{resource.uri}:\n{fence}\n{resource.text}\n{fence}")
            elif isinstance(resource, BlobResourceContents) and (
                resource.mime_type or ""
            ).startswith("image/"):
                images.append(_image(resource.blob, resource.mime_type or "", resource.uri))
            else:
                raise PromptProblem(
                    f"block {n}: {resource.uri} is binary ({resource.mime_type or 'no type'}): "
                    "only text resources and images can be attached"
                )
        elif isinstance(block, ImageContentBlock):
            images.append(_image(block.data, block.mime_type, block.uri or f"image {n}"))
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise PromptProblem(
                f"block {n}: {kind} content is not supported (text, images and resources are)"
            )
    text = "\n\n".join(part for part in ["".join(texts), *attached] if part)
    return Prompt(text, tuple(images)) if images else text
