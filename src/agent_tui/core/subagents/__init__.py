"""Subagents: the ``task`` tool and the named agents it can run (``definitions``)."""

from agent_tui.core.subagents.definitions import (
    GENERAL,
    AgentCatalog,
    AgentDefinition,
    load_agents,
    parse_agent_file,
)
from agent_tui.core.subagents.tool import NAME, Subagents, TaskInput, install

__all__ = [
    "GENERAL",
    "NAME",
    "AgentCatalog",
    "AgentDefinition",
    "Subagents",
    "TaskInput",
    "install",
    "load_agents",
    "parse_agent_file",
]
