"""``/context``: its header and its total are one figure (issue 41, item 7). They were two: the
header is the meter's (the provider's count of the last response, plus estimates since) and the
total summed our own estimates of each part (``2.2k`` vs ``2.5k`` after a few reads with the
demo model, whose count has no per-message framing). The parts now split the header's figure."""

from __future__ import annotations

import re
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.shell.context_text import context_text
from tests.core.helpers import collect, write_script


async def test_the_header_and_the_total_are_one_figure(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("rules " * 100)
    for n in range(12):
        (tmp_path / f"f{n}.txt").write_text("data line\n" * 40)
    reads = [{"name": "read_file", "arguments": {"path": f"f{n}.txt"}} for n in range(12)]
    # no "usage": the script provider counts as the demo does (characters / 4, no framing)
    script = write_script(tmp_path / "s.json", [{"tool_calls": reads}, {"text": "done"}])
    agent = Agent(ScriptProvider(script), default_registry(), tmp_path, policy=SimplePolicy())
    await collect(agent, "read them")
    estimates = agent.context_breakdown()
    assert estimates.estimated_total != estimates.total  # two estimators: the old disagreement
    text = context_text(estimates)
    header = re.search(r"— ~?([\d.,]+k?) tokens", text)
    total = re.search(r"^  total\s+([\d.,]+k?)", text, re.M)
    assert header is not None, text
    assert total is not None, text
    assert header.group(1) == total.group(1)
    scaled = estimates.to_total()
    assert sum(p.tokens for p in scaled.parts()) == agent.context().tokens
    assert [p.label for p in scaled.parts()] == [p.label for p in estimates.parts()]
    assert scaled.tool_results.count == 12
