"""Where images come from besides a mention: pasted paths and the clipboard (real processes
on a PATH made for the test), and which models take them."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from agent_tui.core.images.clipboard import ClipboardError, paste_image
from agent_tui.core.images.paths import pasted_image_paths
from agent_tui.core.images.vision import accepts_images, is_image_refusal
from tests.core.images.pictures import picture


def test_pasted_paths_quoted_escaped_or_as_urls(tmp_path: Path) -> None:
    one = tmp_path / "a b.png"
    two = tmp_path / "c.jpg"
    one.write_bytes(picture(4, 4))
    two.write_bytes(picture(4, 4, "JPEG"))
    assert pasted_image_paths(f"'{one}'", tmp_path) == [one]
    assert pasted_image_paths(str(one).replace(" ", "\\ "), tmp_path) == [one]
    assert pasted_image_paths(f"file://{str(one).replace(' ', '%20')}\n", tmp_path) == [one]
    assert pasted_image_paths(f'"{one}" {two}', tmp_path) == [one, two]
    assert pasted_image_paths("c.jpg", tmp_path) == [two]


def test_text_that_is_not_only_image_paths_stays_text(tmp_path: Path) -> None:
    (tmp_path / "c.jpg").write_bytes(picture(4, 4, "JPEG"))
    (tmp_path / "notes.txt").write_text("x")
    assert pasted_image_paths("look at c.jpg please", tmp_path) == []
    assert pasted_image_paths("notes.txt", tmp_path) == []
    assert pasted_image_paths("missing.png", tmp_path) == []
    assert pasted_image_paths("it's", tmp_path) == []


async def test_no_clipboard_tool_names_the_tools(tmp_path: Path) -> None:
    with pytest.raises(ClipboardError) as caught:
        await paste_image(str(tmp_path))  # an empty PATH: no tool
    said = str(caught.value)
    assert "wl-clipboard" in said
    assert "xclip" in said
    assert "pngpaste" in said


def _tool(folder: Path, name: str, body: str) -> None:
    script = folder / name
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


async def test_the_clipboard_image_comes_from_the_tool(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    png = tmp_path / "clip.png"
    png.write_bytes(picture(8, 8))
    _tool(tmp_path, "xclip", f'cat "{png}"')
    assert await paste_image(str(tmp_path)) == png.read_bytes()


async def test_an_empty_clipboard_says_so(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    _tool(tmp_path, "xclip", "echo 'Error: target image/png not available' >&2; exit 1")
    with pytest.raises(ClipboardError, match=r"holds no image.*not available"):
        await paste_image(str(tmp_path))


def test_which_models_take_images() -> None:
    assert accepts_images("openai:gpt-4o")
    assert accepts_images("anthropic:claude-sonnet-4-5")
    assert not accepts_images("openai:deepseek-chat")
    assert not accepts_images("openai:qwen2.5-coder:32b")
    assert accepts_images("openai:qwen2.5-vl:7b")
    assert not accepts_images("openai:gpt-4o", setting=False)
    assert accepts_images("openai:deepseek-chat", setting=True)
    assert not accepts_images("openai:x", refused={"openai:x"})
    assert is_image_refusal("HTTP 400: this model does not support image input", 400)
    assert not is_image_refusal("HTTP 400: bad tool schema", 400)
    assert not is_image_refusal("HTTP 500: image server down", 500)
