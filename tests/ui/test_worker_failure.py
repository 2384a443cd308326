"""A background task that fails is shown and logged (``ui.shell.worker_failure``): before,
every worker but the agent's failed in silence (``exit_on_error=False``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.state import logfile
from agent_tui.ui.chat.error_block import ErrorBlock
from tests.ui.helpers import make_agent, make_app, wait_for


@pytest.fixture
def log_dir(tmp_path: Path) -> Iterator[Path]:
    where = tmp_path / "log"
    logfile.start(directory=where)
    yield where
    logfile.stop()


async def _fails() -> None:
    raise LookupError("the index went missing")


async def test_a_failed_background_task_is_shown_and_logged(tmp_path: Path, log_dir: Path) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "hi"}]))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        app.run_worker(_fails(), group="mentions", name="mention-index", exit_on_error=False)
        await wait_for(
            pilot,
            lambda: any("mention-index failed" in str(n.message) for n in app._notifications),
            "the failure notice",
        )
        (notice,) = [n for n in app._notifications if "mention-index" in str(n.message)]
        assert notice.severity == "error"
        assert "LookupError: the index went missing" in str(notice.message)
        assert str(log_dir / logfile.LOG_NAME) in str(notice.message)
        assert not app._exit_renderables  # the session goes on
    logfile.stop()
    text = (log_dir / logfile.LOG_NAME).read_text()
    assert "worker 'mention-index' (group 'mentions') failed" in text
    assert "Traceback" in text
    assert "LookupError: the index went missing" in text


async def test_the_agents_own_failure_is_logged_once_and_shown_in_the_chat(
    tmp_path: Path, log_dir: Path
) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "hi"}]))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        app.run_worker(_fails(), group="agent", name="agent-turn", exit_on_error=False)
        await wait_for(
            pilot,
            lambda: any(
                "the index went missing" in b.message for b in app.main.chat.query(ErrorBlock)
            ),
            "the chat's error block",
        )
        assert not any("agent-turn" in str(n.message) for n in app._notifications)
    logfile.stop()
    assert (log_dir / logfile.LOG_NAME).read_text().count("(group 'agent') failed") == 1
