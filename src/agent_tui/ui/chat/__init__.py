"""The chat pane and the items it shows.

``AssistantReply`` (Markdown, and with it the Markdown parser) is imported when first used:
the app starts without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.ui.chat.chat_view import ChatView
from agent_tui.ui.chat.error_block import ErrorBlock
from agent_tui.ui.chat.notice import Notice
from agent_tui.ui.chat.tool_line import ToolLine
from agent_tui.ui.chat.user_prompt import UserPrompt

if TYPE_CHECKING:
    from agent_tui.ui.chat.assistant_reply import AssistantReply

__all__ = ["AssistantReply", "ChatView", "ErrorBlock", "Notice", "ToolLine", "UserPrompt"]


def __getattr__(name: str) -> Any:
    if name == "AssistantReply":
        from agent_tui.ui.chat.assistant_reply import AssistantReply

        return AssistantReply
    raise AttributeError(name)
