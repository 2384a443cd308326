"""The spill browser's ``d`` and the reference records (issue 38, item 6): a spill a session of
another data dir points to is refused, naming that session; once that session file is gone,
the spill can be deleted."""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.ui.spills.browser import ConfirmDelete
from tests.core.agent_state.helpers import SRC, run_cli, script, shell_call

from .helpers import SIZE, QuietApp, make_agent, make_app, open_browser, wait_for


def errors(app: QuietApp) -> list[str]:
    return [n.message for n in app._notifications if n.severity == "error"]


def spill_of_data_dir_a(workspace: Path, root: Path) -> tuple[Path, str, Path]:
    """A real ``agent-tui`` run with data dir A spills in ``workspace``: (the spill, A's
    session id, A's session file)."""
    model = script(root / "a.json", [{"tool_calls": [shell_call("seq 30000")]}, {"text": "ok"}])
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_TUI_")}
    env.update(
        AGENT_TUI_DATA_DIR=str(root / "data-A"),
        AGENT_TUI_CONFIG_DIR=str(root / "config-A"),
        PYTHONPATH=str(SRC),
        PYTHONDONTWRITEBYTECODE="1",
    )
    done = run_cli(
        "-p", "count", "--model", model, "--allow", "run_shell", "--output-format", "json",
        cwd=workspace, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [spill] = (workspace / ".agent-spill").glob("*.txt")
    [session] = (root / "data-A" / "sessions").glob("*.jsonl")
    return spill, session.stem.rsplit("-", 1)[-1], session


async def test_d_refuses_a_spill_another_data_dirs_session_points_to(tmp_path: Path) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    spill, session_id, session = spill_of_data_dir_a(workspace, tmp_path)
    shown = spill.relative_to(workspace).as_posix()
    app = make_app(make_agent(workspace, []))  # this agent's data dir is another one
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, shown)
        await pilot.press("d")
        await wait_for(
            pilot, lambda: errors(app) or isinstance(app.screen, ConfirmDelete), "an answer"
        )
        assert app.screen is browser, "asked to delete a spill A's session points to"
        (message,) = errors(app)
        assert f"the saved session {session_id}" in message
        assert "of another data dir" in message
        assert "Delete that session file first" in message
        assert spill.exists()
        session.unlink()  # the user no longer needs that session
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDelete), "the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: not spill.exists(), "the deletion")
