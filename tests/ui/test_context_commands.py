"""The context commands in the TUI: /compact folds the conversation (the model's next request
starts with the summary), /context breaks the window down, /memory lists the memory files and
/memory N opens one in $EDITOR (a script here) and reloads it, /init writes a starter AGENTS.md
(with one request to the model: the script model is not the demo) and will not overwrite it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.ui.chat.compaction_block import CompactionBlock
from agent_tui.ui.chat.notice import Notice

from .helpers import SIZE, make_agent, make_app, submit, wait_for, wait_idle


@pytest.fixture(autouse=True)
def _no_real_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


def _notices(app: object) -> list[str]:
    return [n.text for n in app.main.chat.query(Notice)]  # type: ignore[attr-defined]


async def test_slash_compact_folds_and_the_next_request_starts_with_the_summary(
    tmp_path: Path,
) -> None:
    turns = [
        {"text": "one"},
        {"text": "two"},
        {"text": "## Goal\nthe summary of it all"},
        {"text": "three"},
    ]
    app = make_app(make_agent(tmp_path, turns))
    async with app.run_test(size=SIZE) as pilot:
        for prompt in ("first", "second"):
            await submit(pilot, prompt)
            await wait_idle(pilot)
        await submit(pilot, "/compact the naming decisions")
        await wait_for(pilot, lambda: app.main.chat.query(CompactionBlock), "the block")
        await wait_idle(pilot)
        block = app.main.chat.query_one(CompactionBlock)
        assert block.event.phase == "end"
        await submit(pilot, "go on")
        await wait_idle(pilot)
    requests = app.agent.provider.requests  # type: ignore[attr-defined]
    summary_request = requests[2]
    assert summary_request.purpose == "summary"
    assert "the naming decisions" in summary_request.messages[-1].content
    last = requests[3].messages
    assert last[0].folded
    assert "the summary of it all" in last[0].content
    assert [m.content for m in last[1:]] == ["second", "two", "go on"]


async def test_slash_context_breaks_the_window_down(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "hello"}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hi")
        await wait_idle(pilot)
        await submit(pilot, "/context")
        await wait_for(pilot, lambda: any("Context:" in n for n in _notices(app)), "/context")
        (text,) = [n for n in _notices(app) if n.startswith("Context:")]
    assert "of 32k" in text  # the script model is unknown to the table: the 32k guess
    for part in ("system prompt", "tools", "user messages", "assistant messages", "total"):
        assert part in text


async def test_slash_memory_lists_and_edits_a_memory_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("Use tabs.\n")
    script = tmp_path / "fake-editor"
    script.write_text('#!/bin/sh\necho "Run make test before you stop." >> "$1"\n')
    script.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(script))
    agent = make_agent(tmp_path, [])
    agent._own_system = True  # as the app builds it: the system prompt holds the memory
    agent.reload_memory()
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/memory")
        await wait_for(pilot, lambda: any("Memory files" in n for n in _notices(app)), "list")
        listing = next(n for n in _notices(app) if "Memory files" in n)
        assert "1. " in listing
        assert "AGENTS.md — loaded" in listing
        await submit(pilot, "/memory 1")
        await wait_for(pilot, lambda: any("Memory reloaded" in n for n in _notices(app)), "edit")
    assert "Run make test" in (tmp_path / "AGENTS.md").read_text()
    assert "Run make test before you stop." in app.agent.system


async def test_slash_init_writes_a_starter_agents_md(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    answer = "# AGENTS.md\n\nRun the tests with pytest."
    app = make_app(make_agent(tmp_path, [{"text": answer}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/init")
        await wait_for(pilot, lambda: (tmp_path / "AGENTS.md").exists(), "AGENTS.md")
        await wait_for(pilot, lambda: any("AGENTS.md" in n for n in _notices(app)), "notice")
        await submit(pilot, "/init")
        await wait_for(
            pilot, lambda: any("--force" in n or "force" in n for n in _notices(app)), "refusal"
        )
    assert "pytest" in (tmp_path / "AGENTS.md").read_text()
