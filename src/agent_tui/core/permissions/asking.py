"""Asking the user about one call: the request, the answer, and the ask that carries its future.

A call the policy asks about becomes an ``ApprovalRequest`` (the call, its tool and input, the
policy's ``Decision``), and the executor gives it a ``PendingApproval``: the one future its
answer settles, exactly once. The front end answers by resolving it (``answer``: allow once,
for the session or always; deny, with feedback). An interrupt cancels it (``cancel``), and
both sides see that: the executor ends the call as interrupted, the front end closes its
prompt (a watcher is told, ``watch``). When the permission mode changes, the front end tells
each waiting ask so (``mode_changed``) and settles nothing itself: the ask calls back into the
executor, which judges the call again — the only place a call's permission is decided. A mode
that now allows or denies the call settles the ask with that decision (``Approval.decided``:
the prompt closes, an allow runs, a deny is the policy's rejection); a call that still asks
keeps its one prompt, which shows the new reason.

Why the live ask rides the asker and not the event stream: the stream is a record. Headless
mode prints it as JSON, a session stores it and replay reads it back, a subagent's events are
copied into the parent's stream — a future in it would be dead in every one of those copies,
and a consumer that cannot answer would have to ignore it. The asker exists only where someone
can answer (none in headless mode: an ask is refused there with its reason), so the request it
receives carries the future (``ApprovalRequest.pending``), as a message posted to a UI does.
The ``permission_request`` event stays what it was: the record that the call asked, and why.

An asker may also answer by returning an ``Approval`` (scripts and tests do): the executor
settles the future with it, unless the ask was settled first.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from agent_tui.core.permissions.decision import Decision
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.tools.base import Tool
from agent_tui.core.transcript import ToolCall

log = logging.getLogger(__name__)


class Scope(StrEnum):
    """How long an allow given at the prompt lasts."""

    ONCE = "once"
    """This call only."""
    SESSION = "session"
    """The suggested rules, in memory until the session ends: no file is written."""
    ALWAYS = "always"
    """The suggested rules, from now on: saved to the local project settings when the policy
    saves rules (``saves_rules``), else for this session like ``SESSION``."""


@dataclass(frozen=True)
class Approval:
    """The answer to an ``ask``: the user's, or the policy's after a mode change."""

    allowed: bool
    feedback: str | None = None
    scope: Scope = Scope.ONCE
    """How long an allow lasts (ignored for a deny)."""
    decided: Decision | None = None
    """Not the user's answer: the permission mode changed while the prompt was open, and the
    policy's new decision no longer asks. The executor sets it when it judged the call again
    (``PendingApproval.mode_changed``); an asker that answers by returning may set it too, and
    the executor then judges the call again itself and acts on its own decision (a call that
    still asks is asked again): ``allowed`` is only what the asker said."""

    @property
    def always(self) -> bool:
        return self.scope is Scope.ALWAYS


Judge = Callable[[], Decision | None]
"""The executor's decision on a call again (the mode changed): None when it cannot decide now
(the check failed: the call keeps asking)."""
Watcher = Callable[[Approval | None], None]
"""Told once when an ask is settled: with its answer, or None when it was cancelled."""


class PendingApproval:
    """The one future an ask's answer settles, exactly once; made by the executor.

    The front end calls ``answer`` (the user's answer), ``mode_changed`` (judge it again) and
    ``watch`` (to close its prompt however it is settled); the executor ``cancel``s it on an
    interrupt and awaits ``wait``. Not thread-safe: both sides run on the event loop.
    """

    def __init__(self, judge: Judge | None = None) -> None:
        self._future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
        self._judge = judge
        self._watchers: list[Watcher] = []
        self.verdict: Decision | None = None
        """The executor's decision that settled it after a mode change (None: it did not)."""

    @property
    def done(self) -> bool:
        """Settled: answered, decided by the policy, or cancelled."""
        return self._future.done()

    @property
    def cancelled(self) -> bool:
        return self._future.cancelled()

    @property
    def future(self) -> asyncio.Future[Approval]:
        """The future itself (for ``asyncio.wait``); settle it only through this object."""
        return self._future

    def answer(self, approval: Approval) -> bool:
        """Settle with ``approval``; False when it was settled already (the first one wins)."""
        if self._future.done():
            return False
        self._future.set_result(approval)
        self._tell(approval)
        return True

    def cancel(self) -> bool:
        """Cancel it (the turn was interrupted); False when it was settled already."""
        if self._future.done():
            return False
        self._future.cancel()
        self._tell(None)
        return True

    def mode_changed(self) -> Decision | None:
        """The permission mode changed: the executor judges the call again, now. An allow or
        a deny settles the ask with that decision (``Approval.decided``); for an ask, the ask
        waits on. Answers the executor's new decision (None: settled already, or no decision
        could be made — the call keeps asking)."""
        if self._future.done() or self._judge is None:
            return None
        decision = self._judge()
        if decision is None or decision.kind == "ask":
            return decision
        self.verdict = decision
        self.answer(Approval(allowed=decision.kind == "allow", decided=decision))
        return decision

    def watch(self, watcher: Watcher) -> None:
        """Call ``watcher`` when it is settled (at once if it is already)."""
        if self._future.done():
            watcher(None if self._future.cancelled() else self._future.result())
            return
        self._watchers.append(watcher)

    async def wait(self) -> Approval:
        """The answer (CancelledError when it was cancelled)."""
        return await asyncio.shield(self._future)

    def _tell(self, approval: Approval | None) -> None:
        watchers, self._watchers = self._watchers, []
        for watcher in watchers:
            try:
                watcher(approval)
            except Exception:
                log.exception("a watcher of a permission ask failed")


@dataclass(frozen=True)
class ApprovalRequest:
    """A call waiting for a decision (``decision`` is set once the policy asked)."""

    call: ToolCall
    tool: Tool[Any]
    input: BaseModel
    decision: Decision | None = None
    agent: str | None = None
    """The subagent that asks (``task``), None for the session's own calls."""
    caveats: tuple[str, ...] = ()
    """What to know before allowing it, beside the permission (the prompt shows them): a
    write that cannot be rewound…"""
    pending: PendingApproval | None = field(default=None, compare=False, repr=False)
    """The ask's own future, when the executor asks (None for a request only judged)."""
    grant: tuple[Rule, ...] = ()
    """Allow rules for this call only: those a custom command's ``allowed-tools`` grants the
    turn it starts (``core.commands.grants``). The policy judges them after every deny rule
    and every-mode check, as any allow rule; they never name a protected path or a place
    outside the workspace for it (``PermissionPipeline.standing_allow_rules``)."""

    @property
    def reason(self) -> str:
        return self.decision.reason if self.decision is not None else ""


Asker = Callable[[ApprovalRequest], Awaitable[Approval]]
"""The front end that can be asked: it receives the request (with its ``pending`` future) and
answers by resolving that future, or by returning the answer. None: nobody can be asked."""
