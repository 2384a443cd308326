"""Where a streamed reply is split into parts: only where the Markdown before is finished.

Each part is rendered as a document of its own, so the check is the parser's: the blocks of
the parts, one after the other, are the blocks of the whole reply."""

from __future__ import annotations

import random

import pytest
from markdown_it import MarkdownIt

from agent_tui.ui.chat.part_splitter import PART_CHARS, SMALL, PartSplitter

PARSER = MarkdownIt("gfm-like")


def stream(text: str, sizes: list[int], size: int = PART_CHARS) -> list[str]:
    """Feed ``text`` in deltas of ``sizes`` (cycled), as ``ReplyStream`` does; the parts."""
    parts: list[str] = []
    splitter = PartSplitter(size)
    position, n = 0, 0
    while position < len(text):
        fragment = text[position : position + sizes[n % len(sizes)]]
        position += len(fragment)
        n += 1
        while fragment:
            cut = splitter.feed(fragment)
            if cut is None:
                break
            parts.append(splitter.text)
            splitter = PartSplitter(size)
            fragment = fragment[cut:]
    if splitter.text:
        parts.append(splitter.text)
    return parts


def blocks(text: str, first_line: int = 0) -> list[tuple[object, ...]]:
    """What a Markdown widget renders ``text`` from: every token, its lines from ``first_line``."""
    found = []
    for token in PARSER.parse(text):
        lines = (
            None if token.map is None else (token.map[0] + first_line, token.map[1] + first_line)
        )
        found.append((token.type, token.tag, token.level, lines, token.markup, token.info))
        found.append((token.content,))
    return found


def assert_same_document(text: str, parts: list[str]) -> None:
    assert "".join(parts) == text
    rendered: list[tuple[object, ...]] = []
    line = 0
    for part in parts:
        rendered += blocks(part, line)
        line += part.count("\n")
    assert rendered == blocks(text)


FENCES = {
    "backticks": "```python\ndef f():\n\n    return 1\n\n\n```\n",
    "tildes": "~~~\n```\nnot a fence end\n\n```\n\n~~~\n",
    "four backticks around three": "````markdown\n```python\nx = 1\n```\n\nprose inside\n\n````\n",
    "long tildes, a shorter close inside": "~~~~~~\n~~~\n\n~~~~\n\n~~~~~~~~\n",
    "indented fence": "   ```\n   a\n\n   b\n   ```\n",
    "indented code": "    first = 1\n\n\n    second = 2\n\n    third = 3\n",
    "list with code": "- item\n\n  ```\n  a\n\n  b\n  ```\n\n  more of the item\n\n- next\n",
    "quote": "> a quote\n> ```\n> x\n\n",
    "table": "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n",
    "html": "<pre>\nraw\n\nstill raw\n</pre>\n",
    "html comment": "<!--\nnote\n\nmore note\n-->\n",
    "div": "<div>\nhtml\n</div>\n",
}


def filler(n: int) -> str:
    return "".join(f"Paragraph {i}: some words here.\n\n" for i in range(n))


@pytest.mark.parametrize("kind", list(FENCES))
@pytest.mark.parametrize("delta", [1, 3, 7, 64, 10_000])
def test_no_block_is_ever_cut(kind: str, delta: int) -> None:
    block = FENCES[kind]
    text = (filler(3) + block + "\n") * 12 + filler(2)
    parts = stream(text, [delta], size=40)
    assert len(parts) > 12
    assert_same_document(text, parts)
    # the block is whole in one part, every time
    assert sum(part.count(block) for part in parts) == 12


@pytest.mark.parametrize("fence", ["```", "~~~", "````"])
def test_a_fence_still_open_when_the_stream_ends_is_never_cut(fence: str) -> None:
    text = filler(5) + f"{fence}sh\n" + "echo hi\n\n" * 200  # never closed
    parts = stream(text, [5], size=40)
    assert_same_document(text, parts)
    assert parts[-1].endswith(text[text.index(fence) :])  # the open fence, whole, and last


