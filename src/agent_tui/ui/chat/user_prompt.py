"""One user message in the chat."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from agent_tui.core.attachments import ImageRef
from agent_tui.core.events import Mention

ICONS = {"file": "📄", "directory": "📁", "resource": "🔗"}
CHIP = "bold $text-accent on $accent 20%"
REFUSED = "strike $text-error on $error 15%"
"""A mention whose content was not attached (withheld, outside the workspace, not text)."""


def chip(mention: Mention) -> str:
    """What a mention shows as: ``📄 src/app.py``."""
    return f"{ICONS.get(mention.kind, '@')} {mention.path}"


IMAGE = "▣"


def image_chips(images: Sequence[ImageRef]) -> Content:
    """The images sent with a message, one chip each: ``▣ shot.png · 800×600 · 120 KB``."""
    parts: list[str | tuple[str, str]] = []
    for ref in images:
        parts += [(f" {IMAGE} {ref.label} ", CHIP), " "]
    return Content.assemble(*parts[:-1])


def with_chips(text: str, mentions: Sequence[Mention]) -> Content:
    """``text`` with each mention's ``@…`` shown as a chip instead (never parsed as markup)."""
    parts: list[str | tuple[str, str]] = []
    at = 0
    for mention in sorted(mentions, key=lambda m: m.start):
        if mention.start < at or mention.end > len(text):
            continue  # spans that do not fit the text (a hand-edited session): left as text
        parts.append(text[at : mention.start])
        parts.append((f" {chip(mention)} ", CHIP if mention.attached else REFUSED))
        at = mention.end
    parts.append(text[at:])
    return Content.assemble(*parts)


class UserPrompt(Static):
    """The user's words, verbatim; the files and directories they mention as chips (what was
    attached for the model is not pasted here). A refused mention's chip is struck through
    and the tooltip says why."""

    DEFAULT_CSS = """
    UserPrompt {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $primary;
        background: $primary 10%;
        color: $foreground;
    }
    """

    def __init__(
        self, text: str, mentions: Sequence[Mention] = (), images: Sequence[ImageRef] = ()
    ) -> None:
        content = with_chips(text, mentions) if mentions else Content(text)
        if images:
            lines = [content, image_chips(images)] if text else [image_chips(images)]
            content = Content("\n").join(lines)
        super().__init__(content)
        self.text = text
        self.mentions = tuple(mentions)
        self.images = tuple(images)
        notes = [f"{chip(m)}: {m.note}" for m in self.mentions if m.note]
        notes += [f"{IMAGE} {r.name}: resized from {r.original}" for r in images if r.original]
        if notes:
            self.tooltip = "\n".join(notes)
