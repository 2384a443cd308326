"""Copying: the desktop's clipboard tool when one is there (wl-copy, xclip, xsel, pbcopy),
OSC 52 always, and a notification that says which. The tools here are real subprocesses:
fake ones, in a directory that is all of ``PATH``, that keep what they read."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from agent_tui.core.events import Event, ToolResult, UserMessage
from agent_tui.ui.common import clipboard
from agent_tui.ui.common.clipboard import OSC52, Tool, run_tool, system_copy, tools

from .helpers import SIZE, feed, make_agent, make_app, use, wait_for

TEXT = "naïve café 日本語 🙂\r\nTabs\tand trailing spaces   \n\x00 a NUL, and no final newline"


def fake_tool(bin_dir: Path, name: str, *, exit_code: int = 0, hang: bool = False) -> Path:
    """An executable ``name`` that writes what it reads, and its arguments, beside itself."""
    script = bin_dir / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys, time\n"
        f"open({str(bin_dir / (name + '.args'))!r}, 'w').write(repr(sys.argv[1:]))\n"
        f"data = sys.stdin.buffer.read()\n"
        f"open({str(bin_dir / (name + '.out'))!r}, 'wb').write(data)\n"
        + ("time.sleep(60)\n" if hang else "")
        + f"sys.exit({exit_code})\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory that is the whole ``PATH``."""
    path = tmp_path / "bin"
    path.mkdir()
    monkeypatch.setenv("PATH", str(path))
    return path


def received(bin_dir: Path, name: str) -> bytes | None:
    out = bin_dir / f"{name}.out"
    return out.read_bytes() if out.exists() else None


def test_the_tool_is_chosen_by_the_display_and_what_is_on_path(
    bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("wl-copy", "xclip", "xsel", "pbcopy"):
        fake_tool(bin_dir, name)
    assert tools() == []  # no display, not macOS: nothing to try
    monkeypatch.setenv("DISPLAY", ":0")
    assert [t.name for t in tools()] == ["xclip", "xsel"]
    assert tools()[0].argv == (str(bin_dir / "xclip"), "-selection", "clipboard")
    assert tools()[1].argv == (str(bin_dir / "xsel"), "--clipboard", "--input")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert [t.name for t in tools()] == ["wl-copy", "xclip", "xsel"]  # XWayland after
    (bin_dir / "wl-copy").unlink()
    (bin_dir / "xclip").unlink()
    assert [t.name for t in tools()] == ["xsel"]
    monkeypatch.delenv("DISPLAY")
    monkeypatch.delenv("WAYLAND_DISPLAY")
    monkeypatch.setattr(clipboard, "PLATFORM", "darwin")
    assert [t.name for t in tools()] == ["pbcopy"]
    (bin_dir / "pbcopy").unlink()
    assert tools() == []
    (bin_dir / "xsel").chmod(0o644)  # not executable: not a tool
    monkeypatch.setenv("DISPLAY", ":0")
    assert tools() == []


@pytest.mark.parametrize(
    ("display", "name", "argv"),
    [
        ("WAYLAND_DISPLAY", "wl-copy", []),
        ("DISPLAY", "xclip", ["-selection", "clipboard"]),
        ("DISPLAY", "xsel", ["--clipboard", "--input"]),
    ],
)
async def test_the_text_reaches_the_tool_byte_for_byte(
    bin_dir: Path, monkeypatch: pytest.MonkeyPatch, display: str, name: str, argv: list[str]
) -> None:
    fake_tool(bin_dir, name)
    monkeypatch.setenv(display, ":1")
    assert await system_copy(TEXT) == name
    assert received(bin_dir, name) == TEXT.encode("utf-8")
    assert (bin_dir / f"{name}.args").read_text() == repr(argv)


async def test_a_failing_tool_falls_back_to_the_next_and_then_to_osc52(
    bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    monkeypatch.setenv("DISPLAY", ":0")
    fake_tool(bin_dir, "wl-copy", exit_code=1)  # e.g. no compositor answers
    fake_tool(bin_dir, "xclip")
    assert await system_copy("hello") == "xclip"
    assert received(bin_dir, "xclip") == b"hello"
    fake_tool(bin_dir, "xclip", exit_code=1)
    assert await system_copy("hello") == OSC52


async def test_a_tool_that_hangs_is_killed(bin_dir: Path) -> None:
    tool = Tool("wl-copy", (str(fake_tool(bin_dir, "wl-copy", hang=True)),))
    assert not await run_tool(tool, "text", seconds=1.0)
    assert received(bin_dir, "wl-copy") == b"text"  # it read it, but never said it was done


async def test_copying_a_card_says_which_way_it_went(
    bin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[Event] = [
        UserMessage(text="go"),
        use("a", "read_file", path="a.py"),
        ToolResult(id="a", name="read_file", content="1\talpha\n2\tbeta", elapsed=0.01),
    ]
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await feed(app, events)
        assert app.main.lane.focus_lane()
        await pilot.pause()

        def said() -> list[str]:
            return [n.message for n in app._notifications]

        await pilot.press("c")  # nothing on PATH, no display: OSC 52 alone
        await wait_for(pilot, lambda: any("OSC 52" in n for n in said()), "the notification")
        assert app.clipboard == "1\talpha\n2\tbeta"
        assert said()[-1] == (
            "Copied 2 lines of read_file via OSC 52 — your terminal may not allow it."
        )
        fake_tool(bin_dir, "wl-copy")
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
        await pilot.press("c")
        await wait_for(pilot, lambda: any("wl-copy" in n for n in said()), "the notification")
        assert said()[-1] == "Copied 2 lines of read_file via wl-copy."
        assert received(bin_dir, "wl-copy") == b"1\talpha\n2\tbeta"
