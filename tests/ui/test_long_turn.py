"""A long turn keeps the screen light (issue 38, item 12): the chat's finished replies and tool
rows far from the viewport leave the DOM in runs, one gap each, so the 300th call of a turn
lays out what the first did; scrolling back brings them again, as they were. The figures are
in ``benchmarks/bench_long_turn.py``; this checks the behaviour."""

from __future__ import annotations

from pathlib import Path

from agent_tui.ui.chat.assistant_reply import AssistantReply
from agent_tui.ui.chat.chat_view import ChatView
from agent_tui.ui.chat.freezer import SCREENS
from agent_tui.ui.chat.frozen_gap import FrozenGap
from agent_tui.ui.chat.tool_line import ToolLine
from agent_tui.ui.chat.user_prompt import UserPrompt

from .helpers import SIZE, make_agent, make_app, submit, wait_for

CALLS = 120


def long_turn(tmp_path: Path) -> list[dict[str, object]]:
    (tmp_path / "notes.txt").write_text("".join(f"line {n}\n" for n in range(40)))
    turns: list[dict[str, object]] = [
        {
            "text": f"Step {n}.",
            "tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}],
        }
        for n in range(CALLS)
    ]
    return [*turns, {"text": "Done."}]


def rows_in(chat: object) -> list[str]:
    """The text of every reply of the chat, mounted or frozen, in order."""
    texts: list[str] = []
    for child in chat.children:  # type: ignore[attr-defined]
        if isinstance(child, AssistantReply):
            texts.append(child.text)
        elif isinstance(child, FrozenGap):
            texts.extend(entry.text for entry in child.entries if entry.text)
    return texts


def mounted_height(chat: ChatView) -> int:
    """The lines of the items still in the DOM (the prompt and the gaps aside)."""
    return sum(
        child.outer_size.height
        for child in chat.children
        if not isinstance(child, FrozenGap | UserPrompt)
    )


async def test_a_long_turns_chat_keeps_a_bounded_number_of_widgets(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, long_turn(tmp_path), allow=("read_file",))
    agent.max_turns = CALLS + 5
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_for(pilot, lambda: not app.busy, "the long turn to end", timeout=180)
        chat = app.main.chat
        freezer = chat.freezer
        assert freezer is not None
        # a reply and a row a call: 240 items, of which those within reach of the viewport
        # stay mounted, plus at most a screen of far ones being gathered for the next gap
        await wait_for(
            pilot,
            lambda: (
                freezer.frozen >= CALLS
                and mounted_height(chat) <= (2 * SCREENS + 2) * chat.size.height
            ),
            "far items frozen",
        )
        assert len(chat.children) < CALLS
        assert len(chat.query(FrozenGap)) <= 3  # runs merged into gaps, not a gap an item
        texts = rows_in(chat)
        assert texts == [f"Step {n}." for n in range(CALLS)] + ["Done."]
        tool_rows = sum(
            1 for gap in chat.query(FrozenGap) for entry in gap.entries if not entry.text
        ) + sum(len(line.rows) for line in chat.query(ToolLine))
        assert tool_rows == CALLS
        # back to the top: what was frozen there is mounted again, as it was
        chat.scroll_home(animate=False)
        await wait_for(
            pilot,
            lambda: any(
                isinstance(c, AssistantReply) and c.text == "Step 0." for c in chat.children
            ),
            "the first reply back",
        )
        first = next(c for c in chat.children if isinstance(c, ToolLine))
        assert first.rows[0][0].name == "read_file"
        assert "lines 1–40 of 40" in str(first.build_content())
        assert any(isinstance(c, UserPrompt) for c in chat.children)
        await wait_for(pilot, lambda: rows_in(chat) == texts, "every reply once, in order")
        await wait_for(
            pilot,
            lambda: mounted_height(chat) <= (2 * SCREENS + 2) * chat.size.height,
            "the bottom frozen in its turn",
        )
