"""The shell (the first frame) follows the terminal's size: a resize lays it out again (it skips
only a resize to the size it has, which changes nothing), as the main screen would."""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget

from agent_tui.ui.shell.boot import FirstLook
from agent_tui.ui.shell.shell_screen import ShellScreen
from tests.ui.helpers import QuietApp, wait_for
from tests.ui.test_boot import GatedBoot

LOOK = FirstLook(model="demo", demo=True, mode="", cwd="~")


def _shape(app: QuietApp) -> tuple[object, ...]:
    shell = app.screen
    assert isinstance(shell, ShellScreen)
    chat, side, status = (
        shell.query_one(f"#{name}", Widget) for name in ("chat", "side", "status")
    )
    return shell.has_class("-narrow"), chat.region, side.display, side.region, status.region


async def _settled_shape(tmp_path: Path, size: tuple[int, int], then: tuple[int, int]) -> object:
    boot = GatedBoot(tmp_path, [])
    app = QuietApp(boot=boot, first=LOOK)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, boot.started.is_set, "the boot to start")
        await pilot.resize_terminal(*then)
        await wait_for(pilot, lambda: app.screen.size == then, "the shell to take the new size")
        await pilot.pause()
        try:
            return _shape(app)
        finally:
            boot.gate.set()


async def test_a_resized_shell_is_laid_out_as_one_started_at_that_size(tmp_path: Path) -> None:
    for n, (start, then) in enumerate((((140, 40), (80, 24)), ((80, 24), (140, 40)))):
        (tmp_path / f"a{n}").mkdir()
        (tmp_path / f"b{n}").mkdir()
        resized = await _settled_shape(tmp_path / f"a{n}", start, then)
        started = await _settled_shape(tmp_path / f"b{n}", then, then)
        assert resized == started, (start, then)
