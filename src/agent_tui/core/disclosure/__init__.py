"""Progressive tool disclosure: direct vs deferred tools, search_tool, run_tool (seed s15)."""

from agent_tui.core.disclosure.proxies import RUN_TOOL, SEARCH_TOOL
from agent_tui.core.disclosure.state import Disclosure, server_of
from agent_tui.core.settings import DisclosureSettings

__all__ = ["RUN_TOOL", "SEARCH_TOOL", "Disclosure", "DisclosureSettings", "server_of"]
