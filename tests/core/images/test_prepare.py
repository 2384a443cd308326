"""Images prepared for sending: kept as they are within the bounds, resized beyond them,
refused with a clear reason when they are not images (real Pillow, real bytes)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from agent_tui.core.attachments import human_size
from agent_tui.core.images.prepare import (
    MAX_BYTES,
    MAX_SIDE,
    ImageError,
    NotAnImage,
    looks_like_image,
    prepare_image,
)
from tests.core.images.pictures import picture


@pytest.mark.parametrize(
    ("fmt", "media"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_a_small_image_is_sent_byte_for_byte(fmt: str, media: str) -> None:
    data = picture(64, 48, fmt)
    image = prepare_image(data, "shot")
    assert image.data == data
    ref = image.ref
    assert (ref.media_type, ref.width, ref.height, ref.size) == (media, 64, 48, len(data))
    assert ref.original == ""
    assert ref.label == f"shot · 64×48 · {human_size(ref.size)}"


def test_a_large_screenshot_is_scaled_to_the_long_side_and_stays_png() -> None:
    image = prepare_image(picture(3200, 1800), "big.png")
    ref = image.ref
    assert ref.media_type == "image/png"
    assert (ref.width, ref.height) == (MAX_SIDE, round(1800 * MAX_SIDE / 3200))
    assert ref.original.startswith("3200×1800")
    with Image.open(io.BytesIO(image.data)) as back:
        assert back.size == (ref.width, ref.height)


def test_a_heavy_image_within_the_side_becomes_a_jpeg_under_the_byte_bound() -> None:
    data = picture(1500, 1200, noise=True)  # random pixels: a PNG of ~5 MB
    assert len(data) > MAX_BYTES
    image = prepare_image(data, "noise.png")
    assert image.ref.media_type == "image/jpeg"
    assert image.ref.size <= MAX_BYTES
    assert image.data[:3] == b"\xff\xd8\xff"


def test_another_format_is_converted_to_png() -> None:
    image = prepare_image(picture(40, 30, "BMP"), "old.bmp")
    assert image.ref.media_type == "image/png"
    assert image.data.startswith(b"\x89PNG")


def test_text_is_not_an_image() -> None:
    with pytest.raises(NotAnImage, match=r"notes\.png is not an image"):
        prepare_image(b"just some text\n", "notes.png")


def test_a_damaged_image_is_refused_with_the_reason() -> None:
    data = picture(300, 300)
    with pytest.raises(ImageError, match=r"cut\.png is a damaged image"):
        prepare_image(data[: len(data) // 2], "cut.png")


def test_an_empty_file_is_refused() -> None:
    with pytest.raises(ImageError, match="empty"):
        prepare_image(b"", "nothing.png")


def test_images_are_known_by_suffix_or_signature() -> None:
    assert looks_like_image("a/B.PNG")
    assert looks_like_image("noext", picture(2, 2)[:16])
    assert not looks_like_image("notes.txt", b"hello")


def test_an_image_costs_tokens_by_its_pixels_not_its_base64() -> None:
    from agent_tui.core.conversation.context import message_tokens
    from agent_tui.core.transcript import Message

    image = prepare_image(picture(1000, 750, noise=True), "photo.png")
    message = Message.user("what is this?", images=[image.ref])
    assert image.ref.tokens == 1000
    assert message_tokens(message) < 1100  # the base64 would be ~1.3 M characters
