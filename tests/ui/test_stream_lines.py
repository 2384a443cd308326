"""A streamed reply looks exactly as the same text rendered at once, and a frame turns into
strips only the lines that changed (``AssistantReply.render_line``).

Differential: a long reply with every kind of block is streamed in chunks of random sizes;
at several frames and at the end each part's lines equal a one-shot ``render`` of its text at
the same width (text and styles), and each line's strip equals the one Textual's own path
(``Widget.render_line``: the whole widget to strips) makes. The chat renders each write
before its frame, at the width its parts were last laid out at (``AssistantReply.prepare``,
a new part at the one before it's): the lines compared are those."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from textual.content import Content
from textual.widget import Widget

from agent_tui.ui.chat import AssistantReply
from agent_tui.ui.chat.freezer import Freezer
from agent_tui.ui.chat.markdown_lines import render

from .helpers import SIZE, make_agent, make_app, wait_for

CODE = "```python\ndef step(n):\n    return n + 1\n\n\nprint(step(1))\n```\n\n"
BLOCKS = [
    "## A heading {n}\n\n",
    "Prose {n}: the agent reads files, **edits** code, runs `tests` and explains "
    "what it found in [the docs](https://example.org/{n}). " * 3 + "\n\n",
    "- item {n}\n- another item\n  - nested\n\n",
    "1. first {n}\n2. second\n\n   with a loose paragraph\n3. third\n\n",
    "| tool | calls | time |\n|---|--:|:-:|\n| read_{n} | 3 | 12 ms |\n| edit | 1 | 4 ms |\n\n",
    CODE,
    "> quoted {n}\n> still quoted\n\n",
    "    indented code {n}\n    more\n\n",
    "~~~\nfence {n} with a blank line\n\nin it\n~~~\n\n",
    "---\n\n",
]


def reply_text(rng: random.Random, blocks: int) -> str:
    return "".join(rng.choice(BLOCKS).replace("{n}", str(n)) for n in range(blocks))


def chunks(rng: random.Random, text: str) -> list[str]:
    """``text`` in pieces of 1 to 400 characters (most small, as tokens are)."""
    out, at = [], 0
    while at < len(text):
        size = rng.choice([1, 2, 3, 5, 8, 13, 40, 120, 400])
        out.append(text[at : at + size])
        at += size
    return out


def styled(content: Content) -> tuple[str, list[object]]:
    """What a Content shows: its text and its spans (``==`` on Content compares text only)."""
    return content.plain, list(content.spans)


def check_part(part: AssistantReply) -> None:
    """The part's lines are the one-shot render of its text; its strips are Textual's."""
    width = part.content_region.width
    lines = part.lines(width)
    once = render(part.text, width, part._palette()) if part.text.strip() else Content()
    if not part.last and once:
        once = once.append("\n")
    assert styled(lines) == styled(once), part.text
    for y in range(part.size.height):
        ours = part.render_line(y)
        textual = Widget.render_line(part, y)  # the whole widget to strips, as Textual does
        assert list(ours) == list(textual), (y, part.text)


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_streamed_reply_is_drawn_as_the_same_text_at_once(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Freezer, "run", lambda self: None)  # every part stays to be compared
    rng = random.Random(seed)
    text = reply_text(rng, 60)  # ~8,000 characters: several parts, many segments
    pieces = chunks(rng, text)
    checks = set(rng.sample(range(len(pieces)), 6))
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        chat = app.main.chat
        for index, piece in enumerate(pieces):
            await chat.stream(piece)
            if index in checks:
                reply = chat.reply
                assert reply is not None
                await wait_for(pilot, lambda r=reply: r.source == r.text, "the write drawn")
                for part in chat.query(AssistantReply):
                    check_part(part)
        await chat.end_reply(text)
        await pilot.pause()
        parts = list(chat.query(AssistantReply))
        assert "".join(p.text for p in parts) == text
        for part in parts:
            await wait_for(pilot, lambda p=part: p.size.height > 0, "the part laid out")
            check_part(part)


async def test_a_frame_makes_strips_of_the_changed_lines_only(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        reply = AssistantReply()
        await app.main.chat.mount(reply)
        for n in range(12):  # ~2,400 characters: one part, taller than the screen
            await reply.write(BLOCKS[1].replace("{n}", str(n)))
            await pilot.pause()
        await wait_for(pilot, lambda: reply.source == reply.text, "the text drawn")
        await wait_for(pilot, lambda: reply.strips_built > 0, "the reply painted")
        height = reply.size.height
        assert height > SIZE[1]
        before = reply.strips_built
        await reply.write("A last word.")
        await wait_for(pilot, lambda: reply.source.endswith("word."), "the write drawn")
        await wait_for(pilot, lambda: reply.strips_built > before, "the new line painted")
        await pilot.pause()
        # the new line (and the blank one above it), not every line in view nor the whole part
        assert reply.strips_built - before <= 4, (reply.strips_built - before, height)
        assert "A last word." in reply.render_line(reply.size.height - 1).text


def test_the_shared_parser_makes_what_richs_markdown_makes() -> None:
    """Every attribute Rich's ``Markdown.__init__`` sets, set alike (the parsed tokens too)."""
    from rich.markdown import Markdown

    from agent_tui.ui.chat.markdown_lines import _Markdown

    text = reply_text(random.Random(4), 30)
    for hyperlinks in (False, True):
        ours, rich = (
            vars(_Markdown(text, hyperlinks=hyperlinks)),
            vars(Markdown(text, hyperlinks=hyperlinks)),
        )
        assert ours == rich
