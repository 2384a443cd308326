"""The spill browser as a user drives it: opened from a card, the palette key or a path;
refused paths; paging, goto, end, search, copy and window size; live updates; deleting."""

from __future__ import annotations

import asyncio
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.browse import open_reader, window_text
from agent_tui.core.browse import search as search_module
from agent_tui.core.budget.index import index_path
from agent_tui.core.budget.store import SpillRecord, SpillStore
from agent_tui.core.events import SpillPointer, ToolResult, UserMessage
from agent_tui.core.transcript import Message, ToolCall
from agent_tui.ui.shell.events_bridge import AgentEvent
from agent_tui.ui.spills.browser import ConfirmDelete, SpillBrowser
from agent_tui.ui.spills.spill_viewer import prepare, split_row
from agent_tui.ui.spills.widgets import SpillList, SpillViewer

from .helpers import SIZE, QuietApp, burst, feed, make_agent, make_app, open_browser, use, wait_for

WHEN = datetime(2026, 1, 5, 14, 22, 33, tzinfo=UTC)


def store_of(agent: Agent) -> SpillStore:
    """The agent's spill directory, written without fsync (tests)."""
    return SpillStore(agent.spills.root, agent.cwd, durable=False)


def log_lines(count: int, start: int = 1) -> str:
    return "".join(f"{n:6d} INFO step {n} done in {n % 97} ms\n" for n in range(start, count + 1))


def errors(app: QuietApp) -> list[str]:
    return [n.message for n in app._notifications if n.severity == "error"]


async def test_o_on_a_card_lands_on_that_calls_spill_at_line_1(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    store = store_of(agent)
    mine = store.write(log_lines(5000), "run_shell", "s", WHEN)
    store.write("newer\n", "grep", "g", datetime(2026, 1, 6, tzinfo=UTC))
    pointer = SpillPointer(path=mine.shown, chars=mine.chars, lines=mine.lines)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await feed(
            app,
            [
                UserMessage(text="go"),
                use("s", "run_shell", command="make"),
                ToolResult(id="s", name="run_shell", content="…", data={}, spill=pointer),
            ],
        )
        assert app.main.lane.focus_lane()
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, SpillBrowser), "the browser")
        browser = app.screen
        assert isinstance(browser, SpillBrowser)
        await pilot.pause()
        assert browser.view.path == mine.path
        window = browser.view.window
        assert window is not None
        assert (window.offset, window.last, window.total) == (1, 2000, 5000)
        assert window.span == "lines 1–2,000 of 5,000"
        assert window.call == f'read_file(path="{mine.shown}", offset=1)'
        assert isinstance(app.focused, SpillViewer)
        listed = browser.query_one(SpillList)
        assert [e.tool for e in listed.entries] == ["grep", "run_shell"]  # newest first
        assert listed.highlighted == 1  # … and the card's spill is the one highlighted
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, "the main screen again")


async def test_ctrl_o_opens_the_newest_spill_or_says_there_are_none(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, SpillBrowser), "the browser")
        browser = app.screen
        assert isinstance(browser, SpillBrowser)
        await pilot.pause()
        assert browser.has_class("-empty")
        assert browser.view.path is None
        assert "Watching .agent-spill/" in browser.status.text
        assert browser.viewer.check_action("page", (True,)) is None  # paging keys are disabled
        await pilot.press("q")
        await wait_for(pilot, lambda: app.screen is app.main, "the main screen again")
        store = store_of(agent)
        store.write("old\n", "run_shell", "a", datetime(2026, 1, 4, tzinfo=UTC))
        newest = store.write("new\n", "grep", "b", WHEN)
        browser = await open_browser(pilot)
        assert browser.view.path == newest.path
        assert not browser.has_class("-empty")
        assert isinstance(app.focused, SpillList)


REFUSED = [
    ("../outside/20260105T142233Z-run_shell-c-abcd.txt", "outside the spill directory"),
    ("/etc/hostname", "outside the spill directory"),
    (".agent-spill/notes.txt", "is not a spill file"),
    (".agent-spill/20260101T000000Z-run_shell-x-0000.txt", "does not exist"),
    ("LINK", "through a symlink"),
    ("NOINDEX", "no valid line index"),
]


