"""Parsing a prompt into a command, completion, /help, and the fuzzy scorer."""

from __future__ import annotations

import pytest

from agent_tui.core.commands import (
    BUILTINS,
    CommandRegistry,
    Invocation,
    Plain,
    SlashCompleter,
    Unknown,
    help_text,
)
from agent_tui.core.text.fuzzy import rank, score


@pytest.fixture
def registry() -> CommandRegistry:
    return CommandRegistry()


def test_a_command_and_its_arguments(registry: CommandRegistry) -> None:
    parsed = registry.parse("/model openai:gpt-4o")
    assert isinstance(parsed, Invocation)
    assert parsed.command.name == "model"
    assert parsed.args == "openai:gpt-4o"


def test_an_alias_names_its_command(registry: CommandRegistry) -> None:
    parsed = registry.parse("/new")
    assert isinstance(parsed, Invocation)
    assert parsed.command.name == "clear"


def test_an_unknown_command_names_close_matches(registry: CommandRegistry) -> None:
    parsed = registry.parse("/mdoel x")
    assert isinstance(parsed, Unknown)
    assert parsed.close[:2] == ("model", "mode")
    assert parsed.message.startswith("Unknown command /mdoel — did you mean /model, /mode")


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        ("//etc is a directory", "/etc is a directory"),
        ("/usr/bin/x is slow", "/usr/bin/x is slow"),
        ("/ alone", "/ alone"),
        ("/123 numbers", "/123 numbers"),
        ("plain text /help", "plain text /help"),
    ],
)
def test_what_is_not_a_command_goes_to_the_model(
    registry: CommandRegistry, text: str, sent: str
) -> None:
    assert registry.parse(text) == Plain(sent)


def test_every_builtin_is_declared_once() -> None:
    names = [n for c in BUILTINS for n in (c.name, *c.aliases)]
    assert len(names) == len(set(names))
    wanted = "help clear model mode resume sessions spills mcp theme rewind fork copy quit"
    assert set(wanted.split()) <= set(names)


def test_completion_filters_fuzzily_and_inserts_with_a_space(registry: CommandRegistry) -> None:
    completer = SlashCompleter(registry)
    found = completer.complete("/rw", 3)
    assert found is not None
    assert found.items[0].label == "/rewind"
    assert found.items[0].insert == "/rewind "
    assert found.items[0].matched == (1, 3)
    assert (found.start, found.end) == (0, 3)
    exact = completer.complete("/mode", 5)
    assert exact is not None
    assert [i.label for i in exact.items[:2]] == ["/mode", "/model"]
    everything = completer.complete("/", 1)
    assert everything is not None
    assert len(everything.items) == len(BUILTINS)


def test_completion_is_silent_past_the_first_word_and_on_double_slash(
    registry: CommandRegistry,
) -> None:
    completer = SlashCompleter(registry)
    assert completer.complete("/model x", 8) is None
    assert completer.complete("//x", 3) is None
    assert completer.complete("hello", 2) is None
    assert completer.complete("/zzzz", 5) is None


def test_help_lists_every_command_with_its_source(registry: CommandRegistry) -> None:
    text = help_text(registry.commands())
    for command in BUILTINS:
        assert f"/{command.name}" in text
        assert command.description in text
    assert "built-in" in text


def test_fuzzy_score_prefers_prefixes_and_boundaries() -> None:
    assert score("", "anything") == (0, ())
    assert score("xyz", "model") is None
    assert score("mp", "mcp_panel") == (20, (0, 4))  # the boundary p, not the p of mcp
    prefix = score("mo", "model")
    inside = score("mo", "demo")
    assert prefix is not None
    assert inside is not None
    assert prefix[0] > inside[0]
    assert [i for _, i, _ in rank("cl", ["fork", "clear", "cancel_all"])] == [1, 2]
