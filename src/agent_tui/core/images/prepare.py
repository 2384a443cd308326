"""An image's bytes made ready to send: identified, checked, resized when too large.

Pillow is imported here only, when an image is first prepared (start-up does not pay for it).
Blocking: call from a thread.

The bounds are those of the Anthropic API, the stricter of the two wire formats:

- ``MAX_SIDE`` = 1568 px on the long side: Anthropic's documented size above which it scales
  an image down itself (costing time, adding nothing the model sees); OpenAI's high detail
  scales to fit 2048 then 768 on the short side, so 1568 loses nothing there either. Claude
  Code resizes to fit 2000×2000; we pick the size the model really sees.
- ``MAX_BYTES`` = 3.75 MB of image: its base64 is then under 5 MB, Anthropic's limit per
  image (OpenAI allows 20 MB).

An image within both is sent byte for byte. A larger one is scaled down (Lanczos) and written
again in its format (PNG stays PNG, so a screenshot stays sharp); one still too heavy is sent as
JPEG at falling quality. PNG, JPEG, GIF and WebP are sent as they are; any other format Pillow
reads (BMP, TIFF…) is converted to PNG; an animated GIF sends its first frame only when it
must be resized. A file that is not an image, a damaged one, or one over ``MAX_INPUT_BYTES``
raises ``ImageError`` with a sentence for the user.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from agent_tui.core.attachments import ImageRef, MediaType, PreparedImage, human_size

if TYPE_CHECKING:
    from PIL.Image import Image

MAX_SIDE = 1568
MAX_BYTES = 3_750_000
MAX_INPUT_BYTES = 50 * 1024 * 1024
"""What is read of a file before it is refused (a photo from a camera is under 30 MB)."""
IMAGE_SUFFIXES = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff", ".heic"}
)
"""Names that are taken for images (an ``@`` mention, a pasted path, ``read_file``)."""
_MEDIA: dict[str, MediaType] = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "MPO": "image/jpeg",  # a phone's JPEG with a second frame: a JPEG to every reader
    "GIF": "image/gif",
    "WEBP": "image/webp",
}
_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")


class ImageError(ValueError):
    """The bytes cannot be sent as an image: the message says why, for the user."""


class NotAnImage(ImageError):
    """The bytes are no image format Pillow knows (text named ``.png``, say)."""


def looks_like_image(name: str, head: bytes = b"") -> bool:
    """``name`` has an image's suffix, or ``head`` (the first bytes) an image's signature."""
    if PurePath(name).suffix.lower() in IMAGE_SUFFIXES:
        return True
    return head.startswith(_MAGIC) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")


def prepare_image(data: bytes, name: str) -> PreparedImage:
    """``data`` as an image ready to send (see the module docstring); ``ImageError`` if not."""
    if not data:
        raise ImageError(f"{name} is empty: there is no image in it.")
    if len(data) > MAX_INPUT_BYTES:
        raise ImageError(
            f"{name} is {human_size(len(data))}: images over {human_size(MAX_INPUT_BYTES)} "
            "are not attached."
        )
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    try:
        with PILImage.open(io.BytesIO(data)) as image:
            image.load()  # decodes it: a damaged image fails here, not at the server
            return _fit(image, data, name)
    except UnidentifiedImageError:
        raise NotAnImage(f"{name} is not an image (not a format Pillow reads).") from None
    except PILImage.DecompressionBombError:
        raise ImageError(f"{name} has too many pixels to be opened safely.") from None
    except (OSError, SyntaxError, ValueError) as exc:
        if isinstance(exc, ImageError):
            raise
        raise ImageError(f"{name} is a damaged image: {exc}.") from None


def _fit(image: Image, data: bytes, name: str) -> PreparedImage:
    fmt = image.format or ""
    width, height = image.size
    media = _MEDIA.get(fmt)
    if media is not None and max(width, height) <= MAX_SIDE and len(data) <= MAX_BYTES:
        return _prepared(data, media, name, width, height, "")
    before = f"{width}×{height}, {human_size(len(data))} {fmt or 'image'}"
    if getattr(image, "n_frames", 1) > 1:
        image.seek(0)
    frame = image.copy()
    frame.thumbnail((MAX_SIDE, MAX_SIDE), _lanczos())
    out, media = _encode(frame, media or "image/png")
    scale = 1.0
    quality = 85
    while len(out) > MAX_BYTES:  # still too heavy: JPEG, lower quality, then smaller
        if quality > 55:
            quality -= 15
        else:
            scale *= 0.75
            size = (max(1, int(frame.width * scale)), max(1, int(frame.height * scale)))
            frame = frame.resize(size, _lanczos())
        out, media = _jpeg(frame, quality), "image/jpeg"
    return _prepared(out, media, name, frame.width, frame.height, before)


def _lanczos() -> Any:
    """Pillow's Lanczos filter (Pillow is imported lazily)."""
    from PIL import Image as PILImage

    return PILImage.Resampling.LANCZOS


def _encode(frame: Image, media: MediaType) -> tuple[bytes, MediaType]:
    buffer = io.BytesIO()
    if media == "image/jpeg":
        return _jpeg(frame, 85), media
    if media == "image/webp":
        frame.save(buffer, "WEBP", quality=85)
        return buffer.getvalue(), media
    if frame.mode not in ("1", "L", "LA", "P", "RGB", "RGBA"):
        frame = frame.convert("RGBA")
    frame.save(buffer, "PNG", optimize=True)
    return buffer.getvalue(), "image/png"


def _jpeg(frame: Image, quality: int) -> bytes:
    if frame.mode in ("RGBA", "LA", "P"):
        from PIL import Image as PILImage

        rgba = frame.convert("RGBA")
        flat = PILImage.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        frame = flat
    elif frame.mode != "RGB":
        frame = frame.convert("RGB")
    buffer = io.BytesIO()
    frame.save(buffer, "JPEG", quality=quality, optimize=True)
    return buffer.getvalue()


def _prepared(
    data: bytes, media: MediaType, name: str, width: int, height: int, original: str
) -> PreparedImage:
    ref = ImageRef(
        digest=hashlib.sha256(data).hexdigest(),
        media_type=media,
        name=name,
        size=len(data),
        width=width,
        height=height,
        original=original,
    )
    return PreparedImage(ref, data)


__all__ = [
    "IMAGE_SUFFIXES",
    "MAX_BYTES",
    "MAX_SIDE",
    "ImageError",
    "NotAnImage",
    "looks_like_image",
    "prepare_image",
]