async def test_a_pointer_that_is_not_an_openable_spill_is_refused(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    store = store_of(agent)
    unindexed = store.write("x\n", "run_shell", "n", WHEN)
    index_path(unindexed.path).unlink()
    (store.root / "notes.txt").write_text("hello")
    secret = tmp_path / "secret.txt"
    secret.write_text("do not show")
    link = store.root / "20260105T142233Z-run_shell-l-beef.txt"
    link.symlink_to(secret)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        for path, says in REFUSED:
            path = {"LINK": store.shown(link), "NOINDEX": unindexed.shown}.get(path, path)
            app.clear_notifications()
            app.action_open_spill(path)
            await pilot.pause()
            assert app.screen is app.main, path  # refused: nothing opens
            (message,) = errors(app)
            assert says in message
            assert path in message


async def test_paging_goto_end_and_window_size(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    record = store_of(agent).write(log_lines(5000), "run_shell", "p", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)

        def span() -> tuple[int, int]:
            assert browser.view.window is not None
            return browser.view.window.offset, browser.view.window.last

        await pilot.press("pagedown")
        assert span() == (2001, 4000)
        await pilot.press("pagedown")
        assert span() == (4001, 5000)
        await pilot.press("pagedown")  # at the end: stays, says so
        assert span() == (4001, 5000)
        assert "End of file" in browser.status.text
        await pilot.press("pageup")
        assert span() == (2001, 4000)
        await pilot.press("g", *"1,234", "enter")
        assert span() == (1, 2000) or span()[0] <= 1234 <= span()[1]
        assert browser.view.marked == 1234
        await pilot.press("g", *"4500", "enter")
        assert span() == (4500, 5000)
        assert browser.viewer.rows[0].text.strip().startswith("4500 INFO")
        await pilot.press("g", *"99999", "enter")  # past the end: the last line
        assert browser.view.marked == 5000
        assert "past the end" in browser.status.text
        await pilot.press("g", *"abc", "enter")
        assert "Not a line number" in browser.status.text
        await pilot.press("home")
        await pilot.press("G")
        assert span() == (3001, 5000)
        await pilot.press("w", "ctrl+u", *"100", "enter")
        assert span() == (3001, 3100)
        window = browser.view.window
        assert window is not None
        assert window.call == f'read_file(path="{record.shown}", offset=3001, limit=100)'
        await pilot.press("G")
        assert span() == (4901, 5000)
        await pilot.press("pageup", "pageup")
        assert span() == (4701, 4800)


async def test_y_copies_the_files_lines_without_line_numbers(tmp_path: Path) -> None:
    """The clipboard gets the lines of the window as the file has them: no ``   12│`` gutter,
    no read_file numbers or footer, cut lines whole, tabs and CRLF kept."""
    agent = make_agent(tmp_path, [])
    lines = [
        f"{n}\t" + "é" * (n % 7) + "x" * (3000 if n % 500 == 0 else 1) + ("\r\n" if n % 9 else "\n")
        for n in range(1, 3001)
    ]
    record = store_of(agent).write("".join(lines), "run_shell", "y", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        await pilot.press("pagedown")  # line 2,000 is cut: PgDn reads on in it first
        assert browser.view.window is not None
        assert browser.view.window.span == "line 2,000, chars 2,000–3,011 of 3,011"
        await pilot.press("pagedown")
        window = browser.view.window
        assert window is not None
        assert window.cut  # line 2500 is cut in the view …
        await pilot.press("y")
        expected = "".join(lines[window.offset - 1 : window.last])
        assert app.clipboard == expected  # … and copied whole
        assert "│" not in app.clipboard
        assert not app.clipboard.startswith(f"{window.offset:>6}")


async def test_search_forward_backward_next_previous_and_wrap(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    text = (
        log_lines(6000)
        .replace("step 1500 done", "step 1500 Boom")
        .replace("step 4500 done", "step 4500 Boom")
    )
    record = store_of(agent).write(text, "run_shell", "f", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)

        async def searched() -> None:
            await wait_for(pilot, lambda: not browser.searching, "the search")
            await pilot.pause()

        await pilot.press("slash", *"boom", "enter")  # smart case: finds "Boom"
        await searched()
        assert browser.view.hit is not None
        assert browser.view.hit.line == 1500
        assert browser.view.window is not None
        assert browser.view.window.contains(1500)
        assert browser.view.window.offset == 1  # already in the window: no jump
        assert "Match at line 1,500, column 23" in browser.status.text
        await pilot.press("n")
        await searched()
        assert browser.view.hit.line == 4500
        assert browser.view.window.offset == 4500  # jumped to the window holding it
        await pilot.press("n")
        await searched()
        assert browser.view.hit.line == 1500
        assert browser.view.hit.wrapped
        assert "wrapped to the top" in browser.status.text
        await pilot.press("N")
        await searched()
        assert browser.view.hit.line == 4500
        assert "wrapped to the bottom" in browser.status.text
        await pilot.press("N")
        await searched()
        assert browser.view.hit.line == 1500
        assert not browser.view.hit.wrapped
        await pilot.press("question_mark", *"step 5999 ", "enter")  # backward from the view
        await searched()
        assert browser.view.hit.line == 5999
        assert browser.view.hit.wrapped
        await pilot.press("slash", *"Nowhere", "enter")
        await searched()
        assert "Not found: Nowhere" in browser.status.text


async def test_keys_typed_right_after_a_prompt_opens_go_into_it(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    text = log_lines(3000).replace("step 2500 done", "step 2500 odd")
    record = store_of(agent).write(text, "run_shell", "t", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        await burst(pilot, "slash", *"odd", "enter")  # "d" must not reach the delete key
        # The second burst waits for the search, so its hit is shown before the goto (one
        # burst of both is the pasted-keys test below: the goto then wins over the hit).
        await wait_for(
            pilot,
            lambda: not browser.prompt.is_open and not browser.searching and browser.view.hit,
            "the search",
        )
        await burst(pilot, "g", *"12", "enter")
        await wait_for(pilot, lambda: browser.view.marked == 12, "the goto to line 12")
        assert browser.view.search_text == "odd"
        assert browser.view.hit is not None
        assert browser.view.hit.line == 2500
        assert not isinstance(app.screen, ConfirmDelete)
        assert errors(app) == []
        assert isinstance(app.focused, SpillViewer)


async def test_escape_cancels_a_running_search_and_progress_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = make_agent(tmp_path, [])
    record = store_of(agent).write(log_lines(20_000), "run_shell", "c", WHEN)
    real_step = search_module._Scan._step

    def slow_step(self: Any, size: int) -> None:
        time.sleep(0.02)
        real_step(self, size)

    monkeypatch.setattr(search_module, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(search_module._Scan, "_step", slow_step)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        await pilot.press("slash", *"absent", "enter")
        bar = browser.query_one("#status-progress")
        await wait_for(pilot, lambda: (bar.progress or 0) > 0, "some progress")  # type: ignore[attr-defined]
        assert browser.searching
        assert browser.status.has_class("-searching")
        await pilot.press("escape")
        assert not browser.searching
        assert browser.status.text == "Search cancelled."
        assert isinstance(app.screen, SpillBrowser)  # Esc cancelled, it did not close
        await pilot.pause(0.1)
        assert browser.status.text == "Search cancelled."  # the late result is ignored


async def test_new_spills_appear_live_and_removed_ones_go(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot)
        assert browser.has_class("-empty")  # no .agent-spill directory yet
        await asyncio.sleep(0.3)  # the watcher is on the cwd, waiting for the directory
        store = store_of(agent)
        first = await asyncio.to_thread(store.write, log_lines(10), "run_shell", "a", WHEN)
        await wait_for(pilot, lambda: browser.view.path == first.path, "the first spill to show")
        assert not browser.has_class("-empty")
        second = await asyncio.to_thread(
            store.write, "x\n", "grep", "b", datetime(2026, 1, 6, tzinfo=UTC)
        )
        await wait_for(
            pilot, lambda: len(browser.query_one(SpillList).entries) == 2, "the second spill"
        )
        assert browser.view.path == first.path  # a new spill does not take the view away
        assert browser.query_one(SpillList).entries[0].path == second.path
        await asyncio.to_thread(store.remove, first.path)
        await wait_for(pilot, lambda: browser.view.gone, "the deletion to be noticed")
        assert [e.path for e in browser.query_one(SpillList).entries] == [second.path]
        assert "deleted from disk" in browser.status.text
        await pilot.press("G")  # reading a deleted spill: the error state says why
        assert browser.has_class("-error")
        assert browser.view.error is not None
        assert "was deleted" in browser.view.error.what


async def test_live_marks_follow_the_transcript(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    record = store_of(agent).write("x\n", "run_shell", "call_9", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        assert not browser.query_one(SpillList).entries[0].referenced
        call = ToolCall(id="call_9", name="run_shell", arguments="{}")
        text = f"excerpt … saved in {record.shown}."
        # what the agent worker does: append the result, then emit its event; the app tells
        # the browser on top that the transcript changed (no polling)
        agent.messages.append(Message.tool(call, text))
        await app.on_agent_event(
            AgentEvent(ToolResult(id="call_9", name="run_shell", content=text))
        )
        await wait_for(
            pilot, lambda: browser.query_one(SpillList).entries[0].referenced, "the live mark"
        )
        await app.new_session()  # a new conversation: no live message points to it any more
        await wait_for(
            pilot, lambda: not browser.query_one(SpillList).entries[0].referenced, "no mark"
        )


async def test_delete_asks_and_is_refused_while_a_live_message_points_to_it(
    tmp_path: Path,
) -> None:
    agent = make_agent(tmp_path, [])
    store = store_of(agent)
    kept = store.write("kept\n", "run_shell", "call_1", WHEN)
    victim = store.write("bye\n", "grep", "call_2", datetime(2026, 1, 6, tzinfo=UTC))
    call = ToolCall(id="call_1", name="run_shell", arguments="{}")
    agent.messages.append(Message.tool(call, f"… saved in {kept.shown}."))
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, kept.shown)
        await pilot.press("d")
        await wait_for(
            pilot, lambda: errors(app) or isinstance(app.screen, ConfirmDelete), "an answer"
        )
        assert app.screen is browser  # refused without asking
        (message,) = errors(app)
        assert "the result of run_shell call_1" in message
        assert kept.path.exists()
        browser.open_spill(victim.path)
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDelete), "the question")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is browser, "the browser again")
        assert victim.path.exists()
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDelete), "the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: not victim.path.exists(), "the deletion")
        assert not index_path(victim.path).exists()
        await wait_for(  # the list and the viewer follow the deletion (a loaded machine: later)
            pilot,
            lambda: (
                [e.path for e in browser.query_one(SpillList).entries] == [kept.path]
                and browser.view.path == kept.path
            ),  # the next spill in the list is shown
            "the list without the deleted spill, showing the next one",
        )


async def test_delete_is_refused_while_a_saved_session_points_to_it(tmp_path: Path) -> None:
    """A spill no live message points to, but a saved session does: resuming that session
    would read it, so ``d`` refuses (naming the session) and the file stays."""
    agent = make_agent(tmp_path, [])
    spill = store_of(agent).write("kept\n", "run_shell", "call_1", WHEN)
    saved = agent.sessions.new(tmp_path, "demo")
    call = ToolCall(id="call_1", name="run_shell", arguments='{"command": "make"}')
    saved.append(Message.assistant("", [call]))
    saved.append(Message.tool(call, f"… saved in {spill.shown}."))
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, spill.shown)
        assert not browser.query_one(SpillList).entries[0].referenced  # no live message
        await pilot.press("d")
        await wait_for(
            pilot, lambda: errors(app) or isinstance(app.screen, ConfirmDelete), "an answer"
        )
        assert app.screen is browser  # refused without asking
        (message,) = errors(app)
        assert f"the saved session {saved.id}" in message
        assert f"--resume {saved.id}" in message
        assert "Delete that session file first" in message
        assert spill.path.exists()


async def test_the_list_says_what_each_call_was(tmp_path: Path) -> None:
    """A spill of an earlier session lists the command that made it, not only its call id."""
    command = "seq 1 30000"
    shell = {"id": "call_92162_0", "name": "run_shell", "arguments": {"command": command}}
    earlier = make_agent(
        tmp_path, [{"tool_calls": [shell]}, {"text": "done"}], allow=("run_shell",)
    )
    events = [event async for event in earlier.run("count")]
    assert [e.type for e in events if e.type == "spill"] == ["spill"]
    app = make_app(make_agent(tmp_path, []))  # a later session: its transcript is empty
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot)
        listed = browser.query_one(SpillList)
        await pilot.pause()
        row = str(listed.get_option_at_index(0).prompt)
        assert "run_shell" in row
        assert "call_92162_0" in row
        assert command in row
        shown = "\n".join(listed.render_line(y).text for y in range(4))
        assert command in shown  # drawn, not cut away


async def test_a_spill_without_index_in_the_list_shows_the_error_state(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    store = store_of(agent)
    broken: SpillRecord = store.write("x\n", "run_shell", "b", WHEN)
    index_path(broken.path).unlink()
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot)
        assert browser.view.path == broken.path
        assert browser.has_class("-error")
        assert browser.view.error is not None
        assert browser.view.error.kind == "not_indexed"
        await pilot.press("G")  # nothing to page: the keys are disabled, nothing breaks
        assert browser.has_class("-error")


async def test_a_spill_of_bytes_that_are_not_utf8_pages_to_its_end(tmp_path: Path) -> None:
    """A command's exact bytes (random ones here: NULs, escapes, invalid UTF-8, CRs) open,
    page and jump to the end; a byte that is not UTF-8 is drawn as ``\\xNN``, as read_file
    shows it."""
    agent = make_agent(tmp_path, [])
    data = random.Random(7).randbytes(300_000)
    record = store_of(agent).write_bytes([data], "run_shell", "r", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        await pilot.press("pagedown", "G")
        window = browser.view.window
        assert window is not None
        assert window.at_end
        assert window.total == record.lines
        last = data.rsplit(b"\n", 1)[1].decode("utf-8", "surrogateescape")
        assert last
        assert browser.viewer.rows[-1].text == last[: len(browser.viewer.rows[-1].text)]
        drawn = "".join(row.body.text for row in browser.viewer.rows)
        assert "\\x" in drawn  # (a C1 control character is still drawn as U+FFFD)
        assert not any("\udc80" <= char <= "\udcff" for char in drawn)
        await pilot.press("y")
        assert app.clipboard == window_text_of(record, window)
        assert not errors(app)


def window_text_of(record: SpillRecord, window: Any) -> str:
    with open_reader(record.path, record.shown) as reader:
        return window_text(reader, window).text


def test_rows_are_drawn_safely_and_matches_map_onto_them() -> None:
    shown = prepare("a\tb\x1b[31mred\x07")
    assert shown.text == "a       b␛[31mred␇"  # a tab to the next stop, escapes as symbols
    assert shown.controls == ((9, 1), (17, 1))
    assert shown.at(2) == 8  # "b" is drawn after the tab's spaces
    assert shown.at(len("a\tb\x1b[31mred\x07")) == len(shown.text)
    wide = prepare("日本\tx")
    assert wide.text == "日本    x"  # the tab counts cells, not characters
    assert prepare("plain").starts is None
    row = "  1234\tabc [… line cut: 1,998 more chars]"
    assert split_row(row) == (1234, "abc", " [… line cut: 1,998 more chars]")
    assert split_row("     7\tno cut") == (7, "no cut", "")


async def test_keys_pasted_after_enter_act_on_the_browser_not_the_answer(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    text = log_lines(3000).replace("step 2500 done", "step 2500 odd")
    record = store_of(agent).write(text, "run_shell", "t", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        await burst(pilot, "slash", *"odd", "enter", "g", *"12", "enter")
        await wait_for(
            pilot,
            lambda: not browser.prompt.is_open and not browser.searching and browser.view.hit,
            "the search and the goto",
        )
        assert browser.view.search_text == "odd"  # "g12" did not join the query
        assert browser.view.hit is not None
        assert browser.view.hit.line == 2500
        await wait_for(pilot, lambda: browser.view.marked == 12, "the goto typed after Enter")
        assert errors(app) == []


async def test_keys_pasted_after_esc_act_on_the_browser(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    record = store_of(agent).write(log_lines(3000), "run_shell", "t", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        await burst(pilot, "slash", *"step", "escape", "G")
        view = browser.view
        await wait_for(pilot, lambda: view.window is not None and view.window.at_end, "G")
        assert not browser.prompt.is_open
        assert browser.view.search_text is None  # dismissed: nothing searched
        assert errors(app) == []


async def test_a_question_in_words_stands_apart_from_its_answer(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    record = store_of(agent).write(log_lines(4000), "run_shell", "p", WHEN)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, record.shown)
        label = browser.query_one("#prompt-label")
        field = browser.query_one("#prompt-input")
        await pilot.press("g")
        await wait_for(pilot, lambda: field.region.width > 0, "the goto prompt")
        assert str(label.render()) == "Go to line (1–4,000):"
        assert field.region.x == label.content_region.right + 1  # one blank column between
        await pilot.press("escape", "/")
        await wait_for(pilot, lambda: str(label.render()) == "/", "the search prompt")
        await pilot.pause()
        assert field.region.x == label.content_region.right  # "/" runs into the text
    await agent.close()
