"""Where a streamed Markdown reply may end one part and go on in the next.

A long reply is shown as a column of Markdown widgets (``ReplyStream``), each rendered as a
document of its own, so a part may only end where the Markdown before it is finished whatever
follows: after a blank line that is outside every open block. The Markdown parser Textual uses
(markdown-it-py, "gfm-like", block rules only) decides that, so fences of any length and either
character (``~~~``, a ```````` fence holding ```` ``` ````, one still open when the stream
ends), indented code, lists, block quotes, tables and HTML blocks are never cut.

The parse is incremental: a line that starts a top-level block in a parse of complete lines
keeps starting one whatever text follows (what follows can only change blocks from there on),
so each check parses from the start of the last top-level block of the check before, not from
the start of the part. A block can stay open for long, though, with blank lines in it (a code
fence of thousands of lines, a long loose list), and parsing it again at each of them would be
quadratic. An open fence is closed only by a line of its own marker, so until such a line
arrives it is not parsed again; any other block open past ``SMALL`` characters is parsed again
only once the text has grown by a quarter since the last check, which keeps the total work
linear (the cut after such a block may come a little later).
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

PART_CHARS = 3000
"""A streamed reply continues in a new part after about this many characters."""

SMALL = 1000
"""An open block up to this size is parsed again at every blank line; a longer one less often."""

_BLANK_REST = re.compile(r"[ \t]*\r?\n")
"""What follows a line break to make the next line a blank one (markdown-it: spaces, tabs)."""
_LINE_END = re.compile(r"\r\n?|\n")
"""Line breaks as markdown-it counts them (its ``normalize`` rule)."""


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # Textual's parser ("gfm-like"), block structure only: inline parsing is two thirds of
    # the time and changes no block boundary.
    return MarkdownIt("gfm-like").disable(["inline", "linkify", "text_join"])


class PartSplitter:
    """The text of one part, fed as it streams; ``feed`` says where the part may end."""

    def __init__(self, size: int = PART_CHARS) -> None:
        self.size = size
        self.text = ""
        """What this part holds so far (up to the cut, once ``feed`` has found one)."""
        self._settled = 0
        """Where the last top-level block known starts: the text before it is final."""
        self._checked = 0
        """Where the text ended at the last parse."""
        self._fence: re.Pattern[str] | None = None
        """The closing line of the open fence the text ends in, if it does."""
        self.parses = 0
        self.parsed_chars = 0

    def feed(self, fragment: str) -> int | None:
        """Take ``fragment``; return where in it the part may end (the rest starts the next
        part, and is not kept here), or None if the whole fragment belongs to this part."""
        text = self.text
        start = len(text)
        if start + len(fragment) < self.size:
            self.text = text + fragment
            return None
        # a blank line may begin in the text already fed: search from its last line break
        base = text.rfind("\n")
        base = start if base < 0 else base
        window = text[base:] + fragment
        newline = window.find("\n")
        while newline >= 0:
            rest = _BLANK_REST.match(window, newline + 1)
            if rest is not None:
                end = base + rest.end()  # just after a blank line
                if end > start and end >= self.size and self._closed(text, fragment, end):
                    self.text = text + fragment[: end - start]
                    return end - start
            newline = window.find("\n", newline + 1)
        self.text = text + fragment
        return None

    def _closed(self, text: str, fragment: str, end: int) -> bool:
        """Is every block of the part finished at ``end`` (just after a blank line)?"""
        settled, added = self._settled, fragment[: end - len(text)]
        if self._fence is not None:  # in a fence: is it closed by one of the new lines?
            if self._fence.search(_since(text, added, self._checked)) is None:
                self._checked = end
                return False
            self._fence = None
        elif end - settled > SMALL and (end - self._checked) * 4 < end - settled:
            return False  # a long open block: not parsed again so soon
        self._checked = end
        region = _since(text, added, settled)
        self.parses += 1
        self.parsed_chars += len(region)
        blocks = [t for t in _parser().parse(region) if t.level == 0 and t.map is not None]
        if not blocks:
            return False
        last = blocks[-1]
        assert last.map is not None
        blank = len(_LINE_END.findall(region)) - 1  # the region's last line: the blank one
        if last.map[1] <= blank and last.type != "code_block":
            return True  # (indented code may go on after a blank line: never cut after it)
        self._settled = settled + _line_offset(region, last.map[0])
        if last.type == "fence":  # open to the end: closed by a line of at least its marker
            marker = re.escape(last.markup[0]) + f"{{{len(last.markup)},}}"
            self._fence = re.compile(r"^ {0,3}" + marker + r"[ \t]*\r?$", re.MULTILINE)
        return False


def _since(text: str, added: str, position: int) -> str:
    """``(text + added)[position:]``, without copying ``text`` whole."""
    if position >= len(text):
        return added[position - len(text) :]
    return text[position:] + added


def _line_offset(text: str, line: int) -> int:
    """Where line ``line`` (from 0) of ``text`` starts."""
    if line == 0:
        return 0
    for count, match in enumerate(_LINE_END.finditer(text), 1):
        if count == line:
            return match.end()
    return len(text)
