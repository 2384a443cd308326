"""The spill browser's widgets: the list of spills, the window viewer, its header, the
empty / error notice, the search status line and the one-line prompt."""

from agent_tui.ui.spills.line_prompt import LinePrompt
from agent_tui.ui.spills.search_status import SearchStatus
from agent_tui.ui.spills.spill_header import SpillHeader
from agent_tui.ui.spills.spill_list import SpillList
from agent_tui.ui.spills.spill_notice import SpillNotice
from agent_tui.ui.spills.spill_viewer import SpillViewer

__all__ = ["LinePrompt", "SearchStatus", "SpillHeader", "SpillList", "SpillNotice", "SpillViewer"]
