"""A reply's Markdown rendered to lines of ``Content`` at a width: one widget a part.

Textual's ``Markdown`` widget makes every paragraph, list item, fence and table cell a widget
of its own, and Textual lays out and styles every mounted widget on each frame with a layout:
a streamed answer kept 100–230 widgets in the chat, 40–100 ms of layout a frame, and left a
trail of dead widgets for the garbage collector. Here a part is parsed and laid out by Rich's
Markdown renderer (markdown-it, the same parser) into lines, turned into one ``Content``: the
widget showing it is a single node, its text is selectable, and a part that no longer changes
is rendered once per width.

The styles come from the app's theme variables (``$markdown-h1-color``…, ``$accent``,
``$text-muted``), so replies follow a change of theme. Links show their address after the
text: a link's text alone could hide where it points (a reply may repeat what a hostile file
said).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt
from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.markdown import CodeBlock, Heading, ListItem, Markdown, TableElement
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from rich.theme import Theme
from textual.color import Color
from textual.content import Content

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Palette:
    """What a reply is drawn with, derived from the app's theme variables."""

    theme: Theme
    dark: bool
    code_background: str


def _color(variables: Mapping[str, str], name: str, fallback: str) -> str | None:
    """A theme variable as a colour Rich understands: blended over the background when it is
    translucent, None when it is transparent."""
    try:
        background = Color.parse(variables.get("background", "#000000"))
    except Exception:
        log.warning("the theme's background is not a colour: black is used", exc_info=True)
        background = Color.parse("#000000")
    value = variables.get(name, fallback)
    try:
        color = _auto(value, background) or Color.parse(value)
    except Exception:  # a value Textual itself would reject: keep the fallback
        log.warning("the theme's %s is not a colour: %s is used", name, fallback, exc_info=True)
        color = Color.parse(fallback)
    if color.a == 0:
        return None
    if color.a < 1:
        color = background.blend(color, color.a).with_alpha(1)
    return color.hex6


def _auto(value: str, background: Color) -> Color | None:
    """Textual's ``auto [N%]`` (the text colour that contrasts the background, at N% alpha),
    as ``color: $text-muted`` would draw it over the theme's background; None for other values."""
    words = value.split()
    if not words or words[0] != "auto" or len(words) > 2:
        return None
    alpha = 1.0
    if len(words) == 2:
        if not words[1].endswith("%"):
            raise ValueError(f"not a percentage: {words[1]!r}")
        alpha = float(words[1][:-1]) / 100
    return background.get_contrast_text(max(0.0, min(1.0, alpha)))


def _style(variables: Mapping[str, str], prefix: str, color: str, text_style: str) -> Style:
    foreground = _color(variables, f"{prefix}-color", color)
    background = _color(variables, f"{prefix}-background", "transparent")
    flags = variables.get(f"{prefix}-text-style", text_style).replace("none", "").strip()
    style = Style.parse(flags) if flags else Style()
    return style + Style(color=foreground, bgcolor=background)


def palette(variables: Mapping[str, str], dark: bool) -> Palette:
    """The styles of a reply for a theme's variables (``App.get_css_variables``)."""
    accent = _color(variables, "accent", "#ffa62b") or "#ffa62b"
    primary = _color(variables, "primary", "#0178d4") or "#0178d4"
    muted = _color(variables, "text-muted", "#888888") or "#888888"
    warning = _color(variables, "text-warning", "#e0c080") or "#e0c080"
    code_bg = _color(variables, "surface", "#1e1e1e") or ("#1e1e1e" if dark else "#f0f0f0")
    inline_bg = _color(variables, "boost", "#ffffff10") or code_bg
    styles = {
        "markdown.paragraph": Style(),
        "markdown.text": Style(),
        "markdown.em": Style(italic=True),
        "markdown.emph": Style(italic=True),
        "markdown.strong": Style(bold=True),
        "markdown.s": Style(strike=True),
        "markdown.code": Style(color=warning, bgcolor=inline_bg),
        "markdown.code_block": Style(bgcolor=code_bg),
        "markdown.block_quote": Style(color=muted, italic=True),
        "markdown.list": Style(),
        "markdown.item": Style(),
        "markdown.item.bullet": Style(color=primary, bold=True),
        "markdown.item.number": Style(color=primary),
        "markdown.hr": Style(color=muted),
        "markdown.h1.border": Style(color=muted),
        "markdown.link": Style(color=primary, underline=True),
        "markdown.link_url": Style(color=muted),
        "markdown.table.border": Style(color=muted),
        "markdown.table.header": Style(bold=True),
        "markdown.kbd": Style(bold=True, color=accent),
    }
    defaults = {
        "h1": (accent, "bold"),
        "h2": (accent, "bold"),
        "h3": (primary, "bold"),
        "h4": (primary, "bold italic"),
        "h5": (muted, "bold"),
        "h6": (muted, "italic"),
    }
    for tag, (color, text_style) in defaults.items():
        styles[f"markdown.{tag}"] = _style(variables, f"markdown-{tag}", color, text_style)
    return Palette(Theme(styles, inherit=True), dark, code_bg)


