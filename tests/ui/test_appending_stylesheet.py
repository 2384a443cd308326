"""The app's stylesheet parses only the CSS sources added since its last parse, and ends with
exactly the rules (same order, same map) Textual's full parse makes from the same sources —
through added sources, sources changed in place, new variables, a broken source, and in the
real app after the MCP panel and the permission prompt have opened."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet, StylesheetParseError

from agent_tui.core.disclosure import Disclosure
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.ui.mcp.panel import McpPanel
from agent_tui.ui.mcp.server_list import ServerList
from agent_tui.ui.shell.appending_stylesheet import AppendingStylesheet
from tests.core.mcp.conftest import FIXTURE

from .helpers import make_agent, make_app, open_mcp_panel, submit, wait_approval, wait_for

VARIABLES = {"primary": "#004578", "panel": "#111111"}


Described = tuple[str, tuple[tuple[str, str], ...], int, bool]


def described(rules: list[RuleSet]) -> list[Described]:
    """Each rule as its selectors, its declarations, its tie breaker and whether it is a
    default one (``RuleSet.css`` fails on some of Textual's own rules)."""
    return [
        (
            rule.selectors,
            tuple(sorted((name, repr(value)) for name, value in rule.styles.get_rules().items())),
            rule.tie_breaker,
            rule.is_default_rules,
        )
        for rule in rules
    ]


def mapped(sheet: Stylesheet) -> dict[str, list[Described]]:
    return {name: described(rules) for name, rules in sheet.rules_map.items()}


def widget_css(index: int) -> str:
    return f"W{index} {{ color: $primary; & > .part{index} {{ background: $panel; }} }}"


def full_parse(sheet: Stylesheet) -> Stylesheet:
    """Textual's own parse of ``sheet``'s sources."""
    plain = Stylesheet(variables=dict(sheet._variables))
    plain.source = dict(sheet.source)
    plain.parse()
    return plain


class Pair:
    """The same calls on a plain stylesheet and an appending one."""

    def __init__(self) -> None:
        self.plain = Stylesheet(variables=dict(VARIABLES))
        self.appending = AppendingStylesheet(variables=dict(VARIABLES))

    def add(self, css: str, where: str, tie_breaker: int = 0, scope: str = "") -> None:
        for sheet in (self.plain, self.appending):
            sheet.add_source(css, (where, "DEFAULT_CSS"), True, tie_breaker, scope)

    def same(self) -> None:
        assert described(self.appending.rules) == described(self.plain.rules)
        assert mapped(self.appending) == mapped(self.plain)


def test_added_sources_are_parsed_alone_and_appended() -> None:
    pair = Pair()
    parsed: list[tuple[str, str]] = []
    parse_rules = pair.appending._parse_rules

    def spy(css: str, read_from: tuple[str, str], *args: Any, **kwargs: Any) -> list[RuleSet]:
        parsed.append(read_from)
        return parse_rules(css, read_from, *args, **kwargs)

    pair.appending._parse_rules = spy  # type: ignore[method-assign]
    for batch in range(6):
        for index in range(batch * 5, batch * 5 + 5):
            pair.add(widget_css(index), f"w{index}.py", -(index % 3), f"W{index}")
        pair.add(widget_css(0), "w0.py", 0, "W0")  # known, identical: nothing to do
        pair.same()
    assert parsed == [(f"w{index}.py", "DEFAULT_CSS") for index in range(30)]  # each once


def test_a_source_changed_in_place_or_new_variables_parse_it_all() -> None:
    pair = Pair()
    for index in range(8):
        pair.add(widget_css(index), f"w{index}.py", 0, f"W{index}")
    pair.same()
    pair.add("W3 { color: red; }", "w3.py", 0, "W3")  # new content, same place
    pair.add(widget_css(8), "w8.py")
    pair.same()
    pair.add("W3 { color: red; }", "w3.py", -2, "W3")  # a lower tie breaker: kept for later
    pair.same()
    pair.add(widget_css(9), "w9.py")  # the next parse takes it
    pair.same()
    for sheet in (pair.plain, pair.appending):
        sheet.set_variables({**VARIABLES, "primary": "#ff0000"})
        sheet.reparse()
    pair.same()
    pair.add(widget_css(10), "w10.py")
    pair.same()
    assert "#ff0000" in pair.appending.rules[0].css.lower()  # the new variables


def test_a_broken_source_fails_and_is_then_skipped_as_textual_does() -> None:
    pair = Pair()
    pair.add(widget_css(1), "w1.py")
    pair.same()
    pair.add("W2 { colour: nonsense; }", "w2.py")
    for sheet in (pair.plain, pair.appending):
        with pytest.raises(StylesheetParseError):
            sheet.parse()
    pair.add(widget_css(3), "w3.py")
    pair.same()


async def test_the_app_styles_with_the_rules_of_a_full_parse(tmp_path: Path) -> None:
    """The real app, after its main screen, the MCP panel (five servers) and a permission
    prompt mounted their widgets: the rules are Textual's full parse of the same sources, and
    each source was parsed once (again only when met with a lower tie breaker: as a base)."""
    servers = {
        f"srv{i}": {"command": sys.executable, "args": [str(FIXTURE), "--name", f"srv{i}"]}
        for i in range(2)
    }
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    call = {"id": "c1", "name": "run_shell", "arguments": {"command": "echo hi"}}
    agent = make_agent(tmp_path, [{"tool_calls": [call]}, {"text": "done"}])
    agent.disclosure = Disclosure(agent.registry)
    manager = McpManager(tmp_path, agent.registry, watch=False)
    agent.tool_sources.append(manager)
    app = make_app(agent)
    sheet = app.stylesheet
    assert isinstance(sheet, AppendingStylesheet)
    parsed: list[tuple[tuple[str, str], int]] = []
    parse_rules = sheet._parse_rules

    def spy(css: str, read_from: tuple[str, str], **kwargs: Any) -> list[RuleSet]:
        parsed.append((read_from, kwargs["tie_breaker"]))
        return parse_rules(css, read_from, **kwargs)

    sheet._parse_rules = spy  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            panel = await open_mcp_panel(pilot, manager, 2)
            listing = panel.query_one(ServerList)
            await wait_for(pilot, lambda: listing.option_count == 2, "2 servers listed")
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, McpPanel), "closed")
            await submit(pilot, "go")
            await wait_approval(pilot)
            assert app.stylesheet is sheet
            plain = full_parse(sheet)
            assert described(sheet.rules) == described(plain.rules)
            assert mapped(sheet) == mapped(plain)
            assert len(parsed) == len(set(parsed)) > 50
            await pilot.press("n")
            await app.action_quit()
    finally:
        await manager.aclose()


def test_it_only_takes_over_an_empty_stylesheet() -> None:
    sheet = Stylesheet(variables=dict(VARIABLES))
    assert AppendingStylesheet.taking_over(sheet)._variables == VARIABLES
    sheet.add_source(widget_css(1), ("w1.py", "DEFAULT_CSS"))
    with pytest.raises(ValueError, match="has sources"):
        AppendingStylesheet.taking_over(sheet)
