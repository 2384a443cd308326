"""Tool protocol, registry, dispatch and the built-in tools."""

from agent_tui.core.tools.base import (
    ProgressUpdate,
    Tool,
    ToolContext,
    ToolInput,
    ToolMeta,
    ToolOutput,
)
from agent_tui.core.tools.errors import ToolErrorInfo, ToolFailure
from agent_tui.core.tools.registry import DispatchOutcome, PreparedCall, ToolRegistry

__all__ = [
    "DispatchOutcome",
    "PreparedCall",
    "ProgressUpdate",
    "Tool",
    "ToolContext",
    "ToolErrorInfo",
    "ToolFailure",
    "ToolInput",
    "ToolMeta",
    "ToolOutput",
    "ToolRegistry",
]
