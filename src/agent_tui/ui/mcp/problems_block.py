"""Configuration problems: each with its file (and server) and the reason, in full."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from agent_tui.core.mcp.config.spec import ConfigProblem
from agent_tui.ui.common.format import shorten_home


def problem_text(problem: ConfigProblem) -> Content:
    where = shorten_home(problem.path)
    server = f" · server {problem.server!r}" if problem.server else ""
    return Content.assemble(
        ("✗ ", "$error"), (where, "bold"), (server, "bold"), "\n", _indent(problem.message)
    )


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


class ProblemsBlock(VerticalScroll):
    DEFAULT_CSS = """
    ProblemsBlock {
        height: auto;
        max-height: 10;
        border: round $error;
        border-title-color: $error;
        border-title-style: bold;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        display: none;
        &.-shown { display: block; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.problems: tuple[ConfigProblem, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static()

    def show(self, problems: Sequence[ConfigProblem]) -> None:
        problems = tuple(problems)
        self.set_class(bool(problems), "-shown")
        if problems == self.problems:
            return
        self.problems = problems
        self.border_title = f"Configuration problems ({len(problems)})"
        self.query_one(Static).update(Content("\n").join(problem_text(p) for p in problems))
