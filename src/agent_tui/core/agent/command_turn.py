"""The model of a turn a custom command started (``core.commands.grants.CommandRun``).

``open_model`` gives the turn its own provider when the command names another model than the
session's (built from the spec; one that cannot be built leaves the session's model, said in
the turn's ``command`` field), ``close_model`` closes it when the turn ends, however it ends:
the next turn is the session's model again. ``grant_event`` is what the ``user_message``
event says of the command: the rules it granted, the model the turn runs on, what is not
applied.
"""

from __future__ import annotations

import logging

from agent_tui.core.agent.turn_state import Turn, TurnHost
from agent_tui.core.conversation.model_limits import model_limits
from agent_tui.core.events import CommandGrant
from agent_tui.core.providers.base import Provider, ProviderError
from agent_tui.core.state.model_spec import spec_name

log = logging.getLogger(__name__)


def open_model(turn: Turn, host: TurnHost) -> str | None:
    """Give ``turn`` the provider its command names (when not the session's); what to say
    when it cannot be built (the turn then runs on the session's model)."""
    command = turn.command
    if command is None or not command.model:
        return None
    if spec_name(command.model, cwd=host.cwd) == host.provider.name:
        return None
    from agent_tui.core.providers.spec import make_provider

    try:
        provider = make_provider(command.model, cwd=host.cwd)
    except ProviderError as exc:
        return (
            f"model: {command.model} cannot be used ({exc}); the turn runs on the session's model"
        )
    turn.provider = provider
    turn.limits = model_limits(provider.name, host.settings.model)
    return None


def provider_of(turn: Turn, host: TurnHost) -> Provider:
    """The model this turn's requests go to."""
    return turn.provider if turn.provider is not None else host.provider


async def close_model(turn: Turn) -> None:
    """Close the turn's own provider (the next turn is the session's model)."""
    provider, turn.provider, turn.limits = turn.provider, None, None
    if provider is None:
        return
    try:
        await provider.aclose()
    except Exception:  # closing is housekeeping: it must not end the turn in an error
        log.exception("closing the command's provider failed")


def grant_event(turn: Turn, host: TurnHost, said: str | None) -> CommandGrant | None:
    """What the turn's ``user_message`` says of its command (None: no command)."""
    command = turn.command
    if command is None:
        return None
    return CommandGrant(
        name=command.name,
        granted=command.granted,
        model=provider_of(turn, host).name,
        notes=[*command.notes, *([said] if said else [])],
    )
