"""Images in the app: an ``@`` mention, a pasted path and Ctrl+V attach them; the prompt shows
them waiting (removable); the chat shows a chip (live and after resume); the model gets them.
Clipboard tools run for real from a PATH made for the test (or an empty one)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from textual import events

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import AssistantMessage, TurnEnd, UserMessage
from agent_tui.core.images.prepare import prepare_image
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.chat import UserPrompt
from tests.core.images.pictures import picture

from .helpers import make_app, submit, wait_for, wait_idle
from .test_snapshots import WIDE, SnapCompare, demo_app, feeding


def _agent(
    cwd: Path, store: SessionStore | None = None, session: SessionLog | None = None
) -> Agent:
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": [{"text": "Seen."}] * 3}), encoding="utf-8")
    return Agent(
        ScriptProvider(script),
        default_registry(),
        cwd,
        policy=SimplePolicy(),
        session=session,
        sessions=store,
        system="test",
    )


def _chips(app: Any) -> list[list[str]]:
    return [[ref.label for ref in p.images] for p in app.main.chat.query(UserPrompt)]


def _sent(agent: Agent) -> list[list[str]]:
    """The images each request carried (names), and that their bytes went with them."""
    provider = agent.provider
    assert isinstance(provider, ScriptProvider)
    out = []
    for request in provider.requests:
        refs = [ref for m in request.messages for ref in m.images]
        assert all(ref.digest in request.images for ref in refs)
        out.append([ref.name for ref in refs])
    return out


def _notices(app: Any) -> list[str]:
    return [n.message for n in app._notifications]


async def test_an_at_image_is_sent_and_its_chip_survives_resume(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(picture(120, 80))
    store = SessionStore(tmp_path / "sessions")
    log = store.new(tmp_path, "script")
    agent = _agent(tmp_path, store, log)
    app = make_app(agent)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "what is in @shot.png?")
        await wait_idle(pilot)
        assert _sent(agent) == [["shot.png"]]
        (label,) = _chips(app)[0]
        assert label.startswith("shot.png · 120×80 · ")
        assert "▣ shot.png · 120×80" in str(app.main.chat.query_one(UserPrompt).render())
    await agent.close()

    resumed = _agent(tmp_path, store, SessionLog.load(log.path))
    app = make_app(resumed, session=resumed.describe())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: bool(_chips(app)), "the resumed prompt")
        assert _chips(app) == [[label]]
        await submit(pilot, "and again?")
        await wait_idle(pilot)
        assert _sent(resumed) == [["shot.png"]]  # the image is sent again after resume
    await resumed.close()


async def test_a_pasted_path_attaches_waits_in_the_tray_and_goes_with_enter(
    tmp_path: Path,
) -> None:
    shot = tmp_path / "drop me.png"
    shot.write_bytes(picture(64, 32))
    agent = _agent(tmp_path)
    app = make_app(agent)
    async with app.run_test(size=(120, 36)) as pilot:
        prompt = app.main.prompt
        prompt.focus()
        app.post_message(events.Paste(f"'{shot}'"))
        await wait_for(pilot, lambda: prompt.tray.display, "the tray with the pasted image")
        assert len(prompt.tray.images) == 1
        assert prompt.text == ""  # attached, not pasted as text
        app.post_message(events.Paste("plain words"))
        await wait_for(pilot, lambda: prompt.text == "plain words", "the pasted text")
        await pilot.press("enter")
        await wait_idle(pilot)
        assert _sent(agent) == [[str(shot)]]  # outside the cwd: named by its whole path
        assert not prompt.tray.images
        await wait_for(pilot, lambda: not prompt.tray.display, "the tray emptied")
        assert len(_chips(app)[0]) == 1
    await agent.close()


async def test_backspace_at_the_start_takes_the_last_image_off(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    app = make_app(agent)
    async with app.run_test(size=(120, 36)) as pilot:
        prompt = app.main.prompt
        prompt.focus()
        await prompt.tray.add(prepare_image(picture(10, 10), "a.png"))
        await prompt.tray.add(prepare_image(picture(12, 10), "b.png"))
        await pilot.press("backspace")
        assert [i.ref.name for i in prompt.tray.images] == ["a.png"]
        await pilot.press("x", "backspace")  # not at the start: deletes text
        assert [i.ref.name for i in prompt.tray.images] == ["a.png"]
        await pilot.press("backspace")
        assert prompt.tray.images == []
    await agent.close()


async def test_a_broken_image_path_is_said_and_pasted_as_text(tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(picture(200, 200)[:300])
    agent = _agent(tmp_path)
    app = make_app(agent)
    async with app.run_test(size=(120, 36)) as pilot:
        prompt = app.main.prompt
        prompt.focus()
        app.post_message(events.Paste(str(broken)))
        await wait_for(pilot, lambda: prompt.text == str(broken), "the path as text")
        assert prompt.tray.images == []
        assert any("damaged image" in n for n in _notices(app))
    await agent.close()


@pytest.fixture
def tool_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory as the whole PATH (no wl-paste, xclip, pngpaste)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    return folder


async def test_ctrl_v_without_a_clipboard_tool_names_the_tools(tmp_path: Path, tool_path) -> None:
    agent = _agent(tmp_path)
    app = make_app(agent)
    async with app.run_test(size=(120, 36)) as pilot:
        app.main.prompt.focus()
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: _notices(app), "the notice")
        (said,) = _notices(app)
        assert "wl-clipboard" in said
        assert "xclip" in said
        assert "pngpaste" in said
        assert app.main.prompt.tray.images == []
    await agent.close()


async def test_ctrl_v_attaches_the_clipboard_image(tmp_path: Path, tool_path: Path) -> None:
    png = tmp_path / "clip.png"
    png.write_bytes(picture(40, 30))
    script = tool_path / "xclip"
    script.write_text(f'#!/bin/sh\nexec /bin/cat "{png}"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    agent = _agent(tmp_path)
    app = make_app(agent)
    async with app.run_test(size=(120, 36)) as pilot:
        prompt = app.main.prompt
        prompt.focus()
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: prompt.tray.images, "the clipboard image")
        assert prompt.tray.images[0].ref.label.startswith("clipboard-1.png · 40×30")
    await agent.close()


CHIP_EVENTS = [
    UserMessage(
        text="what is wrong in this screenshot?",
        images=[
            prepare_image(picture(800, 600), "shot.png").ref,
            prepare_image(picture(1200, 900, "JPEG"), "photo.jpg").ref,
        ],
    ),
    AssistantMessage(text="The button is cut off."),
    TurnEnd(reason="completed", turns=1),
]


def test_user_message_with_image_chips(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    assert snap_compare(app, terminal_size=WIDE, run_before=feeding(CHIP_EVENTS))


def test_images_waiting_in_the_prompt(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def attach(pilot: Any) -> None:
        prompt = pilot.app.main.prompt
        await prompt.tray.add(prepare_image(picture(800, 600), "shot.png"))
        await prompt.tray.add(prepare_image(picture(64, 64), "clipboard-2.png"))
        prompt.insert("why does this fail?")
        await pilot.pause()

    app = demo_app(tmp_path)
    assert snap_compare(app, terminal_size=WIDE, run_before=attach)


async def test_a_pasted_image_inside_the_workspace_is_named_relative_to_it(
    tmp_path: Path,
) -> None:
    from agent_tui.ui.shell.image_tray import images_in_paste

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.png").write_bytes(picture(4, 4))
    images = await images_in_paste(f"file://{tmp_path}/docs/a.png", tmp_path)
    assert images is not None
    assert [image.ref.name for image in images] == ["docs/a.png"]
    assert await images_in_paste("docs/a.png is nice", tmp_path) is None


async def test_a_fork_keeps_the_chip_and_sends_the_image_from_its_own_copy(
    tmp_path: Path,
) -> None:
    (tmp_path / "shot.png").write_bytes(picture(90, 60))
    store = SessionStore(tmp_path / "sessions")
    agent = _agent(tmp_path, store, store.new(tmp_path, "script"))
    app = make_app(agent)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "look at @shot.png")
        await wait_idle(pilot)
        original = agent.session
        assert original is not None
        await app.run_action("fork")
        await wait_for(pilot, lambda: agent.session is not original, "the fork")
        fork = agent.session
        assert fork is not None
        (ref,) = agent.messages[0].images
        assert fork.images.get(ref.digest) == original.images.get(ref.digest)
        assert len(_chips(app)) == 1
        await submit(pilot, "and in the fork?")
        await wait_idle(pilot)
        assert _sent(agent)[-1] == ["shot.png"]
    await agent.close()

    resumed = _agent(tmp_path, store, SessionLog.load(fork.path))
    app = make_app(resumed, session=resumed.describe())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: len(_chips(app)) == 2, "the fork's prompts")
        assert _chips(app)[0] == [ref.label]
    await resumed.close()
