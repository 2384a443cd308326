"""What the panel says when no server is loaded: that a configuration file cannot be used, if
one cannot (else that none is configured), which files are read, and how to add a server (the
``agent-tui mcp add`` command, or an example entry)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

from textual.content import Content
from textual.widgets import Static

from agent_tui.ui.common.format import shorten_home

EXAMPLE = """{
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]
    },
    "remote": {"type": "http", "url": "https://example.com/mcp"}
  }
}"""


@cache
def _example() -> Content:
    """``EXAMPLE``, highlighted: Textual's highlighter (and Pygments under it, ~0.7 MB) is
    imported the first time the panel shows it, not when the panel's module is."""
    from textual.highlight import highlight

    return highlight(EXAMPLE, language="json")


def empty_text(
    files: Sequence[Path], project_file: Path | None, broken: Sequence[Path] = ()
) -> Content:
    """``broken``: the files that cannot be used (their problems are listed below this)."""
    muted = "$foreground-muted"
    if broken:
        names = " and ".join(shorten_home(p) for p in broken)
        heading = [
            Content.styled(f"No MCP server is loaded: {names} cannot be used.", "bold"),
            Content("What is wrong is shown below; o opens the file. Once it is fixed and saved,"),
            Content("its servers start."),
        ]
    else:
        heading = [Content.styled("No MCP servers configured.", "bold")]
    lines: list[Content] = [*heading, Content(""), Content("MCP servers are read from:")]
    width = max((len(shorten_home(p)) for p in files), default=0)
    for path in files:
        which = (
            "this project; usually shared with the team"
            if path == project_file
            else "yours, for every project"
        )
        lines.append(
            Content.assemble(
                "  ", (shorten_home(path).ljust(width), "bold"), (f"   {which}", muted)
            )
        )
    lines += [
        Content(""),
        Content("Add one from the command line:"),
        Content.styled("  agent-tui mcp add NAME COMMAND [ARGS...]", "$accent"),
        Content.styled("  agent-tui mcp add --transport http NAME URL", "$accent"),
        Content(""),
        Content.assemble(
            "or write an entry like this one ", ("(o opens the project file)", muted), ":"
        ),
        _example(),
        Content(""),
        Content.styled("Changes to these files show up here as soon as they are saved.", muted),
    ]
    return Content("\n").join(lines)


class EmptyState(Static):
    DEFAULT_CSS = """
    EmptyState {
        height: auto;
        padding: 1 2;
        border: round $panel-lighten-2;
        display: none;
        &.-shown { display: block; }
    }
    """

    def show(
        self, files: Sequence[Path], project_file: Path | None, broken: Sequence[Path] = ()
    ) -> None:
        self.update(empty_text(files, project_file, broken))
