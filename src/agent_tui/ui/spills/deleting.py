"""Deleting a spill from the browser (``d``): refused while a live message or a saved session
points to it (the model, or a resumed session, may read it). That is checked first in a
worker thread (the saved sessions are files to read, maybe many and long), then the user is
asked (``ConfirmDelete``), then it is deleted in a thread, checked again (the transcript and
the sessions may have changed while the user was asked). What it uses of the browser is
``DeletionHost``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.screen import Screen

from agent_tui.core.browse import SpillRefused, delete_spill, why_not_delete
from agent_tui.ui.spills.confirm_delete import ConfirmDelete

if TYPE_CHECKING:
    from agent_tui.core.budget.store import SpillStore
    from agent_tui.core.transcript import Message
    from agent_tui.ui.spills.model import SpillView
    from agent_tui.ui.spills.steps import Deletion


class DeletionHost(Protocol):
    """What of the browser (``SpillBrowser``) a deletion uses: the spill store, the state
    (which spill is in view), the live transcript and the saved sessions, and what the
    browser shows once a spill is gone."""

    store: SpillStore
    view: SpillView
    session_files: Callable[[], Iterable[Path]] | None

    def transcript(self) -> list[Message]: ...

    def show_deleted(self, path: Path) -> None: ...


class SpillDeletion:
    """The ``d`` key's path (``screen`` runs the workers and asks; ``host`` is the browser's
    state)."""

    def __init__(self, screen: Screen[Any], host: DeletionHost) -> None:
        self.screen = screen
        self.host = host

    def check(self, deletion: Deletion) -> None:
        """Check in a thread whether ``deletion`` may be asked for, then ask."""
        self.screen.run_worker(
            partial(self._check, deletion, self.host.transcript()),
            thread=True,
            group="spill-delete",
            exit_on_error=False,
            name="check-deletion",
        )

    def _saved_sessions(self) -> list[Path]:
        files = self.host.session_files
        return list(files()) if files is not None else []

    def _check(self, deletion: Deletion, messages: list[Message]) -> None:
        """The worker (a thread): may ``deletion`` be asked for? Then back to ``_checked``."""
        refused = why_not_delete(self.host.store, deletion.path, messages, self._saved_sessions())
        with contextlib.suppress(RuntimeError):  # the app is closing
            self.screen.app.call_from_thread(self._checked, deletion, refused)

    def _checked(self, deletion: Deletion, refused: SpillRefused | None) -> None:
        screen, view = self.screen, self.host.view
        if deletion.path != view.path or not screen.is_attached or view.hidden:
            return  # another spill is in view now, or none: the user moved on
        if refused is not None:
            screen.notify(str(refused), title="Not deleted", severity="error", timeout=10)
            return

        def answered(yes: bool | None) -> None:
            if yes and deletion.path == view.path and not view.hidden:
                self._delete(deletion.path, self.host.transcript())

        screen.app.push_screen(ConfirmDelete(deletion.shown, deletion.size), answered)

    def _delete(self, path: Path, messages: list[Message]) -> None:
        self.screen.run_worker(
            partial(self._delete_checked, path, messages),
            thread=True,
            group="spill-delete",
            exit_on_error=False,
            name="delete-spill",
        )

    def _delete_checked(self, path: Path, messages: list[Message]) -> None:
        """The worker (a thread): delete ``path``, checked again (the transcript and the
        sessions may have changed while the user was asked), then back to ``_deleted``."""
        store = self.host.store
        refused: SpillRefused | None = None
        try:
            delete_spill(store, path, messages, self._saved_sessions())
        except SpillRefused as exc:
            refused = exc
        except OSError as exc:
            shown = store.shown(path)
            refused = SpillRefused("missing", f"{shown} cannot be deleted: {exc}.", "")
        with contextlib.suppress(RuntimeError):  # the app is closing
            self.screen.app.call_from_thread(self._deleted, path, refused)

    def _deleted(self, path: Path, refused: SpillRefused | None) -> None:
        """``path`` was deleted (or ``refused``); the browser shows the list without it."""
        screen = self.screen
        if refused is not None:
            screen.notify(str(refused), title="Not deleted", severity="error", timeout=10)
            return
        screen.notify(f"Deleted {self.host.store.shown(path)}.", title="Spill deleted")
        if not screen.is_attached:
            return
        self.host.show_deleted(path)
