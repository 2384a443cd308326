"""Images waiting to go with the next message: the tray above the prompt, and their sources.

The prompt (``PromptInput.tray``) attaches an image when a pasted text is only paths to image
files (what a terminal pastes when a file is dropped on it: quoted, escaped or ``file://``),
and on Ctrl+V when the clipboard holds an image (``core.images.clipboard``: ``wl-paste``,
``xclip``, ``pngpaste``). Each waiting image is a chip (name, dimensions, size); a click on
it, or Backspace at the very start of the prompt, takes it off. The tray is hidden while
empty. Reading, checking and resizing happen in threads or subprocesses, never on the event
loop; a file that is not an image, or a damaged one, is said in a notice.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

if TYPE_CHECKING:  # the core's images load with the first image (the shell paints without them)
    from agent_tui.core.attachments import ImageRef, PreparedImage

ICON = "▣"
HINT = "⌫ at the start or a click removes"


def chip_text(ref: ImageRef) -> str:
    """``▣ shot.png · 800×600 · 120 KB``."""
    return f"{ICON} {ref.label}"


def chip_tooltip(ref: ImageRef) -> str:
    said = f"{ref.kind} image, {ref.width}×{ref.height}"
    return said + (f" (resized from {ref.original})" if ref.original else "")


def _read(path: Path, cwd: Path) -> PreparedImage:
    """The image at ``path``, named relative to ``cwd`` when it is inside it (blocking)."""
    from agent_tui.core.images.prepare import MAX_INPUT_BYTES, ImageError, prepare_image

    try:
        with path.open("rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise ImageError(f"{path.name} cannot be read: {exc.strerror or exc}.") from None
    name = path.relative_to(cwd).as_posix() if path.is_relative_to(cwd) else str(path)
    return prepare_image(data, name)


async def images_in_paste(text: str, cwd: Path) -> list[PreparedImage] | None:
    """The images a pasted ``text`` names (None: it is text to insert); ``ImageError`` when
    it names an image file that cannot be attached."""
    from agent_tui.core.images.paths import pasted_image_paths

    paths = await asyncio.to_thread(pasted_image_paths, text, cwd)
    if not paths:
        return None
    return [await asyncio.to_thread(_read, path, cwd) for path in paths]


async def clipboard_image(count: int) -> PreparedImage:
    """The clipboard's image, named ``clipboard-N.png``; ``ClipboardError``, ``ImageError``."""
    from agent_tui.core.images.clipboard import paste_image
    from agent_tui.core.images.prepare import prepare_image

    data = await paste_image()
    return await asyncio.to_thread(prepare_image, data, f"clipboard-{count}.png")


class ImageChip(Static):
    """One waiting image; a click takes it off."""

    DEFAULT_CSS = """
    ImageChip {
        width: auto;
        height: 1;
        margin: 0 1 0 0;
        padding: 0 1;
        background: $accent 25%;
        color: $text-accent;
        text-style: bold;
        &:hover { background: $error 30%; color: $text-error; }
    }
    """

    def __init__(self, image: PreparedImage) -> None:
        super().__init__(chip_text(image.ref), markup=False)
        self.image = image
        self.tooltip = chip_tooltip(image.ref) + " — click to remove"

    def on_click(self) -> None:
        self.post_message(ImageTray.Removed(self.image))


class ImageTray(Horizontal):
    """The images waiting to go with the next message (see the module docstring)."""

    DEFAULT_CSS = """
    ImageTray {
        display: none;
        height: 1;
        padding: 0 1;
        &.-filled { display: block; }
        & > .image-tray--hint { width: auto; color: $text-muted; }
    }
    """

    @dataclass
    class Removed(Message):
        image: PreparedImage

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.images: list[PreparedImage] = []
        self.added = 0
        """Images attached so far (names the clipboard's)."""

    async def add(self, image: PreparedImage) -> None:
        """Attach ``image`` (once: the same bytes twice are one image)."""
        if any(kept.ref.digest == image.ref.digest for kept in self.images):
            return
        self.images.append(image)
        self.added += 1
        await self._render_chips()

    async def drop(self, image: PreparedImage | None = None) -> bool:
        """Take ``image`` off (None: the last one); False when there was none."""
        if not self.images:
            return False
        if image is None:
            self.images.pop()
        elif image in self.images:
            self.images.remove(image)
        await self._render_chips()
        return True

    def clear(self) -> None:
        """Empty the tray (its images were sent)."""
        if self.images:
            self.images.clear()
            self.call_later(self._render_chips)

    async def on_image_tray_removed(self, event: Removed) -> None:
        event.stop()
        await self.drop(event.image)

    async def _render_chips(self) -> None:
        await self.remove_children()
        if self.images:
            chips: list[Static] = [ImageChip(image) for image in self.images]
            chips.append(Static(HINT, classes="image-tray--hint"))
            await self.mount_all(chips)
        self.set_class(bool(self.images), "-filled")