class _Heading(Heading):
    """Every heading flush left (Rich centres the first level)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = "left"
        yield text


class _CodeBlock(CodeBlock):
    """A fence on the theme's surface, one column of padding, wrapped at the width."""

    palette: Palette

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        pal = self.palette
        yield Syntax(
            code,
            self.lexer_name,
            theme="monokai" if pal.dark else "default",
            background_color=pal.code_background,
            word_wrap=True,
            padding=(0, 1),
        )


class _Table(TableElement):
    """A table without Rich's blank top and bottom edge rows, whose every cell is shown whole.

    A cell wider than its column wraps at spaces; no word up to ``WHOLE_WORD`` cells is ever
    broken (a longer one folds onto the next line; Rich's default cuts cells to ``col…``). A
    table whose columns cannot all keep such words whole at the width is laid out as records
    instead: each row as its column names beside its values."""

    WHOLE_WORD = 12

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        headings: list[Text] = []
        justify: list[JustifyMethod] = []
        if self.header is not None and self.header.row is not None:
            headings = [column.content.copy() for column in self.header.row.cells]
            justify = [column.justify for column in self.header.row.cells]
        rows: list[list[Text]] = []
        if self.body is not None:
            rows = [[cell.content for cell in row.cells] for row in self.body.rows]
        if headings and self._too_wide(headings, rows, options.max_width):
            yield from _records(headings, rows)
            return
        # two cells between columns, one when that is what keeps every line, or every word,
        # whole
        gaps, room = len(headings) - 1, options.max_width
        natural = sum(_naturals(headings, rows))
        words = sum(min(w, self.WHOLE_WORD) for w in _longest_words(headings, rows))
        gap = 1 if natural + gaps <= room < natural + 2 * gaps or words + 2 * gaps > room else 2
        table = Table(
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            style="markdown.table.border",
            show_edge=False,
            collapse_padding=True,
            padding=(0, gap - 1),
        )
        widths = _widths(headings, rows, options.max_width - gap * gaps)
        # a row that wraps onto more lines stands apart from the next (a blank line between)
        table.show_lines = any(
            cell_len(cell.plain) > width
            for row in rows
            for cell, width in zip(row, widths, strict=False)
        )
        for heading, how, width in zip(headings, justify, widths, strict=True):
            heading.stylize("markdown.table.header")
            table.add_column(heading, justify=how, overflow="fold", width=width)
        for row in rows:
            table.add_row(*row)
        yield table

    @classmethod
    def _too_wide(cls, headings: list[Text], rows: list[list[Text]], width: int) -> bool:
        """Whether the columns, each as wide as its longest word (up to ``WHOLE_WORD``), and
        one-cell gaps between them, do not fit in ``width``."""
        shares = [min(w, cls.WHOLE_WORD) for w in _longest_words(headings, rows)]
        return sum(shares) + len(shares) - 1 > width


def _widths(headings: list[Text], rows: list[list[Text]], room: int) -> list[int]:
    """The columns' widths in ``room`` cells: as wide as their widest line when all fit; else
    as wide as its longest word (up to ``WHOLE_WORD``; the table fits that), then longer words
    whole as far as the room goes, then the rest one cell at a time to the column that most
    lacks its widest line."""
    natural = _naturals(headings, rows)
    if sum(natural) <= room:
        return natural
    longest = _longest_words(headings, rows)
    widths = [min(w, n, _Table.WHOLE_WORD) for w, n in zip(longest, natural, strict=True)]
    # then longer words whole (a wrap at a space reads better than a word cut), the shortest
    # lack first
    whole = [min(w, n) for w, n in zip(longest, natural, strict=True)]
    for index in sorted(range(len(widths)), key=lambda i: whole[i] - widths[i]):
        widths[index] += max(0, min(whole[index] - widths[index], room - sum(widths)))
    for _ in range(max(0, room - sum(widths))):
        lack = [n - w for w, n in zip(widths, natural, strict=True)]
        most = max(range(len(lack)), key=lack.__getitem__)
        if lack[most] <= 0:
            break
        widths[most] += 1
    return widths


def _naturals(headings: list[Text], rows: list[list[Text]]) -> list[int]:
    """The cells of each column's widest line (its heading's among them)."""
    return [
        max((cell_len(line) for c in _column(headings, rows, i) for line in c.plain.splitlines()),
            default=1)
        for i in range(len(headings))
    ]  # fmt: skip


