"""The permission prompt itself: what it asks about, its keys, its layout on small terminals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.permissions import ApprovalRequest
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.ui.app import AgentApp
from agent_tui.ui.approval.screen import Ask

from .helpers import make_agent, make_app, submit, wait_for


def _pipeline_app(tmp_path: Path, turns: list[dict[str, Any]]) -> AgentApp:
    agent = make_agent(tmp_path, turns)
    agent.policy = agent.executor.policy = build_pipeline(tmp_path).pipeline
    return make_app(agent)


def _calls(*calls: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"tool_calls": [dict(c)]} for c in calls] + [{"text": "done"}]


def _edit(call_id: str, path: str, old: str, new: str) -> dict[str, Any]:
    arguments = {"path": path, "old_string": old, "new_string": new}
    return {"id": call_id, "name": "edit_file", "arguments": arguments}


async def test_an_edit_that_cannot_succeed_shows_no_prompt(tmp_path: Path) -> None:
    """Not read yet, then read but old_string not found: two errors, never a prompt."""
    (tmp_path / "app.py").write_text("x = 1\n")
    turns = _calls(
        _edit("unread", "app.py", "x = 1", "x = 2"),
        {"id": "r", "name": "read_file", "arguments": {"path": "app.py"}},
        _edit("missing", "app.py", "y = 1", "y = 2"),
    )
    app = _pipeline_app(tmp_path, turns)
    asked: list[str] = []
    describe = app.desk.describe

    def spy(request: ApprovalRequest) -> Ask:  # the desk describes every ask it shows
        asked.append(request.call.id)
        return describe(request)

    app.desk.describe = spy
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "edit")
        await wait_for(pilot, lambda: not app.busy or asked, "the turn to end (or a prompt)")
        assert asked == []
        calls = app.calls.calls
        assert (calls["unread"].status.value, calls["unread"].code) == ("error", "not_read")
        assert (calls["missing"].status.value, calls["missing"].code) == ("error", "not_found")
        assert "read_file" in calls["unread"].next_step
    assert asked == []
    assert (tmp_path / "app.py").read_text() == "x = 1\n"
