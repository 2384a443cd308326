"""Between turns: switch the model, start a new session, resume a saved one.

Each refuses while a turn runs (the agent's provider and transcript belong to the turn).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.events import SessionStart
from agent_tui.core.providers.base import ProviderError
from agent_tui.core.session import SessionLog
from agent_tui.core.transcript import Usage
from agent_tui.ui.calls.book import states_from_history
from agent_tui.ui.common.format import model_label

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp

log = logging.getLogger(__name__)


def _refused(app: AgentApp, what: str) -> bool:
    if app.busy:
        app.notify(f"A turn is running: {what} after it ends (Esc interrupts).", severity="warning")
        return True
    return False


async def switch_model(app: AgentApp, spec: str) -> bool:
    """Use the model ``spec`` from the next turn on (the transcript is kept)."""
    if _refused(app, "switch the model"):
        return False
    from agent_tui.core.providers.spec import make_provider

    try:
        provider = make_provider(spec, cwd=app.agent.cwd)
    except ProviderError as exc:
        app.notify(str(exc), title="Cannot switch the model", severity="error")
        return False
    old, app.agent.provider = app.agent.provider, provider
    try:
        await old.aclose()
    except Exception:  # closing the old one is housekeeping
        log.exception("closing the previous provider failed")
    label, demo = model_label(provider.name), provider.kind == "demo"
    app.model, app.demo = label, demo
    app.main.status.model, app.main.status.demo = label, demo
    app.sub_title = f"{label} · offline demo" if demo else label
    await app.main.chat.add_notice(f"Model: {provider.name}", "info")
    return True


async def _reset_views(app: AgentApp) -> None:
    app.calls.clear()
    await app.main.chat.clear()
    await app.main.lane.clear()
    app.main.status.input_tokens = app.main.status.output_tokens = 0


async def new_session(app: AgentApp) -> bool:
    """An empty transcript, saved to a new session file."""
    if _refused(app, "start a new session"):
        return False
    agent = app.agent
    session = await asyncio.to_thread(agent.sessions.new, agent.cwd, agent.provider.name)
    agent.session, agent.messages, agent.usage = session, [], Usage()
    app.session = SessionStart(session_id=session.id, model=agent.provider.name, cwd=str(agent.cwd))
    await _reset_views(app)
    await app.main.chat.add_notice(f"New session {session.id}", "info")
    return True


async def resume_session(app: AgentApp, path: Path) -> bool:
    """Load the session file ``path`` and continue it."""
    if _refused(app, "resume a session"):
        return False
    try:
        session = await asyncio.to_thread(SessionLog.load, path)
    except OSError as exc:
        app.notify(f"Cannot read {path}: {exc.strerror or exc}", severity="error")
        return False
    agent = app.agent
    agent.session, agent.messages, agent.usage = session, list(session.messages), Usage()
    app.session = SessionStart(
        session_id=session.id, model=agent.provider.name, cwd=str(agent.cwd), resumed=True
    )
    await _reset_views(app)
    await show_transcript(app, session.id)
    return True


async def show_transcript(app: AgentApp, session_id: str | None) -> None:
    """The transcript of a resumed session: its messages in the chat, its calls as cards in the
    lane (their states rebuilt from the results, adopted by the app), then a notice."""
    messages = app.agent.messages
    history = states_from_history(messages)
    app.calls.adopt(history)
    await app.main.chat.replay(messages, history)
    await app.main.lane.replay(messages, history)
    which = f"session {session_id}" if session_id else "the session"
    await app.main.chat.add_notice(f"Resumed {which} · {len(messages)} messages", "info")
