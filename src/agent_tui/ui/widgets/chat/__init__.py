"""The chat pane and the items it shows."""

from agent_tui.ui.widgets.chat.assistant_reply import AssistantReply
from agent_tui.ui.widgets.chat.chat_view import ChatView
from agent_tui.ui.widgets.chat.error_block import ErrorBlock
from agent_tui.ui.widgets.chat.notice import Notice
from agent_tui.ui.widgets.chat.tool_line import ToolLine
from agent_tui.ui.widgets.chat.user_prompt import UserPrompt

__all__ = ["AssistantReply", "ChatView", "ErrorBlock", "Notice", "ToolLine", "UserPrompt"]
