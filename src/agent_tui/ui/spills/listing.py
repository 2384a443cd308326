"""The spill browser's listing: the spills of the directory on the left (newest first, narrowed
by the filter) with a summary line; a fresh listing opens the newest spill when none is open,
and notices when the one in view was deleted from disk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from agent_tui.core.budget.browse import SpillEntry
from agent_tui.ui.spills.spill_list import size_text
from agent_tui.ui.spills.widgets import SpillNotice

if TYPE_CHECKING:
    from agent_tui.ui.spills.browser import SpillBrowser


def apply_entries(browser: SpillBrowser, entries: list[SpillEntry], auto_open: bool = True) -> None:
    """Show a fresh listing; open the newest spill when none is open (``auto_open``)."""
    browser.entries = entries
    show_list(browser)
    if browser.path is None:
        visible = browser.spill_list.entries
        if auto_open and visible:
            browser.open_spill(visible[0].path)
        else:
            _show_nothing(browser)
        return
    listed = any(e.path == browser.path for e in entries)
    if not listed and browser.window is not None and not browser.gone and not browser.path.exists():
        browser.gone = True
        browser._say(f"{browser._shown()} was deleted from disk.", "warning")
    browser._show_header()


def _show_nothing(browser: SpillBrowser) -> None:
    """No spill open: say there are none yet (and where they go), or to pick one."""
    browser.add_class("-empty")
    browser.remove_class("-error")
    notice = browser.query_one(SpillNotice)
    if browser.entries:
        notice.show_idle(len(browser.entries))
        browser._say("")
    else:
        notice.show_empty(browser.where)
        browser._say(f"Watching {browser.where}/ for new spills.")
    browser._sync_bindings()


def _filtered(browser: SpillBrowser) -> list[SpillEntry]:
    words = browser.filter_box.value.lower().split()
    if not words:
        return browser.entries
    return [
        e
        for e in browser.entries
        if all(w in f"{e.tool} {e.call_id} {e.name}".lower() for w in words)
    ]


def show_list(browser: SpillBrowser) -> None:
    """Show the entries the filter lets through, the summary line and the subtitle."""
    shown = _filtered(browser)
    keep = browser.path.name if browser.path is not None else None
    browser.spill_list.set_entries(shown, keep)
    total = sum(e.bytes for e in browser.entries)
    count = len(browser.entries)
    noun = "spill" if count == 1 else "spills"
    if len(shown) != count:
        text = f"{len(shown)} of {count} {noun} shown"
    else:
        text = f"{count} {noun} · {size_text(total)}"
    browser.query_one("#spill-summary", Static).update(
        Content.assemble(
            f"{text} in {browser.where}/\n",
            ("●", "$text-success"),
            " a live message points to it  ○ none",
        )
    )
    browser.sub_title = f"{browser.where}/ · {count} {noun}"
