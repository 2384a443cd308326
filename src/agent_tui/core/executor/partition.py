"""Greedy partition of one assistant message's calls into batches (seed 3.4).

Consecutive concurrency-safe calls share a batch that runs in parallel, at most
``max_parallel`` calls at once; any other call — one that may have side effects, or that
failed before it could run — is a batch of its own. The partition is fail-closed: a call
that is not declared safe cuts the run of safe calls, so ``[read, read, shell, read]`` is
three batches, not two.

What the user sees as one group is a whole run of safe calls (``runs``): sixty reads of one
message run ten at a time, but they are one batch to read, not six.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.registry import PreparedCall, ToolRegistry
from agent_tui.core.transcript import ToolCall

MAX_PARALLEL = 10


@dataclass
class PlanHook:
    """What the PreToolUse hooks said about a call (``core.hooks``)."""

    refused: str | None = None
    """Blocked (the reason given to the model); the call is rejected ``by="hook"``."""
    permission: str | None = None
    """``allow`` or ``ask`` (a deny is ``refused``)."""
    reason: str = ""
    context: str = ""
    """The hooks' ``additionalContext``: added to what the model reads of the result."""


@dataclass(frozen=True)
class PromptAnswer:
    """What the ``PermissionRequest`` hooks answered in the user's place (``core.hooks``):
    allow (the call runs; its input may have been rewritten, ``rewritten``) or deny (with
    ``message``)."""

    allow: bool
    message: str = ""
    rewritten: bool = False
    """A hook's ``updatedInput`` replaced ``plan.prepared``: what will run is judged again."""


@dataclass
class CallPlan:
    """One call of the request: ready to run (``prepared``) or already failed (``error``)."""

    call: ToolCall
    index: int = 0
    prepared: PreparedCall | None = None
    error: ToolErrorInfo | None = None
    concurrency_safe: bool = False
    judged_path: Path | None = None
    """The resolved path the permission decision judged: the tool opens exactly this."""
    group: list[str] = field(default_factory=list)
    """The ids of the run of safe calls it belongs to (``runs``; empty when it runs alone):
    shown as one group, though the run is cut into batches of ``max_parallel``."""
    read_only: bool = False
    """The named tool is read-only (as the ``tool_use`` event said)."""
    allowed_by: str | None = None
    """What allowed the call when the mode changed while it asked (``accept-edits mode``)."""
    hook: PlanHook | None = None
    """The verdict of its PreToolUse hooks (None: no hook ran)."""
    sent: ToolCall | None = None
    """The call as the model sent it, when it named our tool by another tool's name (Claude
    Code's ``Bash``): ``call`` is then the call as ours (``ToolRegistry.as_ours``), which the
    events and the record show; the tool message answers ``sent``. A ``run_tool`` call is
    likewise the call of its target, ``sent`` the proxy call."""
    via: str | None = None
    """The proxy ``sent`` named (``run_tool``), when ``call`` is its target."""


def plan_calls(registry: ToolRegistry, calls: list[ToolCall]) -> list[CallPlan]:
    """Find each call's tool and validate its input, without running anything."""
    plans = []
    for index, call in enumerate(calls):
        prepared = resolve_proxy(registry, registry.prepare(call.name, call.arguments))
        ours = registry.as_ours(call)
        sent = call if ours is not call else None
        proxy = registry.get(call.name)
        via = call.name if sent is not None and proxy and proxy.proxy is not None else None
        if isinstance(prepared, ToolErrorInfo):
            plans.append(CallPlan(ours, index, error=prepared, sent=sent, via=via))
        else:
            judge = prepared.tool.concurrent
            safe = prepared.tool.meta.concurrency_safe and (judge is None or judge(prepared.input))
            plans.append(
                CallPlan(ours, index, prepared=prepared, concurrency_safe=safe, sent=sent, via=via)
            )
    return plans


def resolve_proxy(
    registry: ToolRegistry, prepared: PreparedCall | ToolErrorInfo
) -> PreparedCall | ToolErrorInfo:
    """A proxy call (``run_tool``) becomes its target's call: the target's schema validates the
    input, and permissions and execution see the target, never the proxy (seed s15, ex. 1)."""
    if isinstance(prepared, ToolErrorInfo) or prepared.tool.proxy is None:
        return prepared
    name, arguments = prepared.tool.proxy(prepared.input)
    target = registry.get(name)
    if target is not None and target.proxy is not None:
        return ToolErrorInfo(
            code="invalid_arguments",
            message=f"{prepared.tool.name} cannot call the proxy {name!r}.",
            next_step="Call the tool you found with search_tool by its own name.",
            retryable=True,
        )
    resolved = registry.prepare(name, arguments)
    if isinstance(resolved, ToolErrorInfo):
        return resolved.model_copy(
            update={"message": f"{prepared.tool.name} → {name}: {resolved.message}"}
        )
    return resolved


def partition(plans: list[CallPlan], max_parallel: int = MAX_PARALLEL) -> list[list[CallPlan]]:
    """Batches in request order: safe runs of at most ``max_parallel``, anything else alone."""
    if max_parallel < 1:
        raise ValueError(f"max_parallel must be at least 1, not {max_parallel}")
    batches: list[list[CallPlan]] = []
    for plan in plans:
        last = batches[-1] if batches else None
        if plan.concurrency_safe and last and last[0].concurrency_safe and len(last) < max_parallel:
            last.append(plan)
        else:
            batches.append([plan])
    return batches


def runs(plans: list[CallPlan]) -> list[list[CallPlan]]:
    """The runs of consecutive safe calls (and each other call alone): what ``partition``
    makes with no cap. A run of two or more is shown as one group however many batches it
    runs in."""
    return partition(plans, max(1, len(plans)))