def _column(headings: list[Text], rows: list[list[Text]], index: int) -> list[Text]:
    return [headings[index], *(row[index] for row in rows if index < len(row))]


def _longest_words(headings: list[Text], rows: list[list[Text]]) -> list[int]:
    """The cells of each column's longest word (its heading's among them)."""
    return [
        max((cell_len(w) for c in _column(headings, rows, i) for w in c.plain.split()), default=1)
        for i in range(len(headings))
    ]


def _records(headings: list[Text], rows: list[list[Text]]) -> RenderResult:
    """Each row as a record: its column names (bold) beside its values, records apart by a
    rule; every value wraps (a long word folds), nothing is cut."""
    for number, row in enumerate(rows):
        if number:
            yield Rule(style="markdown.table.border")
        record = Table.grid(padding=(0, 2, 0, 0))
        record.add_column(style="markdown.table.header", overflow="fold", max_width=24)
        record.add_column(overflow="fold", ratio=1)
        for index, heading in enumerate(headings):
            value = row[index] if index < len(row) else Text("")
            record.add_row(heading.copy(), value)
        yield record


class _ListItem(ListItem):
    """Bullets flush left ("• ", Rich indents them a column) and numbered items as "1." (Rich
    writes the bare number)."""

    def render_bullet(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(
            self.elements, options.update(width=options.max_width - 2), style=self.style
        )
        style = console.get_style("markdown.item.bullet", default="none")
        for index, line in enumerate(lines):
            yield Segment("• " if index == 0 else "  ", style)
            yield from line
            yield Segment("\n")

    def render_number(
        self, console: Console, options: ConsoleOptions, number: int, last_number: int
    ) -> RenderResult:
        width = len(str(last_number)) + 2
        lines = console.render_lines(
            self.elements, options.update(width=options.max_width - width), style=self.style
        )
        style = console.get_style("markdown.item.number", default="none")
        numeral = Segment(f"{number}.".rjust(width - 1) + " ", style)  # "1. ", " 9. ", "10. "
        padding = Segment(" " * width, style)
        for index, line in enumerate(lines):
            yield numeral if index == 0 else padding
            yield from line
            yield Segment("\n")


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    """Rich's Markdown parser, made once: Rich makes a new one for every document, a tenth
    of the time a streamed segment takes to render (its rules are compiled anew each time);
    ``parse`` keeps no state between documents."""
    return MarkdownIt().enable("strikethrough").enable("table")


class _Markdown(Markdown):
    """Rich's ``Markdown`` parsed by the one parser (``_parser``); every other attribute as
    Rich's ``__init__`` sets it (``tests/ui/test_stream_lines.py`` compares them)."""

    def __init__(self, markup: str, hyperlinks: bool = True) -> None:
        self.markup = markup
        self.parsed = _parser().parse(markup)
        self.code_theme = "monokai"
        self.justify: JustifyMethod | None = None
        self.style = "none"
        self.hyperlinks = hyperlinks
        self.inline_code_lexer = None
        self.inline_code_theme = self.code_theme


@lru_cache(maxsize=8)
def _markdown_class(pal: Palette) -> type[Markdown]:
    block = type("CodeBlock", (_CodeBlock,), {"palette": pal})
    elements = {
        **Markdown.elements,
        "heading_open": _Heading,
        "fence": block,
        "code_block": block,
        "table_open": _Table,
        "list_item_open": _ListItem,
    }
    return type("ReplyMarkdown", (_Markdown,), {"elements": elements})


@lru_cache(maxsize=8)
def _console(pal: Palette) -> Console:
    return Console(
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        theme=pal.theme,
        width=80,
        emoji=False,
        markup=False,
        highlight=False,
        legacy_windows=False,
    )


def render(text: str, width: int, pal: Palette) -> Content:
    """``text`` as Markdown laid out in ``width`` cells: a ``Content`` of exactly the rendered
    lines (each at most ``width`` cells; show it without wrapping)."""
    width = max(width, 8)
    console = _console(pal)
    options = console.options.update(width=width, max_width=width)
    markdown = _markdown_class(pal)(text, hyperlinks=False)
    lines = console.render_lines(markdown, options, pad=False, new_lines=False)
    # Rich starts a document that opens with a list or a table with a blank line; a part or a
    # segment is drawn a blank line below the one before it already (one gap, not two)
    skip = 0
    while skip < len(lines) and not any(s.text for s in lines[skip] if not s.control):
        skip += 1
    lines = lines[skip:]
    rich = Text("\n").join(
        Text.assemble(*[(s.text, s.style or "") for s in line if s.text and not s.control])
        for line in lines
    )
    return Content.from_rich_text(rich, console)
