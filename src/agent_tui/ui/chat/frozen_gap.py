"""Stands in for a reply far from the viewport: a blank of its height that keeps its text, so
the reply can be mounted again when the viewport comes near (see ``freezer``)."""

from __future__ import annotations

from textual.widget import Widget

from agent_tui.ui.chat.assistant_reply import AssistantReply


class FrozenGap(Widget):
    DEFAULT_CSS = """
    FrozenGap { background: transparent; }
    """

    def __init__(self, reply: AssistantReply) -> None:
        super().__init__()
        self.text = reply.text
        self.continued = reply.has_class("-continued")
        self.last = reply.last
        self.serial = reply.serial
        self.styles.height = reply.outer_size.height
        self.styles.margin = reply.styles.margin

    def revive(self) -> AssistantReply:
        """A new reply widget for the same text, looking as the frozen one did."""
        reply = AssistantReply(self.text, continued=self.continued, last=self.last)
        reply.serial = self.serial
        return reply
