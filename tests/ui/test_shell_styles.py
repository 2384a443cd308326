"""The shell's first resume does not restyle its nodes (``ShellScreen.on_screen_resume``): each
was styled as it mounted. That is only right if styling them again at the first frame would
change nothing, which this checks, node by node, at the moment the first frame is out, at a
wide and a narrow size and with each shipped theme; and that a later resume restyles."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.dom import DOMNode

from agent_tui.ui.shell.boot import FirstLook
from agent_tui.ui.shell.shell_screen import ShellScreen
from tests.ui.helpers import QuietApp, wait_for
from tests.ui.test_boot import GatedBoot

LOOK = FirstLook(model="demo", demo=True, mode="", cwd="~")


def _restyled(nodes: list[DOMNode], restyle: object) -> list[tuple[str, object, object]]:
    """The nodes whose rules ``restyle()`` changes: (node, before, after)."""
    before = [(node, node._css_styles.get_rules()) for node in nodes]
    assert callable(restyle)
    restyle()
    return [
        (repr(node), rules, node._css_styles.get_rules())
        for node, rules in before
        if node._css_styles.get_rules() != rules
    ]


class Probe(QuietApp):
    """Restyles the shell as Textual's first resume did, when the first frame is out, and
    keeps what that changed (nothing, if skipping it loses nothing)."""

    changed: list[tuple[str, object, object]] | None = None
    nodes = 0

    async def _after_first_frame(self) -> None:
        shell = self.screen
        assert isinstance(shell, ShellScreen)
        nodes = list(shell.walk_children(with_self=True))
        self.nodes = len(nodes)
        self.changed = _restyled(nodes, lambda: shell.update_node_styles(animate=False))
        await super()._after_first_frame()


@pytest.mark.parametrize("size", [(140, 40), (80, 24)])
@pytest.mark.parametrize("theme", ["agent-dark", "agent-light", "agent-contrast", "textual-light"])
async def test_the_first_frame_is_styled_as_a_restyle_would_style_it(
    tmp_path: Path, size: tuple[int, int], theme: str
) -> None:
    boot = GatedBoot(tmp_path, [])
    look = FirstLook(model="demo", demo=True, mode="", cwd="~", theme=theme)
    app = Probe(boot=boot, first=look)
    async with app.run_test(size=size) as pilot:
        try:
            await wait_for(pilot, lambda: app.changed is not None, "the first frame")
            assert app.nodes >= 6  # the shell, its header, body, chat, lane, prompt, status
            assert app.changed == []
        finally:
            boot.gate.set()


async def test_a_later_resume_of_the_shell_restyles_it(tmp_path: Path) -> None:
    """Only the first resume skips the restyle (a later one, e.g. a dialog with a translucent
    background popped off the shell, restyles as Textual does)."""
    boot = GatedBoot(tmp_path, [])
    app = QuietApp(boot=boot, first=LOOK)
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            await wait_for(pilot, boot.started.is_set, "the boot to start")
            shell = app.screen
            assert isinstance(shell, ShellScreen)
            restyled: list[bool] = []
            update = shell.update_node_styles

            def counted(animate: bool = True) -> None:
                restyled.append(animate)
                update(animate)

            shell.update_node_styles = counted  # type: ignore[method-assign]
            shell.post_message(events.ScreenResume())
            await wait_for(pilot, lambda: restyled, "the shell to be restyled as it resumes")
        finally:
            boot.gate.set()
