"""A long resumed session: the last turns are rendered at once, the earlier ones are in the
call model (every call, its final state) and reachable — the chat renders them a page at a
time when scrolled to the top, the lane lists them a line each (Home goes to the first turn,
Enter opens it as a block, a call of it can be revealed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import CompactionSettings, ModelSettings, Settings
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.app import AgentApp
from agent_tui.ui.calls.state import CallStatus
from agent_tui.ui.chat import ToolLine, UserPrompt
from agent_tui.ui.lane import ToolCard, TurnBlock
from agent_tui.ui.lane.folded_turns import FoldedTurns
from agent_tui.ui.shell.backlog import PAGE_TURNS, RESUME_TURNS

from .helpers import make_app, wait_for

TURNS = 60
CALLS = 3 * TURNS
NO_COMPACTION = Settings(
    compaction=CompactionSettings(threshold="off"),
    model=ModelSettings(context_window=100_000_000),
)


def _agent(cwd: Path, session: SessionLog, turns: list[dict[str, Any]]) -> Agent:
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return Agent(
        ScriptProvider(script),
        default_registry(),
        cwd,
        policy=SimplePolicy(["*"]),
        session=session,
        system="test",
        settings=NO_COMPACTION,
    )


@pytest.fixture(scope="module")
def long_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session file of 60 real turns: two parallel reads (one fails) and a write each."""
    import asyncio

    work = tmp_path_factory.mktemp("long")
    (work / "a.txt").write_text("alpha\n", encoding="utf-8")
    script: list[dict[str, Any]] = []
    for t in range(TURNS):
        reads = [
            {"id": f"r{t}", "name": "read_file", "arguments": {"path": "a.txt"}},
            {"id": f"m{t}", "name": "read_file", "arguments": {"path": f"missing{t}.txt"}},
        ]
        write = {"id": f"w{t}", "name": "write_file", "arguments": {"path": f"o{t}.txt"}}
        write["arguments"]["content"] = f"turn {t}\n"  # type: ignore[index]
        script.append({"text": f"Reading for turn {t}.", "tool_calls": reads})
        script.append({"text": "Writing.", "tool_calls": [write]})
        script.append({"text": f"Done with turn {t}."})
    session = SessionStore(work / "sessions").new(work, "script")
    agent = _agent(work, session, script)

    async def run() -> None:
        for t in range(TURNS):
            async for _ in agent.run(f"prompt {t}"):
                pass

    asyncio.run(run())
    return session.path


def _resumed(path: Path, tmp_path: Path) -> AgentApp:
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    return make_app(_agent(tmp_path, SessionLog.load(copy), []))


def _prompts(app: AgentApp) -> list[str]:
    return [w.text for w in app.main.chat.children if isinstance(w, UserPrompt)]


def _ready(app: AgentApp) -> bool:
    return len(app.calls.calls) == CALLS and bool(app.main.lane.query(FoldedTurns))


async def test_resume_shows_the_last_turns_and_knows_every_call(
    long_session: Path, tmp_path: Path
) -> None:
    app = _resumed(long_session, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: _ready(app), "the earlier turns read")
        lane = app.main.lane  # its count is said once the earlier turns are in (a refresh later)
        await wait_for(pilot, lambda: lane.border_subtitle == f"{CALLS} calls", "the count")
        last = [f"prompt {t}" for t in range(TURNS - RESUME_TURNS, TURNS)]
        assert _prompts(app) == last
        earlier = app.main.chat.earlier
        assert earlier is not None
        assert earlier.count == TURNS - RESUME_TURNS
        # the call model has all of them, in their final states
        assert app.calls.get("r0") is not None
        assert app.calls.get("r0").status is CallStatus.OK
        assert app.calls.get("m0").status is CallStatus.ERROR  # type: ignore[union-attr]
        assert app.calls.get("w0").outcome == "+1 · new file"  # type: ignore[union-attr]
        assert app.calls.get("r0").group == "r0"  # type: ignore[union-attr]
        # the lane: one widget lists the earlier turns, blocks for the shown ones only
        (folded,) = lane.query(FoldedTurns)
        assert [t.prompt for t in folded.turns] == [f"prompt {t}" for t in range(57)]
        assert [[c.id for c in t.calls] for t in folded.turns[:1]] == [["r0", "m0", "w0"]]
        assert folded.turns[0].entries == [["r0", "m0"], ["w0"]]
        assert len(lane.query(TurnBlock)) == RESUME_TURNS
        assert lane.border_subtitle == f"{CALLS} calls"


