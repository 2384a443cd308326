"""The tool-call lane: one card per call, parallel batches grouped."""

from agent_tui.ui.widgets.lane.group_box import ToolGroupBox
from agent_tui.ui.widgets.lane.tool_card import ToolCard
from agent_tui.ui.widgets.lane.tool_lane import ToolLane

__all__ = ["ToolCard", "ToolGroupBox", "ToolLane"]
