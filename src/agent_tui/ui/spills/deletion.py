"""Deleting a spill from the spill browser (``d``): refused while a live message points to it
(the model may still read it), else asked (``ConfirmDelete``) and done; the next spill of the
list opens in its place."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.budget.browse import SpillRefused, delete_spill, list_spills, live_references
from agent_tui.ui.spills import listing as spill_listing
from agent_tui.ui.spills.confirm_delete import ConfirmDelete

if TYPE_CHECKING:
    from agent_tui.ui.spills.browser import SpillBrowser


def ask_to_delete(browser: SpillBrowser) -> None:
    """Delete the spill in view, once the user says yes."""
    path = browser.path
    if path is None:
        browser._say("No spill is open.", "warning")
        return
    entry = browser._entry(path)
    shown = browser._shown()
    who = live_references(browser._transcript()).get(path.name)  # now, not at the last listing
    if who is not None:
        _refuse(browser, shown, who)
        return
    size = ""
    if entry is not None and entry.lines is not None and entry.chars is not None:
        lines = "line" if entry.lines == 1 else "lines"
        size = f" ({entry.lines:,} {lines}, {entry.chars:,} characters)"

    def answered(yes: bool | None) -> None:
        if yes:
            _delete(browser, path)

    browser.app.push_screen(ConfirmDelete(shown, size), answered)


def _refuse(browser: SpillBrowser, shown: str, who: str) -> None:
    browser.notify(
        f"{shown} is still pointed to by a live message ({who}): the model may read it. "
        "It is deleted by itself once no message of the session refers to it.",
        title="Not deleted",
        severity="error",
    )


def _delete(browser: SpillBrowser, path: Path) -> None:
    visible = [e.name for e in browser.spill_list.entries]
    at = visible.index(path.name) if path.name in visible else 0
    try:
        delete_spill(browser.store, path, browser._transcript())
    except SpillRefused as refused:
        browser.notify(str(refused), title="Not deleted", severity="error")
        return
    browser.notify(f"Deleted {browser.store.shown(path)}.", title="Spill deleted")
    browser.searcher.cancel()
    browser.path, browser.window, browser.hit = None, None, None
    browser.viewer.show(None)
    entries = list_spills(browser.store, browser._transcript())
    spill_listing.apply_entries(browser, entries, auto_open=False)
    rest = browser.spill_list.entries
    if rest:
        browser.open_spill(rest[min(at, len(rest) - 1)].path)
