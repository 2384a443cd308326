"""How each tool reaches the model, and what the tools array costs: the marks and the cost line
that ``agent-tui mcp list`` and the MCP panel show.

A tool is *direct* (in the tools array of every request), *deferred* (not in the array; the
model finds it with ``search_tool`` and calls it through ``run_tool``), *unmasked* (deferred,
but found by ``search_tool`` in this session) or *promoted* (direct by configuration:
``disclosure.promote`` or a server in ``disclosure.always_load``).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agent_tui.core.disclosure.proxies import RUN_TOOL
from agent_tui.core.disclosure.state import (
    DEFERRABLE_BUILTINS,
    PROXIES,
    Disclosure,
    counted,
    server_of,
)
from agent_tui.core.jobs import JOB_TOOLS
from agent_tui.core.permissions.decision import Step
from agent_tui.core.permissions.modes import Mode
from agent_tui.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent_tui.core.permissions.policy import PermissionPolicy

Exposure = Literal["direct", "deferred", "unmasked", "promoted", "hidden"]
"""``hidden``: listed by its server but not offered to the model (``ToolInfo.unavailable``)."""


@dataclass(frozen=True)
class Mark:
    kind: Exposure
    why: str
    """One sentence: what puts the tool in this bucket."""


def exposure(disclosure: Disclosure | None, names: Iterable[str]) -> dict[str, Mark]:
    """The mark of each tool in ``names`` (registered tool names)."""
    names = list(names)
    if disclosure is None:
        why = "progressive disclosure is not used in this session: every tool is direct"
        return {name: Mark("direct", why) for name in names}
    settings = disclosure.settings
    threshold = settings.threshold
    deferred = {t.name for t in disclosure.deferred()}
    strict = disclosure.protocol == "strict"
    count = counted(t for t in disclosure.registry.tools() if t.name not in PROXIES | JOB_TOOLS)
    marks: dict[str, Mark] = {}
    for name in names:
        if name in deferred and name in disclosure.unmasked:
            then = (
                "it is in the tools array from the next request"
                if strict
                else f"the model calls it through {RUN_TOOL}"
            )
            marks[name] = Mark("unmasked", f"deferred, found with search_tool this session: {then}")
        elif name in deferred:
            marks[name] = Mark(
                "deferred",
                f"not in the tools array ({count} tools > auto:{threshold}); the model finds "
                f"it with search_tool and calls it through {RUN_TOOL}",
            )
        elif pattern := next(
            (p for p in disclosure.promoted if fnmatch.fnmatchcase(name, p)), None
        ):
            marks[name] = Mark(
                "promoted", f"promoted by disclosure.promote ({pattern}): direct from the start"
            )
        elif server_of(name) and server_of(name) in settings.always_load:
            marks[name] = Mark(
                "promoted", f"its server {server_of(name)} is in disclosure.always_load: direct"
            )
        elif threshold is None:
            marks[name] = Mark("direct", 'disclosure is off (disclosure.deferred = "off")')
        elif name in DEFERRABLE_BUILTINS:
            marks[name] = Mark(
                "direct",
                "deferred only while MCP tools are, and disclosure.defer_builtins is true",
            )
        elif not server_of(name):
            marks[name] = Mark("direct", "built-in tools are always direct")
        else:
            marks[name] = Mark(
                "direct",
                f"{count} tools in all, not more than {threshold} "
                f"(disclosure.deferred = auto:{threshold}): every tool is direct",
            )
    return marks


def request_filters(policy: PermissionPolicy | None, registry: ToolRegistry) -> dict[str, Any]:
    """The filters of the next request's tools array (``Disclosure.exposed``): plan mode offers
    read-only tools only; a tool denied outright by a rule is left out."""
    if policy is None:
        return {"read_only_only": False, "denied": []}
    denied = []
    for tool in registry.tools():
        decision = policy.explain(tool, suggest=False)  # the step is all it needs
        if (
            decision.step is Step.DENY_RULE
            and decision.rule is not None
            and (decision.rule.pattern is None)
        ):
            denied.append(tool.name)
    return {"read_only_only": policy.mode is Mode.PLAN, "denied": denied}


def plain_tools(registry: ToolRegistry, policy: PermissionPolicy | None) -> ToolRegistry:
    """The tools of a request without progressive disclosure: the whole registry, less the
    plan-mode tools (``exit_plan_mode``) outside plan mode."""
    in_plan = policy is not None and policy.mode is Mode.PLAN
    if in_plan or not any(t.meta.plan_mode_only for t in registry.tools()):
        return registry
    return ToolRegistry([t for t in registry.tools() if not t.meta.plan_mode_only])


def tools_cost(
    disclosure: Disclosure | None, registry: ToolRegistry, policy: PermissionPolicy | None = None
) -> dict[str, int]:
    """``Disclosure.estimate`` for the next request (the same figures without disclosure:
    then the whole registry is the array)."""
    if disclosure is not None:
        return disclosure.estimate(**request_filters(policy, registry))
    total = len(registry.openai_tools_json()) // 4 if len(registry) else 0
    return {
        "direct_tokens": total,
        "proxy_tokens": 0,
        "unmasked_tokens": 0,
        "total_tokens": total,
        "without_disclosure_tokens": total,
        "deferred_count": 0,
    }


def approx_tokens(count: int) -> str:
    """``950``, ``7.2k``, ``69k``, ``1.2M``."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{count // 1000}k"
    return f"{count / 1_000_000:.1f}M"


def cost_line(cost: Mapping[str, int], *, unmasked: int = 0) -> str:
    """One line about the tools array: its size with disclosure and without, and how many
    tools are deferred (and found since)."""
    total = approx_tokens(cost["total_tokens"])
    deferred = cost.get("deferred_count", 0)
    if not deferred:
        return f"tools array ~{total} tokens per request; every tool is direct"
    without = approx_tokens(cost["without_disclosure_tokens"])
    found = f" ({unmasked} found so far)" if unmasked else ""
    return (
        f"tools array ~{total} tokens per request with disclosure, ~{without} without; "
        f"{deferred} deferred tools reachable through search_tool{found}"
    )
