"""The docs' table of built-in commands (docs/extensions.md, once the README's) is the
registry's: it cannot drift."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.commands import BUILTINS, markdown_table

README = Path(__file__).resolve().parents[1] / "docs" / "extensions.md"


def test_the_readme_lists_every_builtin_command_as_the_registry_does() -> None:
    text = README.read_text(encoding="utf-8")
    begin = text.index("<!-- commands:begin")
    start = text.index("\n", begin) + 1
    end = text.index("<!-- commands:end -->")
    assert text[start:end].strip() == markdown_table(BUILTINS)
