"""The chat with long replies: streamed in bounded parts, far ones frozen out of the DOM and
brought back when scrolled to; the text is never lost."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent_tui.ui.chat import AssistantReply, freezer
from agent_tui.ui.chat.frozen_gap import FrozenGap
from agent_tui.ui.chat.part_splitter import PART_CHARS

if TYPE_CHECKING:
    from textual.pilot import Pilot

    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.chat.chat_view import ChatView

from .helpers import SIZE, drawn, fence_codes, make_agent, make_app, submit, wait_for, wait_idle


def long_answer(paragraphs: int) -> str:
    parts = []
    for n in range(paragraphs):
        parts.append(f"Paragraph {n}: " + "words " * 40)
        if n % 7 == 3:
            parts.append("```python\n\nx = 1\n\ny = 2\n```")
    return "\n\n".join(parts) + "\n"


def part_texts(app: object) -> list[str]:
    """The text of each part of the replies, mounted or frozen, in order."""
    texts: list[str] = []
    for child in app.main.chat.children:  # type: ignore[attr-defined]
        if isinstance(child, AssistantReply):
            texts.append(child.text)
        elif isinstance(child, FrozenGap):
            texts.extend(entry.text for entry in child.entries if entry.text)
    return texts


def chat_text(app: object) -> str:
    chat = app.main.chat  # type: ignore[attr-defined]
    return "".join(c.text for c in chat.children if isinstance(c, (AssistantReply, FrozenGap)))


FENCES = [
    "```python\ndef f():\n\n    return 1\n```",
    "~~~\n```\nnot the end\n\n```\n\n~~~",
    "````markdown\n```sh\nls\n\nstill inside\n\n````",
    "    indented = 1\n\n    still = 2",
]


async def test_fences_of_every_kind_stream_whole_into_one_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part never ends inside a ~~~ fence, a ```` fence holding ```, indented code or a
    fence the stream leaves open; what is rendered is the whole reply."""
    monkeypatch.setattr(freezer, "SCREENS", 1000)  # every part stays mounted, to be read
    prose = "".join(f"Paragraph {n}: " + "words " * 42 + "\n\n" for n in range(10))
    prose += "Last: " + "x" * (PART_CHARS - 10 - len(prose) - 8) + "\n\n"
    assert len(prose) == PART_CHARS - 10  # the fences' blank lines come past the part size
    text = "".join(prose + fence + "\n\n" for fence in FENCES) + prose
    text += "```\nopen to the end\n\n" + "more code\n\n" * 100
    chunks = [text[i : i + 40] for i in range(0, len(text), 40)]
    app = make_app(make_agent(tmp_path, [{"chunks": chunks}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "fences")
        await wait_for(pilot, lambda: not app.busy, "the turn to end", timeout=60)
        chat = app.main.chat
        await wait_for(pilot, lambda: chat_text(app) == text, "the whole reply in the chat")
        parts = [c for c in chat.children if isinstance(c, (AssistantReply, FrozenGap))]
        assert len(parts) == len(FENCES) + 1
        for fence in FENCES:
            assert sum(part.text.count(fence) for part in parts) == 1
        assert parts[-1].text.endswith(text[text.index("```\nopen to the end") :])
        assert not chat.query(FrozenGap)
        await wait_for(
            pilot,
            lambda: "".join(r.source for r in chat.query(AssistantReply)) == text,
            "every part rendered",
        )
        replies = list(chat.query(AssistantReply))
        codes = fence_codes(replies)
        assert codes[:-1] == [
            "def f():\n\n    return 1",
            "```\nnot the end\n\n```",
            "```sh\nls\n\nstill inside",
            "indented = 1\n\nstill = 2",
        ]
        assert codes[-1] == "open to the end" + "\n\nmore code" * 100
        shown = "\n".join(drawn(reply) for reply in replies)
        for code in codes:  # drawn too, line by line (a fence has a column of padding)
            for line in code.split("\n"):
                assert line.strip() in shown


async def test_a_long_reply_streams_in_parts_and_far_parts_leave_the_dom(tmp_path: Path) -> None:
    text = long_answer(160)
    chunks = [text[i : i + 40] for i in range(0, len(text), 40)]
    app = make_app(make_agent(tmp_path, [{"chunks": chunks}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write a lot")
        await wait_idle(pilot)
        chat = app.main.chat
        # the freezer may be swapping a part and its gap right now (a mount and a removal
        # land a moment apart): the whole text must be there once they have
        await wait_for(pilot, lambda: chat_text(app) == text, "the whole reply in the chat")
        parts = part_texts(app)  # mounted, or frozen (a run of them in one gap)
        assert len(parts) >= len(text) // PART_CHARS - 1
        for part in parts[:-1]:  # every part but the last ends at a block boundary
            assert part.endswith("\n\n")
        freezer = chat.freezer
        assert freezer is not None
        await wait_for(pilot, lambda: freezer.frozen > 0, "far parts to freeze")
        mounted = list(chat.query(AssistantReply))
        assert len(mounted) < len(parts)
        chat.scroll_home(animate=False)
        await wait_for(
            pilot,
            lambda: isinstance(chat.children[1], AssistantReply),
            "the first part to come back",
        )
        first = chat.children[1]
        assert isinstance(first, AssistantReply)
        assert text.startswith(first.text)
        # thawing swaps a gap for its part in two steps too: wait for them to land
        await wait_for(pilot, lambda: chat_text(app) == text, "the whole reply after thawing")


async def answered_and_scrolled_up(pilot: Pilot[None], app: AgentApp) -> ChatView:
    """Send "one", wait for its (long) answer, then scroll the chat to its top as a mouse
    wheel would (the anchor released); the chat."""
    await submit(pilot, "one")
    await wait_idle(pilot)
    chat = app.main.chat
    await wait_for(pilot, lambda: chat.max_scroll_y > 0, "a chat taller than the screen")
    chat.scroll_to(y=0, animate=False)
    chat.release_anchor()
    await wait_for(pilot, lambda: chat.scroll_y == 0, "the top")
    return chat


async def test_the_chat_follows_new_output_again_after_a_scroll_up_and_back(
    tmp_path: Path,
) -> None:
    """Scrolling up releases the anchor; scrolling back to the bottom must re-anchor, so the
    next reply is followed (a watcher that replaced Textual's own lost that)."""
    first, second = long_answer(30), long_answer(30)
    app = make_app(make_agent(tmp_path, [{"text": first}, {"text": second}]))
    async with app.run_test(size=SIZE) as pilot:
        chat = await answered_and_scrolled_up(pilot, app)
        chat.scroll_to(y=chat.max_scroll_y, animate=False)  # and back down
        await wait_for(pilot, lambda: chat.scroll_y == chat.max_scroll_y, "the bottom")
        await submit(pilot, "two")
        await wait_idle(pilot)
        await wait_for(
            pilot,
            lambda: chat.max_scroll_y > 0 and chat.scroll_y == chat.max_scroll_y,
            "the chat at the bottom of the new reply",
        )


async def test_a_prompt_sent_while_scrolled_up_brings_the_chat_back_to_it(
    tmp_path: Path,
) -> None:
    """The user scrolled up (or the lane showed an earlier turn) and sends a prompt: the chat
    comes back to the bottom and follows the reply, not left showing the old text while the
    answer streams out of sight."""
    first, second = long_answer(30), long_answer(30)
    app = make_app(make_agent(tmp_path, [{"text": first}, {"text": second}]))
    async with app.run_test(size=SIZE) as pilot:
        chat = await answered_and_scrolled_up(pilot, app)
        await submit(pilot, "two")
        await wait_idle(pilot)
        await wait_for(
            pilot,
            lambda: chat.scroll_y > 0 and chat.scroll_y == chat.max_scroll_y,
            "the chat at the bottom of the new reply",
        )
