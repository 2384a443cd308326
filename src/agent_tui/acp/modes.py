"""Our permission modes as ACP session modes, and plan mode's hand-off through the client.

The modes are the TUI's (``default``, ``accept-edits``, ``plan``), with ``bypass`` offered only
to a session that started in it (``--permission-mode bypass`` or a settings file): the TUI
asks before entering bypass, and a client's mode menu is no such confirmation. A switch
(``session/set_mode``, or an approved plan) puts the policy in the mode at once and tells the
calls waiting for an answer: the executor judges each again, exactly as after Shift+Tab, and
the client is told the mode it is now in (``current_mode_update``).

An ``exit_plan_mode`` call shows the plan to the client as a permission request whose options
are the TUI's plan answers: approve in default mode, approve in accept-edits mode, keep
planning. Anything else (cancelled, an option not offered) keeps planning.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from acp.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    CurrentModeUpdate,
    PermissionOption,
    SessionMode,
    SessionModeState,
    TextContentBlock,
    ToolCallUpdate,
)

from agent_tui.acp.permission import ClientAsker, RequestPermission
from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import Mode
from agent_tui.core.tools.plan_gate import PlanVerdict

log = logging.getLogger(__name__)

Notify = Callable[[Any], Awaitable[None]]
"""Sends one ``session/update`` of the session."""

PLAN_OPTIONS = (
    PermissionOption(
        option_id="approve_default",
        name="Approve: work asking before edits and commands (default mode)",
        kind="allow_once",
    ),
    PermissionOption(
        option_id="approve_accept_edits",
        name="Approve: work with file edits allowed (accept-edits mode)",
        kind="allow_once",
    ),
    PermissionOption(option_id="keep_planning", name="Keep planning", kind="reject_once"),
)
PLAN_MODES = {"approve_default": Mode.DEFAULT.value, "approve_accept_edits": "accept-edits"}


class SessionModes:
    """One session's modes: what is offered, the switch, and the plan reviewer."""

    def __init__(self, agent: Agent, asker: ClientAsker, notify: Notify) -> None:
        self.agent = agent
        self.asker = asker
        self.notify = notify
        start = agent.policy.mode
        self.offered = [m for m in Mode if m is not Mode.BYPASS or start is Mode.BYPASS]
        self._telling: set[asyncio.Task[None]] = set()

    def state(self) -> SessionModeState | None:
        """The modes for ``session/new`` (None: the policy has no modes)."""
        current = self.agent.policy.mode
        if current is None:
            return None
        return SessionModeState(
            current_mode_id=current.value,
            available_modes=[
                SessionMode(id=m.value, name=m.value, description=m.describe) for m in self.offered
            ],
        )

    def set(self, mode_id: str) -> None:
        """Switch to ``mode_id`` (``ValueError``: not a mode offered); the waiting asks are
        judged again."""
        mode = next((m for m in self.offered if m.value == mode_id), None)
        if mode is None or self.agent.policy.mode is None:
            offered = ", ".join(m.value for m in self.offered)
            raise ValueError(f"unknown mode {mode_id!r}: this session offers {offered}")
        self.agent.policy.set_mode(mode)
        for pending in list(self.asker.waiting):
            pending.mode_changed()

    async def switched(self, mode: Mode) -> None:
        """The mode changed on our side (an approved plan): tell the client."""
        await self.notify(
            CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode.value)
        )

    def attach(self, request: RequestPermission, session_id: str) -> None:
        """Plan mode's hand-off goes to the client (``exit_plan_mode``)."""

        async def review(plan: str) -> PlanVerdict:
            response = await request(
                session_id=session_id,
                tool_call=ToolCallUpdate(
                    tool_call_id="plan-review",
                    title="The plan is ready: approve it to start working",
                    kind="switch_mode",
                    status="pending",
                    content=[
                        ContentToolCallContent(
                            type="content", content=TextContentBlock(type="text", text=plan)
                        )
                    ],
                ),
                options=list(PLAN_OPTIONS),
            )
            outcome = response.outcome
            chosen = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
            if chosen in PLAN_MODES:
                return PlanVerdict(approved=True, mode=PLAN_MODES[chosen])
            return PlanVerdict(approved=False)

        def switch(mode: Mode) -> None:
            self.agent.policy.set_mode(mode)
            task = asyncio.get_running_loop().create_task(self.switched(mode))
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)

        self.agent.executor.plan_review.attach(review, switch)
