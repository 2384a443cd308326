"""Everything about the MCP servers of a session in one immutable value: what the MCP panel and
``agent-tui mcp list`` show.

Per server its state (``ServerState``); per tool its disclosure mark (direct / deferred /
unmasked / promoted, and why), the permission step that decides its calls (``policy.explain``:
an MCP tool has no rule subject, so that is the decision of every call), and its input schema;
then the configuration problems, the files read, and the cost of the tools array with and
without disclosure. Two overviews compare equal when nothing visible changed, so a front end
can rebuild one on every change (or on a timer) and redraw only when it differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.commands.mcp_prompts import McpPrompt
from agent_tui.core.disclosure.marks import Mark, cost_line, exposure, tools_cost
from agent_tui.core.mcp.client.adapter import ToolInfo
from agent_tui.core.mcp.client.state import ServerState
from agent_tui.core.mcp.config.load import config_paths
from agent_tui.core.mcp.config.spec import ConfigProblem
from agent_tui.core.permissions.decision import Decision
from agent_tui.core.tools.registry import ToolRegistry, tool_schema

if TYPE_CHECKING:
    from agent_tui.core.disclosure import Disclosure
    from agent_tui.core.mcp.client.manager import McpManager
    from agent_tui.core.permissions.policy import PermissionPolicy


@dataclass(frozen=True)
class ToolRow:
    info: ToolInfo
    mark: Mark
    permission: Decision | None
    """None without a policy (``mcp list``)."""
    schema: Mapping[str, Any] = field(default_factory=dict)
    """The input schema the model sees."""

    @property
    def name(self) -> str:
        return self.info.name


@dataclass(frozen=True)
class ServerRow:
    state: ServerState
    tools: tuple[ToolRow, ...] = ()
    problems: tuple[ConfigProblem, ...] = ()
    """The configuration problems of its entry (a broken entry cannot start)."""
    prompts: tuple[McpPrompt, ...] = ()
    """Its prompts (while connected), by name; each is the slash command ``prompt.command``."""

    @property
    def name(self) -> str:
        return self.state.name


@dataclass(frozen=True)
class McpOverview:
    servers: tuple[ServerRow, ...] = ()
    problems: tuple[ConfigProblem, ...] = ()
    files: tuple[Path, ...] = ()
    """The configuration files read (existing or not), least specific first."""
    cost: Mapping[str, int] = field(default_factory=dict)
    """``Disclosure.estimate`` of the next request."""
    cost_line: str = ""
    project_file: Path | None = None
    """The project's ``.mcp.json`` (where ``mcp add`` writes)."""

    def server(self, name: str | None) -> ServerRow | None:
        return next((s for s in self.servers if s.name == name), None)


def build_overview(
    manager: McpManager | None,
    *,
    registry: ToolRegistry,
    cwd: Path,
    disclosure: Disclosure | None = None,
    policy: PermissionPolicy | None = None,
) -> McpOverview:
    """The overview of ``manager``'s servers as of now (``manager`` None: nothing configured
    in this session, only the files that would be read)."""
    files = tuple(manager.config.paths) if manager is not None else tuple(config_paths(cwd))
    project = next((p for p in files if p.name == ".mcp.json"), None)
    states = manager.states() if manager is not None else []
    problems = tuple(manager.problems) if manager is not None else ()
    names = [tool.name for state in states for tool in state.tools]
    marks = exposure(disclosure, names)
    prompts: dict[str, list[McpPrompt]] = {}
    for prompt in manager.prompts() if manager is not None else ():
        prompts.setdefault(prompt.server, []).append(prompt)
    servers = []
    for state in states:
        rows = []
        for info in state.tools:
            tool = registry.get(info.name)
            permission = policy.explain(tool) if tool is not None and policy else None
            schema = tool_schema(tool) if tool is not None else {}
            mark = Mark("hidden", info.unavailable) if info.unavailable else marks[info.name]
            rows.append(ToolRow(info, mark, permission, schema))
        own = tuple(p for p in problems if p.server == state.name)
        servers.append(ServerRow(state, tuple(rows), own, tuple(prompts.get(state.name, ()))))
    cost = tools_cost(disclosure, registry, policy)
    unmasked = len(disclosure.unmasked & set(names)) if disclosure is not None else 0
    return McpOverview(
        servers=tuple(servers),
        problems=problems,
        files=files,
        cost=cost,
        cost_line=cost_line(cost, unmasked=unmasked),
        project_file=project,
    )
