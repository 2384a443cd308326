"""What a streamed write costs: a backlog of text goes out a slice a frame, and a write
re-renders only the open segment of the part it lands in (``benchmarks/bench_ui.py``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_tui.ui.chat import AssistantReply, assistant_reply
from agent_tui.ui.chat.assistant_reply import SEGMENT_CHARS
from agent_tui.ui.chat.chat_view import WRITE_CHARS
from agent_tui.ui.chat.freezer import Freezer
from agent_tui.ui.chat.markdown_lines import Palette

from .helpers import SIZE, drawn, make_agent, make_app, wait_for


def paragraphs(count: int) -> list[str]:
    """Prose, and every third block a list or a table (which Rich opens with a blank line when
    they start a document: a segment must not show two blank lines above them)."""
    blocks = []
    for i in range(count):
        blocks.append(f"Paragraph {i}: " + "word " * 60 + "\n\n")
        if i % 3 == 1:
            blocks.append(f"1. point {i}\n2. another\n\n")
        elif i % 3 == 2:
            blocks.append(f"| tool | calls |\n|---|---:|\n| t{i} | 3 |\n\n")
    return blocks


def count_renders(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on, the length of each text a reply renders (its Markdown to lines)."""
    rendered: list[int] = []
    real = assistant_reply.render

    def counting(text: str, width: int, pal: Palette) -> object:
        rendered.append(len(text))
        return real(text, width, pal)

    monkeypatch.setattr(assistant_reply, "render", counting)
    return rendered


async def test_a_write_renders_only_the_open_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        reply = AssistantReply()
        await app.main.chat.mount(reply)
        rendered = count_renders(monkeypatch)
        texts = paragraphs(10)  # ~3,600 characters: a whole part
        for text in texts:
            await reply.write(text)
            await pilot.pause()
        rendered.clear()
        await reply.write("And one more sentence.")
        await wait_for(pilot, lambda: reply.source.endswith("sentence."), "the write drawn")
        assert rendered  # the open segment, at each width the layout asked for
        assert max(rendered) < 2 * SEGMENT_CHARS, rendered  # not the whole part again
        shown = drawn(reply)
        for i in range(10):
            assert f"Paragraph {i}: word" in shown
        assert "And one more sentence." in shown
        # the segments are drawn as parts are: a blank line between paragraphs, none doubled
        assert "\n\n\n" not in shown


async def test_a_backlog_is_written_a_slice_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # far parts are frozen out of the DOM on a timer: a loaded machine reaches it before the
    # end of this reply, and what is asserted here is every part's text
    monkeypatch.setattr(Freezer, "run", lambda self: None)
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        chat = app.main.chat
        sizes: list[int] = []
        real = chat.stream

        async def spy(fragment: str) -> None:
            sizes.append(len(fragment))
            await real(fragment)

        monkeypatch.setattr(chat, "stream", spy)
        text = "".join(paragraphs(80))  # ~25,000 characters arrived faster than they render
        ended = asyncio.Event()

        async def reply() -> None:
            # on the app's loop, as the agent's events are handled: the scheduled slice
            # writes and the end of the reply take turns there, never at once
            chat.gather(text)
            await chat.end_reply(text)  # what any other event does first: all of it, in order
            ended.set()

        app.call_later(reply)
        await wait_for(pilot, ended.is_set, "the reply ended")
        assert sum(sizes) == len(text)
        assert max(sizes) <= WRITE_CHARS
        assert len(sizes) >= len(text) // WRITE_CHARS
        parts = list(chat.query(AssistantReply))
        assert "".join(part.text for part in parts) == text


async def test_a_part_made_with_text_is_cut_into_segments_from_its_first_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        made_with = "".join(paragraphs(8))  # several segments' worth before any write
        reply = AssistantReply(made_with)
        await app.main.chat.mount(reply)
        await reply.write("Written after.\n\n")
        await wait_for(pilot, lambda: reply.source.endswith("after.\n\n"), "the write drawn")
        rendered = count_renders(monkeypatch)
        await reply.write("And the last words.")
        await wait_for(pilot, lambda: reply.source.endswith("words."), "the second write drawn")
        assert rendered
        assert max(rendered) < 2 * SEGMENT_CHARS, rendered
        shown = drawn(reply)
        for i in range(8):
            assert f"Paragraph {i}: word" in shown
        assert "Written after." in shown
        assert "And the last words." in shown
        assert "\n\n\n" not in shown


async def test_a_part_that_ends_is_not_rendered_again_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part ends in the write that completes it, before that text is drawn, and is then no
    longer the reply's last (a blank line below): the frame after renders its open segment
    only, and the blank line is added to what is drawn, not rendered for."""
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        reply = AssistantReply()
        await app.main.chat.mount(reply)
        for text in paragraphs(9):  # ~3,200 characters: a whole part
            await reply.write(text)
            await pilot.pause()
        rendered = count_renders(monkeypatch)
        await reply.write("The part's last words.\n\n")
        await reply.finish(last=False)
        await wait_for(pilot, lambda: reply.source.endswith("words.\n\n"), "the write drawn")
        await wait_for(pilot, lambda: drawn(reply).endswith("words.\n"), "the blank line below")
        assert rendered
        assert max(rendered) < 2 * SEGMENT_CHARS, rendered
        assert sum(rendered) < 2 * SEGMENT_CHARS * 2, rendered  # at most two widths' worth
        whole = AssistantReply(reply.text, last=False)
        await app.main.chat.mount(whole)
        await wait_for(pilot, lambda: whole.source == reply.text, "the whole part drawn")
        assert drawn(whole) == drawn(reply)  # the same lines as a part drawn in one go


async def test_a_streamed_write_is_rendered_before_its_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chat's writes render their Markdown in the write (``AssistantReply.prepare``):
    the layout of the frame that shows them finds the lines drawn and renders nothing, so a
    frame's pause is its layout and paint, not those and the rendering. What is drawn is the
    same (``test_stream_lines`` compares every line with a one-shot render)."""
    monkeypatch.setattr(Freezer, "run", lambda self: None)
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        chat = app.main.chat
        screen = app.screen
        rendered = count_renders(monkeypatch)
        in_layout: list[int] = []
        layout = screen._refresh_layout

        def counting_layout(*args: object, **kwargs: object) -> None:
            before = len(rendered)
            layout(*args, **kwargs)  # type: ignore[arg-type]
            in_layout.extend(rendered[before:])

        monkeypatch.setattr(screen, "_refresh_layout", counting_layout)
        texts = paragraphs(24)  # ~8,000 characters: three parts
        # the first write: no width known yet, and it overflows the chat (its scrollbar
        # narrows the replies: a new width is rendered by the layout, as any resize is)
        await chat.stream("".join(texts[:6]))
        await wait_for(pilot, lambda: chat.max_scroll_y > 0, "the chat overflowing")
        await wait_for(pilot, lambda: chat.reply is not None and drawn(chat.reply), "drawn")
        in_layout.clear()
        rendered.clear()
        for text in texts[6:]:
            await chat.stream(text)
            await pilot.pause()
        last = chat.reply
        assert last is not None
        await wait_for(pilot, lambda: last.source == last.text, "the last write drawn")
        assert rendered  # every write rendered its open segment…
        assert in_layout == []  # …and none of it in a frame's layout
        await chat.end_reply()
        parts = list(chat.query(AssistantReply))
        assert len(parts) >= 3  # new parts were drawn at the width of the one before them
        assert "".join(part.text for part in parts) == "".join(texts)
