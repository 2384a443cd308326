"""Moving through a spill in the spill browser: PgDn / PgUp the next / previous window (PgDn
continues where read_file's footer says), ``g`` a line, ``G`` the end, ``w`` the window size.
Each reads one window through the spill's line index (``SpillBrowser._load``) and counts as a
move (``SpillBrowser.moves``): a search that ends after the user moved does not jump away."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.budget.browse import SpillRefused, open_reader, window_ending_at
from agent_tui.core.tools.builtin import read_file

if TYPE_CHECKING:
    from agent_tui.ui.spills.browser import SpillBrowser


def next_window(browser: SpillBrowser) -> None:
    window = browser._ready()
    if window is None:
        return
    if window.at_end:
        browser._say(f"End of file: line {window.total:,} is the last.", "warning")
        return
    browser.marked = None
    browser.moves += 1
    if browser._load(window.last + 1):
        browser._say(f"{browser.window.span if browser.window else ''}")


def previous_window(browser: SpillBrowser) -> None:
    window = browser._ready()
    if window is None or browser.path is None:
        return
    if window.offset <= 1:
        browser._say("Start of file: this window begins at line 1.", "warning")
        return
    try:
        with open_reader(browser.path, browser._shown()) as reader:
            offset = window_ending_at(reader, window.offset - 1, browser.limit)
    except SpillRefused as refused:
        browser._fail(refused)
        return
    browser.marked = None
    browser.moves += 1
    if browser._load(offset, at="end"):
        browser._say(f"{browser.window.span if browser.window else ''}")


def end(browser: SpillBrowser) -> None:
    if browser._ready() is None:
        return
    browser.marked = None
    browser.moves += 1
    if browser._load(1, at="end", end=True) and browser.window is not None:
        browser._say(f"End of file: {browser.window.span}.")


def go_to_line(browser: SpillBrowser, line: int) -> None:
    window = browser._ready()
    if window is None:
        return
    total = window.total
    if total == 0:
        browser._say("The file is empty.", "warning")
        return
    note = ""
    if line > total:
        note, line = f" (line {line:,} is past the end)", total
    line = max(line, 1)
    browser.marked = line
    browser.moves += 1
    if window.contains(line):
        browser.viewer.set_highlight(browser._highlight(), line)
        browser.viewer.bring_line(line - window.offset)
    elif not browser._load(line, at=line):
        return
    browser._say(f"Line {line:,} of {total:,}{note}.", "warning" if note else "info")


def ask_line(browser: SpillBrowser) -> None:
    """Open the prompt for a line to go to (answered by ``answer_line``)."""
    window = browser._ready()
    if window is None:
        return
    browser.prompt.ask(
        "goto",
        f"Go to line (1–{window.total:,}):",
        placeholder="number or $",
        back_to=browser.viewer,
    )


def ask_size(browser: SpillBrowser) -> None:
    """Open the prompt for the window size (answered by ``answer_size``)."""
    if browser._ready() is None:
        return
    browser.prompt.ask(
        "size",
        f"Window size in lines (1–{read_file.MAX_LINES:,}):",
        str(browser.limit),
        back_to=browser.viewer,
    )


def answer_line(browser: SpillBrowser, value: str) -> None:
    """Go to the line typed (``$``: the last one)."""
    if value == "$" and browser.window is not None:
        go_to_line(browser, browser.window.total)
        return
    number = _number(value)
    if number is None:
        browser._say(f"Not a line number: {value}", "error")
    else:
        go_to_line(browser, number)


def answer_size(browser: SpillBrowser, value: str) -> None:
    """Use the window size typed, and read the window in view again with it."""
    number = _number(value)
    if number is None or not 1 <= number <= read_file.MAX_LINES:
        browser._say(
            f"The window size is a number of lines from 1 to {read_file.MAX_LINES:,}.",
            "error",
        )
        return
    browser.limit = number
    if browser.window is not None and browser._load(browser.window.offset):
        browser._say(f"Window size: {number:,} lines.")


def _number(text: str) -> int | None:
    cleaned = text.replace(",", "").replace("_", "").strip()
    return int(cleaned) if cleaned.isdigit() else None
