"""The permission mode as the TUI switches it, and what the approval desk tells the app.

``PermissionModes.cycle`` is Shift+Tab's next mode, ``set_mode`` the palette's and
``/mode``'s choice; entering bypass asks for confirmation first (``BypassConfirm``). A switch
tells the calls waiting for approval (``switch``): the executor judges them again under
the new mode. ``describe_ask`` and ``answered`` are the ``ApprovalDesk``'s callbacks: an
ask shown, an answer given (the user's, or the policy's after a switch). The plan desk
(``PlanDesk``) shows a plan proposed in plan mode; an approval switches the mode through
``switch``, as Shift+Tab does. Built by the app once the core is there; what it uses of the
app is ``ModesHost``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.ui.shell.activity import Activity

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.permissions import Approval, ApprovalRequest, Mode
    from agent_tui.ui.approval.desk import ApprovalDesk
    from agent_tui.ui.approval.screen import Ask
    from agent_tui.ui.calls.book import CallBook
    from agent_tui.ui.shell.event_view import EventView


class ModesHost(Protocol):
    """What of the app (``AgentApp``) the switches use: the agent's policy, the mode shown,
    the approval desk and the call model, and the app's notices and screens."""

    agent: Agent
    mode: str
    desk: ApprovalDesk
    calls: CallBook
    event_view: EventView

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def push_screen(
        self, screen: Screen[Any], callback: Callable[[Any], None] | None = None
    ) -> object: ...

    def pop_screen(self) -> object: ...

    @property
    def screen(self) -> Screen[object]: ...


class PermissionModes:
    """The app's (``app``: the ``AgentApp``) permission mode and approval callbacks."""

    def __init__(self, app: ModesHost, *, cursor_blink: bool = True) -> None:
        from agent_tui.ui.approval.plan_desk import PlanDesk

        self.app = app
        self.plan_desk = PlanDesk(
            app, cursor_blink=cursor_blink, on_open=self._plan_shown, on_close=self._plan_closed
        )
        """Shows a plan proposed in plan mode (``exit_plan_mode``) and takes the answer."""
        self.plan_desk.attach(app.agent.executor.plan_review, self.switch)

    def _plan_shown(self) -> None:
        view = self.app.event_view
        view.plan_waiting = True
        view.set_activity(Activity.APPROVAL)

    def _plan_closed(self) -> None:
        view = self.app.event_view
        view.plan_waiting = False
        view.set_activity(view.tool_activity())

    def cycle(self) -> None:
        """Next permission mode (default → accept-edits → plan → bypass); takes effect at
        the next decision, also in the running turn. Bypass asks for confirmation first;
        declined, the cycle goes on to the mode after it (default), so cycling never has to
        pass through bypass."""
        from agent_tui.core.permissions import Mode

        mode = self.app.agent.policy.mode
        if mode is None:
            self.app.notify("Permission modes are not available with this policy.")
            return
        following = mode.next()
        self.set_mode(following, otherwise=following.next() if following is Mode.BYPASS else None)

    def set_mode(self, mode: Mode, *, otherwise: Mode | None = None) -> None:
        """Switch the permission mode; the calls waiting for approval are judged again under
        it. Entering bypass asks for confirmation first (``BypassConfirm``); declined, the mode
        becomes ``otherwise``, or stays as it is."""
        from agent_tui.core.permissions import Mode

        app = self.app
        current = app.agent.policy.mode
        if current is None:
            return
        if mode is not Mode.BYPASS or current is Mode.BYPASS:
            self.switch(mode)
            return
        from agent_tui.ui.shell.bypass_confirm import BypassConfirm
        from agent_tui.ui.shell.key_question import pressed_key

        fallback = (
            f"switch to {otherwise.value} mode instead"
            if otherwise
            else f"stay in {current.value} mode"
        )

        question = BypassConfirm(fallback)

        def confirmed(yes: bool | None) -> None:
            pressed = pressed_key(question)
            said = f"Bypass not entered ({pressed})" if pressed else "Bypass not entered"
            if yes:
                self.switch(Mode.BYPASS)
            elif otherwise is not None:
                self.switch(otherwise, said=said)
            else:
                app.notify(f"{said}; the permission mode stays {current.value}.")

        app.push_screen(question, callback=confirmed)

    def switch(self, mode: Mode, *, said: str = "") -> None:
        """Put the policy in ``mode`` at once, say so (after ``said``, what led to it), and
        tell the calls waiting for approval: the executor judges each again. One the mode now
        allows runs without an answer, its card saying what allowed it; one it denies is
        rejected by the policy (the executor's own rejection event says so); the others keep
        asking. Deny rules win in every mode: the policy decides, not the prompt (``answered``
        shows what it decided)."""
        from agent_tui.core.permissions import Mode

        app = self.app
        app.agent.policy.set_mode(mode)
        app.mode = mode.value
        app.notify(
            f"{f'{said}. ' if said else ''}Permission mode: {mode.value} — {mode.describe}",
            severity="warning" if mode is Mode.BYPASS else "information",
        )
        app.desk.mode_changed(mode.value)

    def describe_ask(self, request: ApprovalRequest) -> Ask:
        """The approval dialog's content for ``request`` (the desk is about to show it)."""
        from agent_tui.ui.approval.desk import describe_request

        app = self.app
        app.event_view.set_activity(Activity.APPROVAL)
        return describe_request(request, app.agent.policy, app.agent.cwd)

    def answered(self, request: ApprovalRequest, approval: Approval) -> None:
        """``request`` was answered: an allowed call starts running; one the policy allowed
        after a mode change (``Approval.decided``) says what allowed it."""
        app = self.app
        view = app.event_view
        if approval.allowed and (state := app.calls.start(request.call.id)) is not None:
            view.refresh_calls([state])
        view.set_activity(Activity.RUNNING if approval.allowed else view.tool_activity())
        decided = approval.decided
        if decided is not None and decided.kind == "allow":
            state = app.calls.get(request.call.id)
            if state is not None:
                state.allowed_by = decided.basis
                view.refresh_calls([state])
                app.notify(f"{state.name} runs without asking: allowed by {decided.basis}")
