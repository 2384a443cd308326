"""A resource read, over the MCP panel: ``resources/read`` runs in a worker (the loop never
waits on the server), then each part is shown — text as it is (cut at
``core.mcp.client.resource_preview.MAX_PREVIEW`` with a note), binary content as one line with its
type and size. Esc closes, m closes and puts the ``@server:uri`` mention into the prompt (the
model then gets the resource with the message), c copies the text."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from agent_tui.core.mcp.client.resource_preview import PreviewPart, ResourcePreview
from agent_tui.core.mcp.client.resources import ResourceInfo
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.ui.common.clipboard import copy
from agent_tui.ui.common.format import format_size
from agent_tui.ui.mcp.resource_list import mention

log = logging.getLogger(__name__)

Reader = Callable[[], Awaitable[ResourcePreview]]
Outcome = Literal["mention"] | None


def part_note(part: PreviewPart) -> Content:
    """The line over a part: its URI and type; for binary content, that it is not shown."""
    mime = part.mime_type or "text"
    if part.binary:
        size = "not valid base64" if part.size < 0 else format_size(part.size)
        return Content.assemble(
            (f"<{part.uri}>", "bold"),
            (f"  binary, {mime}, {size}: not shown (m attaches it to a message)", "$warning"),
        )
    cut = f", first {len(part.text or ''):,} of {part.size:,} characters" if part.cut else ""
    return Content.assemble((f"<{part.uri}>", "bold"), (f"  {mime}{cut}", "$foreground-muted"))


class ResourceDialog(ModalScreen[Outcome]):
    DEFAULT_CSS = """
    ResourceDialog {
        align: center middle;
        background: $background 60%;
    }
    ResourceDialog > #dialog {
        width: 110;
        max-width: 96%;
        height: auto;
        max-height: 92%;
        background: $surface;
        border: round $primary;
        border-title-color: $primary;
        border-title-style: bold;
        border-subtitle-color: $foreground-muted;
        padding: 0 1;
        & > #preview-body { height: auto; max-height: 85vh; scrollbar-size-vertical: 1; }
        & > #preview-body:focus { background-tint: transparent; }
        & .preview-note { margin-top: 1; }
        & .preview-text { background: $background; padding: 0 1; }
        & #preview-status { color: $foreground-muted; }
        & #preview-status.-error { color: $error; }
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="mcp.resource.close"),
        Binding("q", "close", "Close", show=False, id="mcp.resource.quit"),
        Binding("m", "mention", "Mention in prompt", id="mcp.resource.mention"),
        Binding("c", "copy", "Copy text", id="mcp.resource.copy"),
    ]

    def __init__(self, item: ResourceInfo, read: Reader) -> None:
        super().__init__()
        self.item = item
        self.read = read
        self.preview: ResourcePreview | None = None
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self.item.label
            dialog.border_subtitle = "esc closes · m mentions it in the prompt · c copies"
            with VerticalScroll(id="preview-body"):
                yield Static(Content.styled(mention(self.item), "bold"), id="preview-mention")
                yield Static(f"reading {self.item.uri} …", id="preview-status")

    def on_mount(self) -> None:
        self.query_one("#preview-body", VerticalScroll).focus()
        self.run_worker(self._load(), group="mcp-resource-preview", exit_on_error=False)

    async def _load(self) -> None:
        status = self.query_one("#preview-status", Static)
        try:
            preview = await self.read()
        except ToolFailure as failure:
            self._failed(
                failure.info.message
                + (f" {failure.info.next_step}" if failure.info.next_step else "")
            )
            return
        except Exception as exc:  # the server broke the protocol, the connection went away…
            log.warning("reading the MCP resource %s failed", self.item.uri, exc_info=True)
            self._failed(f"{type(exc).__name__}: {exc}")
            return
        self.preview = preview
        if not preview.parts:
            status.update("The server returned no contents for this resource.")
            return
        status.display = False
        body = self.query_one("#preview-body", VerticalScroll)
        for part in preview.parts:
            await body.mount(Static(part_note(part), classes="preview-note"))
            if part.text is not None:
                await body.mount(
                    Static(Content(part.text or "(empty)"), classes="preview-text", markup=False)
                )

    def _failed(self, text: str) -> None:
        self.error = text
        status = self.query_one("#preview-status", Static)
        status.add_class("-error")
        status.update(Content(f"Could not read it: {text}"))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_mention(self) -> None:
        self.dismiss("mention")

    def action_copy(self) -> None:
        texts = [p.text for p in (self.preview.parts if self.preview else ()) if p.text is not None]
        if not texts:
            self.notify("There is no text to copy.", severity="warning")
            return
        copy(
            self.app,
            "\n".join(texts),
            "The resource's text is copied to the clipboard",
            title=self.item.label,
        )
