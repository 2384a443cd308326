"""What one turn reads of the agent, and what the phases of one turn share.

``TurnHost`` is the agent as the turn loop (``turn``) sees it: public members, read as they
are at the time (the model may switch, a front end may set another policy or settings between
turns). ``Turn`` is one user turn as it runs: its id, prompt and asker, its checkpoint, the
custom command that started it (its grant and model: ``command_turn``), and the counts and
once-only flags its rounds keep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agent_tui.core.agent.inbox import Inbox
from agent_tui.core.agent.tool_source import ToolSource
from agent_tui.core.attachments import PreparedImage
from agent_tui.core.budget import SpillStore
from agent_tui.core.checkpoints.turn import TurnCheckpoint
from agent_tui.core.conversation.context import ContextUsage
from agent_tui.core.conversation.model_limits import ModelLimits
from agent_tui.core.disclosure import Disclosure
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.hooks import Hooks
from agent_tui.core.mentions import MentionResources
from agent_tui.core.permissions import Asker, PermissionPolicy, Rule
from agent_tui.core.providers.base import Provider
from agent_tui.core.settings import Settings
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent_tui.core.commands.grants import CommandRun


class TurnHost(Protocol):
    """What the turn reads of the agent, as it is at the time."""

    @property
    def provider(self) -> Provider: ...

    @property
    def system(self) -> str: ...

    @property
    def limits(self) -> ModelLimits: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def registry(self) -> ToolRegistry: ...

    @property
    def executor(self) -> ToolExecutor: ...

    @property
    def hooks(self) -> Hooks | None: ...

    @property
    def max_turns(self) -> int: ...

    @property
    def tool_sources(self) -> Sequence[ToolSource]: ...

    @property
    def cwd(self) -> Path: ...

    @property
    def policy(self) -> PermissionPolicy: ...

    @property
    def file_state(self) -> FileStateCache: ...

    @property
    def mention_resources(self) -> MentionResources | None: ...

    @property
    def inbox(self) -> Inbox: ...

    @property
    def disclosure(self) -> Disclosure | None: ...

    @property
    def spills(self) -> SpillStore: ...

    def context(self) -> ContextUsage: ...


@dataclass
class Turn:
    """One user turn as it runs: what its phases share."""

    id: str
    prompt: str
    asker: Asker | None
    attached: tuple[PreparedImage, ...] = ()
    """The images the prompt came with (pasted, dropped); its mentions may add more."""
    checkpoint: TurnCheckpoint | None = None
    command: CommandRun | None = None
    """The custom command that started the turn with ``allowed-tools`` or ``model``."""
    provider: Provider | None = None
    """The turn's own model (a command's ``model``; None: the session's), closed at its end."""
    limits: ModelLimits | None = None
    """The limits of ``provider``."""
    requests: int = 0
    """Model requests sent so far (``turn_end.turns``; what ``max_turns`` counts)."""
    text: str = ""
    """The last reply's text (``turn_end.text``)."""
    overflowed: bool = False
    """Compacted after an overflow (once: a second overflow ends the turn)."""
    auto_compact: bool = True
    """May still compact at the threshold (once a turn)."""
    stop_hook_active: bool = False
    """A Stop hook sent the model on once already (it cannot loop forever)."""

    @property
    def grant(self) -> tuple[Rule, ...]:
        """The allow rules of this turn only (its command's ``allowed-tools``)."""
        return self.command.rules if self.command is not None else ()


__all__ = ["Turn", "TurnHost"]
