"""The ``@`` index's watcher thread ends with the app. A watcher thread left running after a UI
test kept the test process's event loop from closing (its default executor waits for every
thread): seen once in CI, under heavy load, after ``test_lane``'s thousand-call test, with the
thread still in ``watchfiles.watch``. How its unmount was missed is not known; the stop now
also holds once the app no longer runs (``UntilAppEnds``), whatever the way it ended."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.ui.helpers import SIZE, make_agent, make_app, wait_for

DEADLINE = 60.0


async def test_the_watch_stops_once_the_app_no_longer_runs(tmp_path: Path) -> None:
    from agent_tui.ui.shell.background import UntilAppEnds

    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        until = UntilAppEnds(app)
        assert not until.is_set()
        await wait_for(pilot, lambda: app.mention_watcher.ready.is_set(), "the @ watcher")
        watching = app.background.mentions_stop
        # what unmount does not get to do when the app is torn down another way
        assert not watching.is_set()
    assert until.is_set()
    assert watching.is_set()


async def test_an_app_torn_down_by_a_failure_leaves_no_watcher(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    watcher = app.mention_watcher
    finished = threading.Event()
    watch = watcher.run

    def run(stop: threading.Event) -> None:
        try:
            watch(stop)
        finally:
            finished.set()

    watcher.run = run  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):  # noqa: PT012 (the failure is inside the app's run)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, watcher.ready.is_set, "the @ watcher")
            raise RuntimeError("a test failing inside run_test")
    assert finished.wait(DEADLINE), "the @ watcher thread is still watching"
