"""The spill browser's model without Textual: what each key does to the state and what the
status line says — paging, goto, end, window size, search steps, the listing, copy, delete."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent_tui.core.browse import SpillRefused, list_spills
from agent_tui.core.browse.search import Hit, search_spill
from agent_tui.core.budget.store import SpillRecord, SpillStore
from agent_tui.ui.spills.model import SpillView
from agent_tui.ui.spills.steps import Copied, Deletion, Listed, Question, Say, SearchJob, Step

WHEN = datetime(2026, 1, 5, 14, 22, 33, tzinfo=UTC)


def log_lines(count: int) -> str:
    return "".join(f"{n:6d} INFO step {n} done\n" for n in range(1, count + 1))


@pytest.fixture
def store(tmp_path: Path) -> SpillStore:
    return SpillStore(Path(".agent-spill"), tmp_path, durable=False)


def opened(store: SpillStore, text: str, **write: str) -> tuple[SpillView, SpillRecord]:
    record = store.write(text, write.get("tool", "run_shell"), write.get("call", "c"), WHEN)
    view = SpillView(store)
    view.listed(list_spills(store), auto_open=False)
    assert view.open(record.path) == Step(say=Say(""), redraw=True)
    return view, record


def span(view: SpillView) -> tuple[int, int]:
    assert view.window is not None
    return view.window.offset, view.window.last


def said(step: object) -> str:
    assert isinstance(step, Step)
    assert step.say is not None
    return step.say.text


def test_the_model_does_not_import_textual() -> None:
    code = "import sys, agent_tui.ui.spills.model; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_paging_goto_end_and_window_size(store: SpillStore) -> None:
    view, _ = opened(store, log_lines(5000))
    assert span(view) == (1, 2000)
    step = view.next_window()
    assert step == Step(say=Say("lines 2,001–4,000 of 5,000"), redraw=True)
    assert view.moves == 1
    view.next_window()
    assert span(view) == (4001, 5000)
    step = view.next_window()
    assert step == Step(say=Say("End of file: line 5,000 is the last.", "warning"))
    assert view.previous_window() == Step(
        say=Say("lines 2,001–4,000 of 5,000"), redraw=True, at="end"
    )
    step = view.go_to_line(3000)  # in the window: no new window, the line is brought forward
    assert step == Step(say=Say("Line 3,000 of 5,000."), line=3000)
    assert view.marked == 3000
    step = view.answer_line("99,999")
    assert step == Step(
        say=Say("Line 5,000 of 5,000 (line 99,999 is past the end).", "warning"),
        redraw=True,
        at=5000,
    )
    assert span(view) == (5000, 5000)
    assert said(view.answer_line("abc")) == "Not a line number (LINE or LINE:CHAR): abc"
    assert view.end() == Step(
        say=Say("End of file: lines 3,001–5,000 of 5,000."), redraw=True, at="end"
    )
    assert view.marked is None
    assert view.answer_size("100") == Step(say=Say("Window size: 100 lines."), redraw=True)
    assert span(view) == (3001, 3100)
    assert view.limit == 100
    assert "from 1 to 2,000" in said(view.answer_size("0"))
    assert view.path is not None
    view.open(view.path)
    assert said(view.previous_window()) == "Start of file: this window begins at line 1."


def test_questions_and_keys_without_a_window(store: SpillStore) -> None:
    view = SpillView(store)
    for step in (view.next_window(), view.end(), view.line_question(), view.copy()):
        assert step == Step(say=Say("No spill is open.", "warning"))
    assert view.deletion() == Step(say=Say("No spill is open.", "warning"))
    view, record = opened(store, "a\nb\n")
    assert view.line_question() == Question(
        "goto", "Go to line (1–2):", placeholder="number, $, or line:char"
    )
    assert view.size_question() == Question("size", "Window size in lines (1–2,000):", "2000")
    assert view.search_question(True) == Question(
        "search_back", "?", placeholder="text (smart case)"
    )
    assert view.deletion() == Deletion(record.path, record.shown, " (2 lines, 4 characters)")


def test_a_spill_that_cannot_be_read_is_an_error_with_a_notice(store: SpillStore) -> None:
    view, record = opened(store, log_lines(10))
    store.remove(record.path)
    assert view.end() == Step(say=Say(""), redraw=True)  # the notice says what happened
    assert view.window is None
    assert isinstance(view.error, SpillRefused)
    assert "was deleted" in view.error.what
    assert said(view.next_window()) == view.error.what


def run(job: SearchJob | Step) -> tuple[SearchJob, Hit | None]:
    """Run a search job as the worker thread does."""
    assert isinstance(job, SearchJob)
    return job, search_spill(job.path, job.query, job.start, backward=job.backward)


def test_search_then_next_and_previous_match_wrapping(store: SpillStore) -> None:
    text = log_lines(6000).replace("step 1500 done", "step 1500 Boom")
    text = text.replace("step 4500 done", "step 4500 Boom")
    view, _ = opened(store, text)
    assert view.next_match(False, None) == Step(
        say=Say("No search yet: / searches forward, ? backward.", "warning")
    )
    job, hit = run(view.search("boom", False, top_line=None))
    assert view.search_text == "boom"
    step = view.found(job, hit)
    assert step == Step(say=Say("Match at line 1,500, column 23.", "success"), line=1500)
    assert view.marked == 1500
    assert view.highlight().line == 1500
    job, hit = run(view.next_match(False, None))
    step = view.found(job, hit)
    assert (step.redraw, step.at) == (True, 4500)  # another window: read and drawn
    assert span(view)[0] == 4500
    job, hit = run(view.next_match(False, None))
    assert "search wrapped to the top" in said(view.found(job, hit))
    job, hit = run(view.next_match(True, None))
    assert "wrapped to the bottom" in said(view.found(job, hit))
    job, _ = run(view.search("Nowhere", False, None))
    assert view.found(job, None) == Step(say=Say("Not found: Nowhere", "error"))
    assert view.found(job, "cancelled") == Step(say=Say("Search cancelled.", "warning"))


def test_a_move_while_a_search_runs_wins_over_its_hit(store: SpillStore) -> None:
    view, _ = opened(store, log_lines(3000).replace("step 2500 done", "step 2500 odd"))
    job, hit = run(view.search("odd", False, None))
    view.go_to_line(12)  # typed after Enter, before the result came
    step = view.found(job, hit)
    assert "not shown: you moved meanwhile" in said(step)
    assert not step.redraw
    assert view.marked == 12
    assert view.hit == hit


def test_a_result_for_another_spill_changes_nothing(store: SpillStore) -> None:
    view, first = opened(store, "needle\n")
    job, hit = run(view.search("needle", False, None))
    second = store.write("other\n", "grep", "g", WHEN)
    view.open(second.path)
    assert view.found(job, hit) == Step()
    assert view.hit is None
    assert first.path != view.path


def test_the_listing_opens_the_newest_or_says_where_spills_go(store: SpillStore) -> None:
    view = SpillView(store)
    assert view.listed([]) == Listed(idle=True, say=Say("Watching .agent-spill/ for new spills."))
    old = store.write("old\n", "run_shell", "a", datetime(2026, 1, 4, tzinfo=UTC))
    new = store.write("new\n", "grep", "b", WHEN)
    assert view.listed(list_spills(store)) == Listed(open=new.path)
    assert view.listed(list_spills(store), auto_open=False) == Listed(idle=True, say=Say(""))
    view.filter = "run_shell"
    assert [e.path for e in view.visible()] == [old.path]
    assert view.listed(list_spills(store)) == Listed(open=old.path)
    view.open(old.path)
    store.remove(old.path)
    listed = view.listed(list_spills(store))
    assert listed == Listed(say=Say(f"{old.shown} was deleted from disk.", "warning"))
    assert view.gone
    assert view.window is not None  # its last window still shows


def test_after_a_deletion_the_spill_in_its_place_opens(store: SpillStore) -> None:
    paths = [
        store.write(f"{n}\n", "run_shell", f"c{n}", datetime(2026, 1, n, tzinfo=UTC)).path
        for n in (1, 2, 3)
    ]
    view = SpillView(store)
    view.listed(list_spills(store))
    view.open(paths[1])  # the middle one (the list is newest first)
    place = view.forget(paths[1])
    assert (place, view.path, view.window) == (1, None, None)
    store.remove(paths[1])
    view.listed(list_spills(store), auto_open=False)
    assert view.after(place) == paths[0]
    view.forget(paths[0])
    store.remove(paths[0])
    view.listed(list_spills(store), auto_open=False)
    assert view.after(place) == paths[2]  # the last one left


def test_y_copies_the_lines_as_the_file_has_them(store: SpillStore) -> None:
    view, _ = opened(store, "alpha\tone\r\nbeta\n" + "g" * 5000 + "\nlast")
    copied = view.copy()
    assert copied == Copied(
        "alpha\tone\r\nbeta\n" + "g" * 5000 + "\nlast",  # no numbers, no footer, line 3 whole
        "Copied lines 1–4 as the file has them (5,021 characters)",  # + how, when copied
    )
    view.answer_size("2")
    view.next_window()
    copied = view.copy()
    assert isinstance(copied, Copied)
    assert copied.text == "g" * 5000 + "\nlast"  # the last line has no newline: none added
    empty, _ = opened(store, "", call="e")
    assert said(empty.copy()) == "The file is empty: nothing to copy."


def test_the_filter_matches_what_the_call_was(store: SpillStore) -> None:
    make = store.write("x\n", "run_shell", "call_1", WHEN, summary="make -j8 test")
    store.write("y\n", "run_shell", "call_2", WHEN, summary="ls -la")
    view = SpillView(store)
    view.listed(list_spills(store), auto_open=False)
    view.filter = "shell MAKE"
    assert [e.path for e in view.visible()] == [make.path]