async def test_scrolling_the_chat_to_the_top_renders_earlier_turns(
    long_session: Path, tmp_path: Path
) -> None:
    app = _resumed(long_session, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: _ready(app), "the earlier turns read")
        chat = app.main.chat
        await wait_for(pilot, lambda: chat.max_scroll_y > 0, "the chat to overflow")
        chat.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        chat.scroll_home(animate=False, immediate=True)
        first = TURNS - RESUME_TURNS - PAGE_TURNS
        shown = RESUME_TURNS + PAGE_TURNS
        await wait_for(pilot, lambda: len(_prompts(app)) == shown, "a page of turns")
        await wait_for(pilot, lambda: chat.earlier is not None and chat.earlier.count == first, "")
        assert _prompts(app) == [f"prompt {t}" for t in range(first, TURNS)]
        # the earlier turns' rows name their calls, in their final states
        rows = [w for w in chat.children if isinstance(w, ToolLine)]
        ids = [c.id for line in rows for row in line.rows for c in row]
        assert ids[:3] == [f"r{first}", f"m{first}", f"w{first}"]
        assert app.calls.get(f"w{first}").status is CallStatus.OK  # type: ignore[union-attr]
        # the placeholder stays above everything rendered
        assert chat.children.index(chat.earlier) < chat.children.index(
            next(w for w in chat.children if isinstance(w, UserPrompt))
        )
        # what the user looked at stayed in place: the line is above the viewport (the scroll
        # is set again once the new rows are laid out: on a loaded machine, a moment later)
        await wait_for(pilot, lambda: chat.scroll_y > 0, "the view to stay where it was")
        assert chat.earlier.region.bottom <= chat.region.y or not chat.earlier.region
        # scrolling to the top again renders the next page
        chat.scroll_home(animate=False, immediate=True)
        await wait_for(pilot, lambda: len(_prompts(app)) == shown + PAGE_TURNS, "another page")
        assert _prompts(app)[0] == f"prompt {first - PAGE_TURNS}"


async def test_home_in_the_lane_goes_to_the_first_turn_and_its_first_call(
    long_session: Path, tmp_path: Path
) -> None:
    app = _resumed(long_session, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: _ready(app), "the earlier turns read")
        lane = app.main.lane
        assert lane.focus_lane()
        await pilot.press("home")
        folded = app.focused
        assert isinstance(folded, FoldedTurns)
        assert folded.cursor == 0
        await pilot.press("down", "down", "up")  # the cursor moves over the lines
        assert app.focused is folded
        assert folded.cursor == 1
        await pilot.press("up", "enter")  # open the first turn
        await wait_for(pilot, lambda: "r0" in lane.entries.calls, "the first turn's block")
        block = lane.entries.block_of["r0"]
        assert block.header.prompt == "prompt 0"
        assert app.focused is block.header
        # the lane: the block first, the other earlier turns below it
        children = [c for c in lane.children if isinstance(c, (TurnBlock, FoldedTurns))]
        assert children[0] is block
        assert isinstance(children[1], FoldedTurns)
        assert children[1].turns[0].prompt == "prompt 1"
        assert len(children[1].turns) == 56
        for _ in range(3):
            await pilot.press("down")
            if isinstance(app.focused, ToolCard):
                break
        card = app.focused
        assert isinstance(card, ToolCard)
        assert card.call.id == "r0"
        assert card.call is app.calls.get("r0")
        # End goes back to the newest line; Home to the first turn again
        await pilot.press("end")
        assert app.focused is lane.items()[-1]
        await pilot.press("home")
        assert app.focused is block.header


async def test_an_earlier_call_revealed_from_the_chat_opens_its_turn(
    long_session: Path, tmp_path: Path
) -> None:
    app = _resumed(long_session, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: _ready(app), "the earlier turns read")
        lane = app.main.lane
        assert await lane.reveal("w10")
        await pilot.pause()
        card = lane.cards["w10"]
        assert app.focused is card
        assert card.call.outcome == "+1 · new file"
        kinds = [
            (type(c).__name__, c.header.prompt if isinstance(c, TurnBlock) else len(c.turns))
            for c in lane.children
            if isinstance(c, (TurnBlock, FoldedTurns))
        ]
        assert kinds[:3] == [("FoldedTurns", 10), ("TurnBlock", "prompt 10"), ("FoldedTurns", 46)]
        assert lane.border_subtitle == f"{CALLS} calls"


async def test_the_resumed_heap_is_frozen_and_freed_with_its_session(
    long_session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in its own process (``QUIET_GC``): once the earlier turns are read, what the app
    holds is left out of later collections (``gc.freeze``: full collections walked 270,000
    objects of a 500-turn session); a new session gives the old views back to the collector
    at once and freezes again a moment later — the old views freed, not kept frozen — and
    the app's end unfreezes the rest."""
    import gc
    import weakref

    monkeypatch.setattr(AgentApp, "QUIET_GC", True)
    gc.unfreeze()
    gc.collect()
    app = _resumed(long_session, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: _ready(app) and app.backlog.ready.is_set(), "read")
        await wait_for(pilot, lambda: gc.get_freeze_count() > 10_000, "the heap frozen")
        old = [weakref.ref(w) for w in app.main.chat.children if isinstance(w, UserPrompt)]
        assert len(old) == RESUME_TURNS
        before = gc.get_freeze_count() + len(gc.get_objects())
        assert await app.new_session()
        assert gc.get_freeze_count() == 0  # thawed at once
        # then collected and frozen again: the old views freed, not kept frozen
        await wait_for(pilot, lambda: gc.get_freeze_count() > 10_000, "the heap frozen again")
        assert all(ref() is None for ref in old), "the old session's prompts are still alive"
        # the 60 turns' views and calls are gone (~20,000 objects), not kept frozen; a few
        # stay a while in Textual's own caches (a lane's stale list of displayed children)
        after = gc.get_freeze_count() + len(gc.get_objects())
        assert after < before - 10_000, (before, after)
    assert gc.get_freeze_count() == 0
