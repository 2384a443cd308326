"""The status bar shows the whole working directory on its one line: a directory named with a
newline (or another control character) shows it escaped, not cut at the newline."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from .helpers import SIZE, make_agent, make_app


def test_a_path_is_written_on_one_line_whole() -> None:
    from agent_tui.ui.common.format import one_line_path

    assert one_line_path("~/work/project") == "~/work/project"
    assert one_line_path("~/a\nb") == "~/a\\nb"
    assert one_line_path("/tmp/x\ty\rz\x1b[31m") == "/tmp/x\\ty\\rz\\x1b[31m"


async def test_a_cwd_with_a_newline_shows_escaped_and_whole(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []), cwd_label="~/odd\nname/project")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        cwd = app.main.status.query_one("#cwd", Static)
        assert str(cwd.render()) == "~/odd\\nname/project"
        assert cwd.region.height == 1
