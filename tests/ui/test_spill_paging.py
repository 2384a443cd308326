"""The spill browser agrees with read_file (issue 38, item 9): a line too long for a row is
paged to its end, a byte that is not UTF-8 shows as ``\\xNN`` and is counted, and the viewer
never shows — nor ``d`` deletes — a spill the list's filter hides."""

from __future__ import annotations

import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.browse import open_reader, window_text
from agent_tui.core.budget.store import SpillStore
from agent_tui.core.tools.base import ToolContext
from agent_tui.ui.spills.browser import ConfirmDelete, SpillBrowser
from agent_tui.ui.spills.model import SpillView
from agent_tui.ui.spills.steps import Deletion
from agent_tui.ui.spills.widgets import SpillList

from .helpers import SIZE, make_agent, make_app, open_browser, wait_for

WHEN = datetime(2026, 1, 5, 14, 22, 33, tzinfo=UTC)


def store_of(agent: Agent) -> SpillStore:
    return SpillStore(agent.spills.root, agent.cwd, durable=False)


def json_line(chars: int) -> str:
    """One line of JSON-like text, ``chars`` long, no newline."""
    item = '{"id": 12345, "name": "item", "tags": ["a", "b"]}, '
    body = (item * (chars // len(item) + 1))[: chars - 2]
    return "[" + body + "]"


async def read_on(cwd: Path, path: str, char_offset: int) -> str:
    from agent_tui.core.tools.builtin import read_file

    inp = read_file.ReadFileInput(path=path, offset=1, char_offset=char_offset)
    return (await read_file.TOOL.call(inp, ToolContext(cwd=cwd))).content


async def test_pgdn_reads_on_in_a_long_line_to_its_end(tmp_path: Path) -> None:
    """A 300,000-character line: the window shows its first 2,000 characters; PgDn reads on
    as read_file's footer says (20,000 characters a page: exactly what read_file returns), G
    goes to its last characters, PgUp comes back. It said "End of file" at the first PgDn."""
    agent = make_agent(tmp_path, [])
    text = json_line(300_000)
    record = store_of(agent).write(text, "run_shell", "c1", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        view = browser.view
        assert view.window is not None
        assert view.window.span == "lines 1–1 of 1"
        browser.viewer.focus()
        await pilot.press("pagedown")
        window = view.window
        assert window is not None
        assert window.segment
        assert window.span == "line 1, chars 2,000–22,000 of 300,000"
        assert window.call == f'read_file(path="{record.shown}", offset=1, char_offset=2000)'
        assert window.text() == await read_on(tmp_path, record.shown, 2000)
        assert window.segment_text == text[2000:22000]
        assert len(browser.viewer._wrapped) > 100  # wrapped to the viewer's width
        await pilot.press("pagedown")
        assert view.window is not None
        assert view.window.char_offset == 22_000
        await pilot.press("G")
        window = view.window
        assert window is not None
        assert window.span == "line 1, chars 280,000–300,000 of 300,000"
        assert window.segment_text == text[-20_000:]
        assert "End of file" in browser.status.text
        viewer = browser.viewer
        footer = [window.footer[a:b] for a, b in viewer._footer]
        assert len(footer) > 1  # wrapped as the text is: the body does not scroll sideways
        assert "".join(footer) == window.footer
        await pilot.press("pagedown")
        assert "End of file" in browser.status.text
        await pilot.press("pageup")
        assert view.window is not None
        assert view.window.char_offset == 260_000
        for _ in range(13):
            await pilot.press("pageup")
        assert view.window is not None
        assert view.window.char_offset == 2000
        await pilot.press("pageup")  # back to the window of lines that holds the line
        assert view.window is not None
        assert view.window.span == "lines 1–1 of 1"
        await pilot.press("g", *"1:150000", "enter")
        assert view.window is not None
        assert view.window.char_offset == 150_000
        assert view.window.segment_text == text[150_000:170_000]


async def test_pgdn_on_a_cut_last_line_reads_it_on_then_goes_to_the_next_line(
    tmp_path: Path,
) -> None:
    agent = make_agent(tmp_path, [])
    lines = ["short"] * 3 + ["y" * 2500] + ["after"]
    record = store_of(agent).write("\n".join(lines) + "\n", "run_shell", "c1", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        view = browser.view
        browser.viewer.focus()
        await pilot.press("w", "ctrl+u", "4", "enter")
        assert view.window is not None
        assert view.window.span == "lines 1–4 of 5"
        await pilot.press("pagedown")
        assert view.window is not None
        assert view.window.span == "line 4, chars 2,000–2,500 of 2,500"
        await pilot.press("pagedown")
        assert view.window is not None
        assert view.window.span == "lines 5–5 of 5"


def test_a_50_mb_single_line_is_browsed_to_its_end_in_bounded_memory(tmp_path: Path) -> None:
    """The last characters of a 50 MB one-line JSON spill, and the pages around them, read
    without ever holding more than a page or two: the peak of Python's allocations stays a
    few hundred KB."""
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    piece = json_line(1_000_000)
    with store.open_writer("run_shell", "c1", WHEN) as writer:
        for _ in range(50):
            writer.write(piece)
        record = writer.commit()
    assert record.lines == 1
    assert record.chars == 50_000_000
    view = SpillView(store)
    view.open(record.path)
    tracemalloc.start()
    try:
        view.end()
        window = view.window
        assert window is not None
        assert window.segment
        assert window.segment_end == window.line_chars == 50_000_000
        assert window.segment_text == piece[-20_000:]
        view.previous_window()
        assert view.window is not None
        assert view.window.char_offset == 49_960_000
        view.next_window()
        assert view.window is not None
        assert view.window.segment_end == 50_000_000
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000


async def test_undecodable_bytes_show_as_escapes_and_are_counted(tmp_path: Path) -> None:
    """A command's output with bytes that are not UTF-8: the viewer draws each as ``\\xNN``
    (as read_file shows them), the footer counts them, a search counts each as one column,
    and ``y`` copies them escaped. It drew U+FFFD and counted nothing."""
    agent = make_agent(tmp_path, [])
    data = b"caf\xe9 ok\n\xff\xfe here: NEEDLE\n"
    record = store_of(agent).write_bytes([data], "run_shell", "c1", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        viewer = browser.viewer
        assert [row.body.text for row in viewer.rows] == ["caf\\xe9 ok", "\\xff\\xfe here: NEEDLE"]
        window = browser.view.window
        assert window is not None
        assert "not valid UTF-8: 3 bytes shown as \\xNN" in window.footer
        assert "\ufffd" not in window.text()
        await pilot.press("slash", *"NEEDLE", "enter")
        await wait_for(pilot, lambda: not browser.searching, "the search")
        hit = browser.view.hit
        assert hit is not None
        assert (hit.line, hit.column) == (2, 9)
        highlight = browser.view.highlight()
        body = viewer.rows[1].body
        start = body.at(highlight.column)
        assert body.text[start : start + 6] == "NEEDLE"
        with open_reader(record.path, record.shown) as reader:
            assert window_text(reader, window).text == "caf\\xe9 ok\n\\xff\\xfe here: NEEDLE\n"


async def test_a_match_deep_in_a_long_line_opens_the_page_of_the_line_that_holds_it(
    tmp_path: Path,
) -> None:
    agent = make_agent(tmp_path, [])
    text = "a" * 150_000 + "NEEDLE" + "b" * 50_000
    record = store_of(agent).write(text, "run_shell", "c1", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        await pilot.press("slash", *"NEEDLE", "enter")
        await wait_for(pilot, lambda: not browser.searching, "the search")
        window = browser.view.window
        assert window is not None
        assert window.segment
        assert window.char_offset == 142_000  # the page PgDn reaches it on
        assert window.segment_text[8000:8006] == "NEEDLE"
        assert browser.view.highlight().column == 8000
        assert "char_offset=150000" in browser.status.text
        viewer = browser.viewer
        await wait_for(pilot, lambda: viewer.scroll_y > 0, "the match's row in view")


async def test_the_filter_hides_the_spill_in_view_and_d_never_deletes_it(tmp_path: Path) -> None:
    """The spill in view no longer matches the filter: the viewer says so instead of showing
    it, and ``d`` refuses (it asked to delete that unseen spill: data loss). Clearing the
    filter shows it again, where it was."""
    agent = make_agent(tmp_path, [])
    store = store_of(agent)
    store.write("found\n", "grep", "g1", datetime(2026, 1, 4, tzinfo=UTC))
    shown = store.write("".join(f"line {n}\n" for n in range(5000)), "run_shell", "s1", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot)
        assert browser.view.path == shown.path  # the newest
        browser.viewer.focus()
        await pilot.press("pagedown")
        await pilot.press("f", *"grep")
        await wait_for(pilot, lambda: browser.has_class("-hidden"), "the viewer hidden")
        assert [e.tool for e in browser.query_one(SpillList).entries] == ["grep"]
        await pilot.press("enter")  # to the list
        assert browser.check_action("delete", ()) is None  # the key is off
        await pilot.press("d")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmDelete)
        assert shown.path.exists()
        view = browser.view
        refused = view.deletion()  # and the model refuses, whatever asks it
        assert not isinstance(refused, Deletion)
        assert refused.say is not None
        assert refused.say.text.startswith("Not deleted. The filter hides")
        await pilot.press("f", "ctrl+u")
        await wait_for(pilot, lambda: not browser.has_class("-hidden"), "the viewer back")
        assert view.path == shown.path
        assert view.window is not None
        assert view.window.offset == 2001
        await pilot.press("enter", "down")  # the list: the grep spill, picked
        await wait_for(pilot, lambda: view.path != shown.path, "the other spill")
        assert isinstance(app.screen, SpillBrowser)


def test_a_character_past_a_lines_end_says_how_long_the_line_is(tmp_path: Path) -> None:
    """``g 2:5000`` on a line of 2,500 characters (cut in its row) or of 5: no such character;
    the window of lines from it shows instead, and the status says how long the line is."""
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    record = store.write("a\n" + "y" * 2500 + "\nshort\n", "run_shell", "c1", WHEN)
    view = SpillView(store)
    view.open(record.path)
    for line, chars in ((2, 2500), (3, 5)):
        step = view.answer_line(f"{line}:5000")
        assert step.say is not None
        assert step.say.text == f"Line {line} has no character 5,000 (it has {chars:,})."
        assert view.window is not None
        assert not view.window.segment
        assert view.window.offset == line
    step = view.answer_line("2:2400")
    assert view.window is not None
    assert view.window.span == "line 2, chars 2,400–2,500 of 2,500"