def test_a_closing_fence_must_match_the_opening_one() -> None:
    """``` does not close ````, ~~~ does not close ```, a shorter run does not close a longer."""
    text = filler(4) + "````\n```\n\nstill code\n\n```\n\nstill\n\n````\n\n" + filler(4)
    parts = stream(text, [2], size=20)
    code = next(p for p in parts if "````" in p)
    assert "still code" in code
    assert code.count("````") == 2
    text = filler(4) + "```\n~~~\n\ncode\n\n~~~\n\nstill\n\n```\n\n" + filler(4)
    parts = stream(text, [2], size=20)
    code = next(p for p in parts if "```" in p)
    assert "still\n" in code
    assert code.count("```") == 2


def test_a_part_ends_at_the_first_finished_blank_line_past_the_size() -> None:
    text = "x" * PART_CHARS + "\nmore\n\nnext\n"
    parts = stream(text, [len(text)])
    assert parts == [text[: text.index("next")], "next\n"]
    assert stream("short\n\nreply", [1]) == ["short\n\nreply"]
    # blank lines of spaces and tabs are blank lines; CRLF ones too
    for blank in (" \t\n", "\r\n"):
        text = "x" * PART_CHARS + "\n" + blank + "next"
        assert stream(text, [1])[0] == "x" * PART_CHARS + "\n" + blank


def test_a_list_or_indented_code_is_not_left_open_at_a_cut() -> None:
    """After a blank line a list or an indented code block may go on: no cut there."""
    text = "x" * PART_CHARS + "\n\n- a\n\n  still a\n\n- b\n\n    code\n\n    more code\n\nend\n"
    parts = stream(text, [1], size=PART_CHARS)
    assert parts[1] == text[PART_CHARS + 2 :]


SNIPPETS = [
    *FENCES.values(),
    "# Heading\n",
    "Setext\n===\n",
    "para line\nand a lazy line\n",
    "- a\n- b\n",
    "1. one\n\n2. two\n",
    "> quote\nlazy\n",
    "---\n",
    "    indented\n",
    "  - nested\n    - deeper\n",
    "```\nunclosed?\n",
    "~~~~\n",
    "<div>\n",
    "| x |\n",
    "|---|\n",
    "text | with | pipes\n",
    "\n",
    "\n\n",
    "   \n",
]


@pytest.mark.parametrize("seed", range(60))
def test_random_markdown_streams_into_the_same_document(seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(rng.choice(SNIPPETS) for _ in range(rng.randint(20, 120)))
    sizes = [rng.choice([1, 2, 3, 5, 8, 40, 300]) for _ in range(7)]
    parts = stream(text, sizes, size=rng.choice([1, 20, 80]))
    assert_same_document(text, parts)


def test_the_work_stays_linear_in_a_long_open_fence() -> None:
    """A 2,000-line fence with blank lines: parsed again now and then, not at every blank."""
    body = "".join(f"line {i}\n\n" for i in range(2000))
    text = filler(200) + "```\n" + body + "```\n\n" + filler(200)
    splitter_work = []

    parts: list[str] = []
    splitter = PartSplitter()
    for i in range(0, len(text), 4):
        fragment = text[i : i + 4]
        while fragment:
            cut = splitter.feed(fragment)
            if cut is None:
                break
            parts.append(splitter.text)
            splitter_work.append(splitter.parsed_chars)
            splitter = PartSplitter()
            fragment = fragment[cut:]
    parts.append(splitter.text)
    splitter_work.append(splitter.parsed_chars)
    assert_same_document(text, parts)
    fence = next(p for p in parts if "```" in p)
    assert fence.count("```") == 2
    assert sum(splitter_work) < 10 * len(text)
    assert len(fence) < len(body) * 1.3 + SMALL
