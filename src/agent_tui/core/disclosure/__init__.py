"""Progressive tool disclosure: direct vs deferred tools, search_tool, run_tool (seed s15).

``state`` decides which tools the model sees (``Disclosure``); ``proxies`` builds the two
always-present tools, knowing the state only through its ``Finder`` protocol; ``search`` and
``tokenize`` rank tools for a query; ``marks`` says how each tool reaches the model. May import
``core.tools`` and ``core.settings``; the agent, subagents and the MCP client import it.
"""

from agent_tui.core.disclosure.proxies import RUN_TOOL, SEARCH_TOOL
from agent_tui.core.disclosure.state import Disclosure, server_of
from agent_tui.core.settings import DisclosureSettings

__all__ = ["RUN_TOOL", "SEARCH_TOOL", "Disclosure", "DisclosureSettings", "server_of"]
