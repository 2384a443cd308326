"""Keys around the turn: quitting (Ctrl+C twice, Ctrl+Q) and the permission mode (Shift+Tab,
the palette)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from agent_tui.core.permissions import Mode

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp

CLOSE_TIMEOUT = 5.0
"""Seconds quitting waits for the agent to clean up before exiting anyway."""
QUIT_WINDOW = 3.0
"""A second Ctrl+C within this many seconds quits."""


async def quit_app(app: AgentApp) -> None:
    """Stop the turn, close the agent (spill cleanup, provider), then exit."""
    if app.theme_keeper is not None:  # a theme picked a moment ago is kept
        app.theme_keeper.save_now()
    if app.busy:
        app.agent.interrupt()
    try:
        await asyncio.wait_for(app.agent.close(), CLOSE_TIMEOUT)
    except TimeoutError:
        pass
    app.exit()


async def ctrl_c(app: AgentApp) -> None:
    """First press: interrupt the running turn and arm; a second press soon after quits."""
    now = time.monotonic()
    if app.quit_armed_at is not None and now - app.quit_armed_at <= QUIT_WINDOW:
        await app.action_quit()
        return
    app.quit_armed_at = now
    app.action_interrupt()
    app.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW)


def mode_label(app: AgentApp) -> str:
    """The permission mode for the status bar ("" when the policy has none)."""
    mode = app.agent.policy.mode
    return str(mode) if mode is not None else ""


def cycle_mode(app: AgentApp) -> None:
    """Next permission mode (default → accept-edits → plan → bypass); takes effect at
    the next decision, also in the running turn. Bypass asks for confirmation first; declined,
    the cycle goes on to the mode after it (default), so cycling never has to pass through
    bypass."""
    mode = app.agent.policy.mode
    if mode is None:
        app.notify("Permission modes are not available with this policy.")
        return
    following = mode.next()
    set_mode(app, following, otherwise=following.next() if following is Mode.BYPASS else None)


def set_mode(app: AgentApp, mode: Mode, *, otherwise: Mode | None = None) -> None:
    """Switch the permission mode; the calls waiting for approval are judged again under it
    (``redecide_waiting``). Entering bypass asks for confirmation first (``BypassConfirm``);
    declined, the mode becomes ``otherwise``, or stays as it is."""
    policy = app.agent.policy
    current = policy.mode
    if current is None:
        return
    if mode is not Mode.BYPASS or current is Mode.BYPASS:
        _switch(app, mode)
        return
    from agent_tui.ui.shell.bypass_confirm import BypassConfirm

    fallback = (
        f"switch to {otherwise.value} mode instead"
        if otherwise
        else f"stay in {current.value} mode"
    )

    def confirmed(yes: bool | None) -> None:
        if yes:
            _switch(app, Mode.BYPASS)
        elif otherwise is not None:
            _switch(app, otherwise)
        else:
            app.notify(f"Bypass not entered; the permission mode stays {current.value}.")

    app.push_screen(BypassConfirm(fallback), callback=confirmed)


def _switch(app: AgentApp, mode: Mode) -> None:
    app.agent.policy.set_mode(mode)
    app.main.status.mode = mode.value
    app.notify(
        f"Permission mode: {mode.value} — {mode.describe}",
        severity="warning" if mode is Mode.BYPASS else "information",
    )
    redecide_waiting(app)


def redecide_waiting(app: AgentApp) -> None:
    """Judge the calls waiting for approval again (the mode changed): one the mode now allows
    runs without an answer, its card saying what allowed it; one it denies is rejected by the
    policy (the executor's own rejection event says so); the others keep asking. Deny rules
    win in every mode: the policy decides, not the prompt."""
    for request, decision in app.desk.redecide(app.agent.policy):
        state = app.calls.get(request.call.id)
        if state is None:
            continue
        if decision.kind == "allow":
            state.allowed_by = decision.basis
            app.main.lane.refresh_call(state.id)
            app.main.chat.refresh_call(state.id)
            app.notify(f"{state.name} runs without asking: allowed by {decision.basis}")
