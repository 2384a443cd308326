"""The chat with long replies: streamed in bounded parts, far ones frozen out of the DOM and
brought back when scrolled to; the text is never lost."""

from __future__ import annotations

from pathlib import Path

from agent_tui.ui.chat import AssistantReply
from agent_tui.ui.chat.frozen_gap import FrozenGap
from agent_tui.ui.chat.reply_stream import PART_CHARS, boundary

from .helpers import SIZE, make_agent, make_app, submit, wait_for, wait_idle


def long_answer(paragraphs: int) -> str:
    parts = []
    for n in range(paragraphs):
        parts.append(f"Paragraph {n}: " + "words " * 40)
        if n % 7 == 3:
            parts.append("```python\n\nx = 1\n\ny = 2\n```")
    return "\n\n".join(parts) + "\n"


def chat_text(app: object) -> str:
    chat = app.main.chat  # type: ignore[attr-defined]
    return "".join(c.text for c in chat.children if isinstance(c, (AssistantReply, FrozenGap)))


def test_a_part_ends_only_at_a_blank_line_outside_code() -> None:
    assert boundary("", "short\n\nreply") is None
    text = "x" * PART_CHARS
    assert boundary(text, "more\n\nnext") == len("more\n\n")
    assert boundary(text + "```py\n", "a\n\nb\n```\n\nafter") == len("a\n\nb\n```\n\n")


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
        parts = [c for c in chat.children if isinstance(c, (AssistantReply, FrozenGap))]
        assert len(parts) >= len(text) // PART_CHARS - 1
        for part in parts:  # every part but the last ends at a block boundary
            assert part.text.endswith("\n\n") or part is parts[-1]
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
        assert chat_text(app) == text


async def test_the_chat_follows_new_output_again_after_a_scroll_up_and_back(
    tmp_path: Path,
) -> None:
    """Scrolling up releases the anchor; scrolling back to the bottom must re-anchor, so the
    next reply is followed (a watcher that replaced Textual's own lost that)."""
    first, second = long_answer(30), long_answer(30)
    app = make_app(make_agent(tmp_path, [{"text": first}, {"text": second}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "one")
        await wait_idle(pilot)
        chat = app.main.chat
        await wait_for(pilot, lambda: chat.max_scroll_y > 0, "a chat taller than the screen")
        chat.scroll_to(y=0, animate=False)  # as a mouse wheel up would
        chat.release_anchor()
        await wait_for(pilot, lambda: chat.scroll_y == 0, "the top")
        chat.scroll_to(y=chat.max_scroll_y, animate=False)  # and back down
        await wait_for(pilot, lambda: chat.scroll_y == chat.max_scroll_y, "the bottom")
        await submit(pilot, "two")
        await wait_idle(pilot)
        await wait_for(
            pilot,
            lambda: chat.max_scroll_y > 0 and chat.scroll_y == chat.max_scroll_y,
            "the chat at the bottom of the new reply",
        )
