"""The checkpoint records a session file keeps: one chronological log of what happened to files.

Every record names the ``turn`` it belongs to: the id of an agent turn (the user message that
started it carries the same id, ``Message.turn``) or of a rewind (rewinds change files too).
A turn starts with ``TurnStarted``; before the turn's first change to a file comes the file's
``FileBefore`` (its content, saved as a blob, or "did not exist"), after each change a
``FileAfter`` (what the agent wrote). What a tool that does not report its changes
(``run_shell``) changed in the workspace gets the same two records, from the workspace's shadow
(``core.checkpoints.shadow``); what the shadow could not keep (ignored, too big) is listed in a
``ShellChanges``. A rewind is ``Rewound``
followed by the ``FileBefore``/``FileAfter`` of each file it restored, so a rewind is undone
like a turn is.

The session file stores each as a ``{"type": "checkpoint", "entry": {...}}`` line.
"""

from __future__ import annotations

import functools
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from agent_tui.core.empty import empty_list

ChangeKind = Literal["created", "modified", "deleted"]
DEFERRED = ConfigDict(defer_build=True)
"""The records' config: each builds its validator on first use, not at import (issue 45)."""


class TurnStarted(BaseModel):
    """An agent turn began (``at``: UTC, ISO seconds)."""

    model_config = DEFERRED

    kind: Literal["turn"] = "turn"
    turn: str
    at: str
    prompt: str = ""
    """The start of the user's prompt (the transcript has it whole)."""


class FileBefore(BaseModel):
    """A file as it was before the turn's first change to it."""

    model_config = DEFERRED

    kind: Literal["before"] = "before"
    turn: str
    path: str
    """Absolute and resolved: the file the tool wrote."""
    exists: bool
    blob: str | None = None
    """The digest of its content in the blob store; None when it did not exist, or was too big
    to keep (``exists`` and no blob: it cannot be restored)."""
    mode: int | None = None
    """Its permission bits."""
    size: int = 0
    new_dirs: str | None = None
    """When it did not exist: the outermost of its parent directories that did not exist
    either (the write made it); a rewind that deletes the file removes them if left empty."""
    link: str | None = None
    """When it was a symbolic link: where it pointed (``blob`` is None; a rewind remakes
    the link)."""


class FileAfter(BaseModel):
    """What a change left in a file: the digest of the bytes written, None when it was deleted."""

    model_config = DEFERRED

    kind: Literal["after"] = "after"
    turn: str
    path: str
    digest: str | None
    """For a symbolic link: ``link_digest`` of where it points."""
    mode: int | None = None
    """The permission bits it left (None: not known, as in records of older versions)."""
    command: bool = False
    """Left by a command (the shadow's record of a ``run_shell`` change), not a file tool."""


LINK_PREFIX = "link:"


def link_digest(target: str) -> str:
    """What stands for a symbolic link's content where a digest is compared."""
    return LINK_PREFIX + target


class OutsideChange(BaseModel):
    """One path a workspace scan found created, modified or deleted."""

    model_config = DEFERRED

    path: str
    change: ChangeKind
    why: str = ""
    """Why it cannot be restored: ``ignored`` (an ignore file ignores it), ``big`` (over the
    size a checkpoint keeps), ``budget`` (beyond the bytes the workspace's shadow keeps in all),
    ``unread`` (it could not be read in time), ``gitobject`` (its old content was left to git,
    and git no longer gives it, or gives other bytes), ``git`` (the path is ``.git``: git's
    refs, index or reflog moved), ``outside`` (outside the workspace, in a directory
    ``sandbox.allow_write`` names: seen, never kept); empty in records of versions that
    restored no command's change."""


class ShellChanges(BaseModel):
    """What the workspace scan around a call found changed that the shadow did not keep:
    files a rewind cannot restore."""

    model_config = DEFERRED

    kind: Literal["shell"] = "shell"
    turn: str
    call_id: str
    tool: str
    changes: list[OutsideChange] = Field(default_factory=empty_list)
    more: int = 0
    """Changes found beyond those listed (``MAX_LISTED``)."""
    truncated: bool = False
    """A scan stopped at its entry limit: changes beyond it were not looked for."""


class Rewound(BaseModel):
    """A rewind: to before the turn ``target``. Its own file records follow under ``turn``."""

    model_config = DEFERRED

    kind: Literal["rewind"] = "rewind"
    turn: str
    target: str
    at: str
    code: bool
    conversation: bool
    messages: int | None = None
    """When the conversation was rewound: the transcript keeps its first ``messages``."""


CheckpointEntry = Annotated[
    TurnStarted | FileBefore | FileAfter | ShellChanges | Rewound, Field(discriminator="kind")
]


@functools.cache
def entry_adapter() -> TypeAdapter[CheckpointEntry]:
    """The validator of a checkpoint line, built when the first one is read (not at import)."""
    return TypeAdapter(CheckpointEntry)
