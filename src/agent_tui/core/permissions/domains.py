"""Domain rules: ``web_fetch(domain:example.com)`` allows fetching from that host,
``web_fetch(domain:*.example.com)`` from its subdomains (not the domain itself), and
``web_fetch`` alone from any host. Deny and ask rules are written the same way.

``web_fetch(private:intranet.example)`` allows that host even when its name resolves to a
private address; a ``domain:`` rule lets a private address be fetched only when it names an IP
literal or ``localhost`` itself (``RuleHosts``, ``core.tools.hosts``): a name's DNS may change
after the rule was saved. A wildcard never does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_tui.core.permissions.decision import Decision, Step, plan_mode
from agent_tui.core.permissions.judging import source_of
from agent_tui.core.permissions.modes import Mode
from agent_tui.core.permissions.rules import WEB_TOOLS, Rule
from agent_tui.core.tools.base import Tool
from agent_tui.core.tools.hosts import PREFIX, PRIVATE_PREFIX, host_of, normal_host

if TYPE_CHECKING:
    from agent_tui.core.permissions.judging import Judging

__all__ = ["WEB_TOOLS", "RuleHosts", "host_of", "judge_domain", "matches", "normal_host"]


def rule_host(rule: Rule) -> str | None:
    """The host (or ``*.domain``) a domain rule names; None for a rule without a pattern."""
    if rule.pattern is None:
        return None
    for prefix in (PREFIX, PRIVATE_PREFIX):
        if rule.pattern.startswith(prefix):
            return normal_host(rule.pattern[len(prefix) :])
    return None


def names_private(rule: Rule) -> bool:
    """Does ``rule`` name its host as one that may be private: a ``private:`` rule, or a
    ``domain:`` rule naming an IP literal or ``localhost`` (never a wildcard)."""
    from agent_tui.core.tools.builtin.addresses import literal, local_name

    host = rule_host(rule)
    if host is None or host.startswith("*.") or rule.pattern is None:
        return False
    if rule.pattern.startswith(PRIVATE_PREFIX):
        return True
    return literal(host) is not None or local_name(host)


def matches(rule: Rule, host: str) -> bool:
    """Does ``rule`` cover ``host``? A rule without a pattern covers every host."""
    if rule.pattern is None:
        return True
    named = rule_host(rule)
    if named is None:
        return False
    if named.startswith("*."):
        return host.endswith(named[1:])
    return host == named


class RuleHosts:
    """The hosts the allow rules of ``tool_names`` name as possibly private
    (``names_private``, ``core.tools.hosts``)."""

    def __init__(self, rules: Sequence[Rule], tool_names: Sequence[str]) -> None:
        self._named = {
            host
            for rule in rules
            if any(rule.names_tool(name) for name in tool_names)
            and names_private(rule)
            and (host := rule_host(rule)) is not None
        }

    def names(self, host: str) -> bool:
        return normal_host(host) in self._named


def judge_domain(pipeline: Judging, tool: Tool[Any], host: str) -> Decision:
    """deny rules → plan mode → ask rules → allow rules → the mode (a network tool asks)."""

    def first(kind: str) -> Rule | None:
        return next((r for r in pipeline.rules_for(kind, tool) if matches(r, host)), None)

    denying = first("deny")
    if denying is not None:
        return Decision(
            "deny", f"denied by the rule {denying}{source_of(denying)}", Step.DENY_RULE, denying
        )
    if pipeline.mode is Mode.PLAN and not tool.meta.read_only:
        return plan_mode(tool)
    if pipeline.mode is not Mode.BYPASS:
        asking = first("ask")
        if asking is not None:
            return Decision(
                "ask",
                f"the rule {asking}{source_of(asking)} asks for this call",
                Step.ASK_RULE,
                asking,
            )
    allowing = first("allow")
    if allowing is not None:
        return Decision(
            "allow",
            f"allowed by the rule {allowing}{source_of(allowing)}",
            Step.ALLOW_RULE,
            allowing,
        )
    if pipeline.mode is Mode.BYPASS:
        return Decision("allow", "bypass mode", Step.BYPASS)
    return Decision("ask", f"{tool.name} fetches from {host}, outside this machine", Step.NETWORK)
