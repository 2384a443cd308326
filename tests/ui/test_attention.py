"""Calling the user back (``ui.shell.attention``): a notification written to the terminal when
a turn ends or a call waits for approval while the terminal is not focused, none while it is;
the title's waiting mark; the ``ui.notify`` values; tmux (off unless it passes them through)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from agent_tui.core.agent.agent import Agent
from agent_tui.core.settings import UISettings
from agent_tui.ui.app import AgentApp
from agent_tui.ui.shell.attention import (
    WAITING_MARK,
    resolve,
    sequence,
    title_sequence,
    tmux_passthrough,
)

from .helpers import SIZE, make_agent, make_app, wait_approval, wait_for, wait_idle


def _agent(tmp_path: Path, turns: list[dict[str, Any]], notify: str = "osc9") -> Agent:
    agent = make_agent(tmp_path, turns)
    agent.settings.ui = UISettings.model_validate({"notify": notify})
    return agent


def _record(app: AgentApp) -> list[str]:
    """What the app writes to the terminal from now on (the driver's writer, kept working)."""
    driver = app._driver
    assert driver is not None
    written: list[str] = []
    write = driver.write

    def recording(data: str) -> None:
        written.append(data)
        write(data)

    driver.write = recording  # type: ignore[method-assign]
    return written


async def _blur(pilot: Pilot[Any]) -> None:
    app = pilot.app
    app.post_message(events.AppBlur())
    await wait_for(pilot, lambda: not app.app_focus, "the app to lose the focus")


def _titles(written: list[str]) -> list[str]:
    return [w[4:-1] for w in written if w.startswith("\x1b]2;")]


async def test_a_turn_ended_unfocused_is_notified_and_marked_until_focus_returns(
    tmp_path: Path,
) -> None:
    agent = _agent(tmp_path, [{"text": "done"}])
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        written = _record(app)
        await _blur(pilot)
        assert app.send("go")
        await wait_idle(pilot)
        await wait_for(pilot, lambda: any("\x1b]9;" in w for w in written), "the OSC 9")
        assert "\x1b]9;agent-tui: the turn is done, waiting for your input\a" in written
        assert _titles(written)[-1] == f"{WAITING_MARK}agent-tui · {tmp_path.name}"
        app.post_message(events.AppFocus())
        await wait_for(pilot, lambda: _titles(written)[-1] == f"agent-tui · {tmp_path.name}", "")
    await agent.close()


async def test_a_turn_ended_focused_sends_nothing(tmp_path: Path) -> None:
    agent = _agent(tmp_path, [{"text": "done"}, {"text": "again"}], notify="bell")
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        written = _record(app)
        assert app.app_focus
        assert app.send("go")
        await wait_idle(pilot)
        await wait_for(pilot, lambda: not app.busy and app.main.chat.is_attached, "the end")
        await pilot.pause()
        assert "\a" not in written
        assert not any(w.startswith("\x1b]9;") for w in written)
        assert app.turns.attention.title() == f"agent-tui · {tmp_path.name}"
        assert app.turns.attention.sent == []
    await agent.close()


async def test_a_call_waiting_for_approval_unfocused_is_notified_and_marked(
    tmp_path: Path,
) -> None:
    call = {"id": "w", "name": "write_file", "arguments": {"path": "a.txt", "content": "x"}}
    agent = _agent(tmp_path, [{"tool_calls": [call]}, {"text": "done"}], notify="osc777")
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        written = _record(app)
        await _blur(pilot)
        assert app.send("go")
        await wait_approval(pilot)
        await wait_for(pilot, lambda: app.turns.attention.sent == ["osc777"], "the OSC 777")
        assert "\x1b]777;notify;agent-tui;a call waits for your approval\a" in written
        assert _titles(written)[-1].startswith(WAITING_MARK)
        await pilot.press("n")  # a key: the terminal has the focus again
        await wait_idle(pilot)
        assert app.app_focus
        assert app.turns.attention.title() == f"agent-tui · {tmp_path.name}"
        assert _titles(written)[-1] == f"agent-tui · {tmp_path.name}"
        assert app.turns.attention.sent == ["osc777"]  # the turn ended seen: not said
    await agent.close()


async def test_notify_off_sends_nothing_and_the_title_can_be_left_alone(tmp_path: Path) -> None:
    agent = _agent(tmp_path, [{"text": "done"}], notify="off")
    agent.settings.ui.title = False
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        written = _record(app)
        await _blur(pilot)
        assert app.send("go")
        await wait_idle(pilot)
        await wait_for(pilot, lambda: app.turns.attention.unseen, "the turn seen as unseen")
        assert not [w for w in written if w == "\a" or w.startswith(("\x1b]9", "\x1b]777"))]
        assert _titles(written) == []
    await agent.close()


def test_the_setting_resolves_per_terminal() -> None:
    assert resolve("auto", {"TERM_PROGRAM": "iTerm.app"}, False) == "osc9"
    assert resolve("auto", {"TERM_PROGRAM": "WezTerm"}, False) == "osc9"
    assert resolve("auto", {"TERM": "xterm-kitty"}, False) == "osc9"
    assert resolve("auto", {"TERM_PROGRAM": "ghostty"}, False) == "osc9"
    assert resolve("auto", {"TERM": "foot"}, False) == "osc777"
    assert resolve("auto", {"TERM": "xterm-256color"}, False) == "bell"
    assert resolve("auto", {}, False) == "bell"
    for value in ("osc9", "osc777", "bell", "off"):
        assert resolve(value, {"TERM": "xterm"}, False) == value  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="notify"):
        UISettings.model_validate({"notify": "loud"})


