"""The tool-call lane: a card per call, a group card per parallel batch, a block per turn."""

from agent_tui.ui.lane.group_card import GroupCard
from agent_tui.ui.lane.tool_card import ToolCard
from agent_tui.ui.lane.tool_lane import ToolLane
from agent_tui.ui.lane.turn_block import TurnBlock

__all__ = ["GroupCard", "ToolCard", "ToolLane", "TurnBlock"]
