"""Snapshots of the rewind picker with a preview: fixed turns and a fixed preview (every
kind of row: restore, delete, recreate, a file changed since, one run_shell touched first,
files run_shell changed), at 80×24 and 120×36. Times are shown in UTC."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.core.checkpoints.plan import FilePreview, NotRestorable, Outside
from agent_tui.core.conversation.rewind import RewindPreview, TurnSummary
from agent_tui.ui.rewind.picker import RewindPicker

from .helpers import wait_for
from .test_snapshots import demo_app

SnapCompare = Callable[..., bool]

TURNS = [
    TurnSummary("t1", 1, 0, "Add a mul function to calc.py", "2025-03-02T14:01:09+00:00",
                files=("src/calc.py",), checkpointed=True),
    TurnSummary("t2", 2, 6, "Write tests for calc and run them, then tell me what failed and "
                "why it failed", "2025-03-02T14:03:40+00:00",
                files=("tests/test_calc.py", "src/calc.py"), outside=3, checkpointed=True),
    TurnSummary("t3", 3, 12, "Explain the design", "2025-03-02T14:07:02+00:00",
                checkpointed=True),
]  # fmt: skip

PREVIEW = RewindPreview(
    TURNS[1],
    files=(
        FilePreview("/w/src/calc.py", "src/calc.py", "restore", added=2, removed=9),
        FilePreview("/w/tests/test_calc.py", "tests/test_calc.py", "delete", removed=24),
        FilePreview("/w/docs/notes.md", "docs/notes.md", "recreate", added=12),
        FilePreview("/w/README.md", "README.md", "restore", added=1, removed=1, changed_since=True),
        FilePreview("/w/setup.cfg", "setup.cfg", "restore", added=3, partial=True),
    ),
    unchanged=1,
    outside=Outside(
        [
            NotRestorable("/w/build/report.txt", "build/report.txt", "created", "run_shell"),
            NotRestorable("/w/.coverage", ".coverage", "modified", "run_shell"),
            NotRestorable("/w/old.log", "old.log", "deleted", "run_shell"),
        ]
    ),
    messages_dropped=9,
)


async def _preview(turn: str) -> RewindPreview:
    return PREVIEW if turn == "t2" else RewindPreview(TURNS[2], messages_dropped=3)


async def _open_on_turn_two(pilot: Pilot[Any]) -> None:
    app = pilot.app
    await pilot.pause()
    app.push_screen(RewindPicker(TURNS, _preview))
    await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker), "the picker")
    picker = app.screen
    assert isinstance(picker, RewindPicker)
    await wait_for(pilot, lambda: picker.preview is not None, "the first preview")
    await pilot.press("up")
    await wait_for(pilot, lambda: picker.preview is PREVIEW, "the preview of turn 2")
    await pilot.pause()


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_rewind_picker_with_a_preview(
    snap_compare: SnapCompare, tmp_path: Path, size: tuple[int, int]
) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=_open_on_turn_two)


COMMANDS_PREVIEW = RewindPreview(
    TURNS[1],
    files=(
        FilePreview("/w/src/calc.py", "src/calc.py", "restore", added=2, removed=9),
        FilePreview("/w/run.sh", "run.sh", "restore", mode=(0o755, 0o644)),
        FilePreview("/w/logo.png", "logo.png", "restore", binary=True),
        FilePreview("/w/docs/a.md", "docs/a.md", "recreate", added=4),
        FilePreview("/w/.git/config", ".git/config", "restore", added=1, git=True),
    ),
    outside=Outside(
        [
            NotRestorable(
                "/w/node_modules/x/i.js", "node_modules/x/i.js", "created", "run_shell", "ignored"
            ),
            NotRestorable("/w/data.bin", "data.bin", "modified", "run_shell", "big"),
            NotRestorable("/w/.git", ".git", "modified", "run_shell", "git"),
        ]
    ),
    messages_dropped=9,
)


async def _open_on_commands(pilot: Pilot[Any]) -> None:
    app = pilot.app
    await pilot.pause()

    async def preview(turn: str) -> RewindPreview:
        return COMMANDS_PREVIEW if turn == "t2" else RewindPreview(TURNS[2], messages_dropped=3)

    app.push_screen(RewindPicker(TURNS, preview))
    await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker), "the picker")
    picker = app.screen
    assert isinstance(picker, RewindPicker)
    await wait_for(pilot, lambda: picker.preview is not None, "the first preview")
    await pilot.press("up")
    await wait_for(pilot, lambda: picker.preview is COMMANDS_PREVIEW, "the preview of turn 2")
    await pilot.pause()


def test_rewind_picker_with_what_commands_changed(
    snap_compare: SnapCompare, tmp_path: Path
) -> None:
    """Files run_shell changed, restorable (a mode change, a binary, a recreated file), one in
    .git (flagged), and what is not restorable with why (ignored, too big, git's refs)."""
    assert snap_compare(demo_app(tmp_path), terminal_size=(120, 36), run_before=_open_on_commands)
