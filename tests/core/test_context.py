"""Context accounting: the provider's count is authoritative, what follows it is estimated."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.context import context_usage, estimate_tokens, message_tokens
from agent_tui.core.conversation.model_limits import ModelLimits
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.transcript import Message, Usage
from tests.core.helpers import collect, of_type, write_script

LIMITS = ModelLimits(200_000, 8_192, "test")


def test_estimates() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("你好世界") == 4  # about a token a CJK character


def test_the_last_count_plus_what_followed_it() -> None:
    counted = Message.assistant("hi", usage=Usage(input_tokens=1000, output_tokens=50))
    after = Message.user("x" * 400)
    assert context_usage([Message.user("q"), counted], LIMITS).tokens == 1050
    assert not context_usage([counted], LIMITS).estimated
    figure = context_usage([Message.user("q"), counted, after], LIMITS)
    assert figure.tokens == 1050 + message_tokens(after)
    assert figure.estimated
    assert figure.percent == 1


def test_without_any_count_everything_is_estimated() -> None:
    figure = context_usage([Message.user("a" * 40)], LIMITS, system="s" * 400, tools_json="t" * 80)
    assert figure.estimated
    assert figure.tokens == 100 + 20 + message_tokens(Message.user("a" * 40))


async def test_usage_events_and_the_breakdown(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("rules " * 100)
    (workspace / "f.txt").write_text("data\n")
    script = write_script(
        workspace / "s.json",
        [
            {
                "tool_calls": [{"name": "read_file", "arguments": {"path": "f.txt"}}],
                "usage": {"input_tokens": 150_000, "output_tokens": 20},
            },
            {"text": "done", "usage": {"input_tokens": 170_000, "output_tokens": 10}},
        ],
    )
    agent = Agent(ScriptProvider(script), default_registry(), workspace, policy=SimplePolicy())
    events = await collect(agent, "go")
    first, second = of_type(events, "usage")
    assert (first.context_tokens, first.context_window, first.percent, first.estimated) == (
        150_020,
        32_768,  # a script's model is unknown: the guessed window
        458,
        False,
    )
    assert second.context_tokens == 170_010
    assert agent.context().tokens == 170_010
    assert not agent.context().estimated
    parts = agent.context_breakdown()
    assert [p.label for p in parts.memory] == ["AGENTS.md"]
    assert parts.memory[0].tokens == estimate_tokens("rules " * 100)
    assert parts.tool_results.count == 1
    assert parts.user.count == 1
    assert parts.tools.tokens == parts.tools_without_disclosure > 0
    whole = estimate_tokens(agent.system)  # the memory section is counted once, per file
    assert abs(parts.system.tokens + parts.memory[0].tokens - whole) <= 2