def test_tmux_gets_the_bell_unless_it_passes_sequences_through() -> None:
    tmux = {"TMUX": "/tmp/tmux-1/default,1,0", "TERM_PROGRAM": "tmux"}
    assert resolve("auto", tmux, True) == "bell"
    assert resolve("osc9", tmux, False) == "bell"
    assert resolve("osc777", tmux, False) == "bell"
    assert resolve("osc9", tmux, True) == "osc9"
    assert resolve("off", tmux, True) == "off"
    wrapped = sequence("osc9", "agent-tui", "done", tmux=True)
    assert wrapped == "\x1bPtmux;\x1b\x1b]9;agent-tui: done\a\x1b\\"


def test_a_message_cannot_end_its_sequence_early() -> None:
    evil = "x\x1b]2;owned\a\x1b[31m;y"
    osc = sequence("osc777", "a;b", evil)
    assert osc.count("\x1b") == 1
    assert osc.count("\a") == 1
    assert osc.startswith("\x1b]777;notify;a,b;")
    assert title_sequence("t\x07\x1bx").count("\x1b") == 1


@pytest.mark.skipif(shutil.which("tmux") is None, reason="no tmux")
def test_the_tmux_probe_reads_allow_passthrough(tmp_path: Path) -> None:
    socket = tmp_path / "tmux.sock"
    base = ["tmux", "-S", str(socket)]
    subprocess.run([*base, "-f", "/dev/null", "new", "-d", "-s", "n41", "sleep 600"], check=True)
    try:
        pane = subprocess.run(
            [*base, "display", "-p", "-t", "n41", "#{pane_id}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        env = {**os.environ, "TMUX": f"{socket},1,0", "TMUX_PANE": pane}
        subprocess.run([*base, "set", "-g", "allow-passthrough", "off"], check=True)
        assert not asyncio.run(tmux_passthrough(env))
        subprocess.run([*base, "set", "-g", "allow-passthrough", "on"], check=True)
        assert asyncio.run(tmux_passthrough(env))
    finally:
        subprocess.run([*base, "kill-server"], check=False)
    assert not asyncio.run(tmux_passthrough({**os.environ, "TMUX": f"{tmp_path / 'none'},1,0"}))
