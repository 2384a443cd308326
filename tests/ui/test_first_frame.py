"""The first frame is painted whole once (``ShellScreen.on_screen_resume``): what the app
writes up to the moment it is out adds up, cell by cell, to what painting the shell afresh then
gives, at a wide, a narrow and a tiny size, with the demo and an API model."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.segment import ControlType
from rich.style import Style
from textual.screen import Screen

from agent_tui.ui.shell.boot import FirstLook
from agent_tui.ui.shell.shell_screen import ShellScreen
from tests.ui.helpers import QuietApp, wait_for
from tests.ui.test_boot import GatedBoot

Cells = dict[tuple[int, int], tuple[str, Style | None]]


def paint(cells: Cells, update: RenderableType, console: Console) -> None:
    """Put what ``update`` (a compositor update) writes into ``cells``, as a terminal would."""
    x = y = 0
    for segment in console.render(update, console.options):
        if segment.control:
            for control in segment.control:
                if control[0] == ControlType.CURSOR_MOVE_TO:
                    x, y = int(control[1]), int(control[2])  # type: ignore[misc]
            continue
        for char in segment.text:
            if char == "\n":
                x, y = 0, y + 1
                continue
            cells[x, y] = (char, segment.style)
            x += cell_len(char)


class Recorder(QuietApp):
    """Keeps what the app writes until its first frame is out, and the shell painted afresh
    then."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.written: Cells = {}
        self.updates: list[str] = []
        self.fresh: Cells | None = None

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        if self.fresh is None and renderable is not None:
            self.updates.append(type(renderable).__name__)
            paint(self.written, renderable, self.console)
        super()._display(screen, renderable)

    async def _after_first_frame(self) -> None:
        shell = self.screen
        assert isinstance(shell, ShellScreen)
        fresh: Cells = {}
        paint(fresh, shell._compositor.render_full_update(), self.console)
        self.fresh = fresh
        await super()._after_first_frame()


@pytest.mark.parametrize("size", [(140, 40), (80, 24), (30, 8)])
@pytest.mark.parametrize("model", ["demo", "openai:gpt-x"])
async def test_the_first_frame_is_painted_whole_once(
    tmp_path: Path, size: tuple[int, int], model: str
) -> None:
    boot = GatedBoot(tmp_path, [])
    look = FirstLook(model=model, demo=model == "demo", mode="", cwd="~/project")
    app = Recorder(boot=boot, first=look)
    async with app.run_test(size=size) as pilot:
        try:
            await wait_for(pilot, lambda: app.fresh is not None, "the first frame")
            assert app.updates[0] == "LayoutUpdate"
            assert app.updates.count("LayoutUpdate") == 1, app.updates
            assert len(app.written) == size[0] * size[1]
            assert app.written == app.fresh
        finally:
            boot.gate.set()
