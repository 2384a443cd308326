"""The permission prompt itself: what it asks about, its keys, its layout on small terminals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.containers import VerticalScroll
from textual.errors import NoWidget
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Input, Static

from agent_tui.core.permissions import ApprovalRequest, Mode
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.state.paths import config_dir
from agent_tui.ui.app import AgentApp
from agent_tui.ui.approval.choices import ApprovalChoices
from agent_tui.ui.approval.screen import ApprovalScreen, Ask
from agent_tui.ui.shell.bypass_confirm import BypassConfirm

from .helpers import (
    make_agent,
    make_app,
    submit,
    wait_approval,
    wait_armed,
    wait_for,
    wait_idle,
)


def _pipeline_app(tmp_path: Path, turns: list[dict[str, Any]]) -> AgentApp:
    agent = make_agent(tmp_path, turns)
    agent.policy = agent.executor.policy = build_pipeline(tmp_path).pipeline
    return make_app(agent)


def _calls(*calls: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"tool_calls": [dict(c)]} for c in calls] + [{"text": "done"}]


def _edit(call_id: str, path: str, old: str, new: str) -> dict[str, Any]:
    arguments = {"path": path, "old_string": old, "new_string": new}
    return {"id": call_id, "name": "edit_file", "arguments": arguments}


async def test_an_edit_that_cannot_succeed_shows_no_prompt(tmp_path: Path) -> None:
    """Not read yet, then read but old_string not found: two errors, never a prompt."""
    (tmp_path / "app.py").write_text("x = 1\n")
    turns = _calls(
        _edit("unread", "app.py", "x = 1", "x = 2"),
        {"id": "r", "name": "read_file", "arguments": {"path": "app.py"}},
        _edit("missing", "app.py", "y = 1", "y = 2"),
    )
    app = _pipeline_app(tmp_path, turns)
    asked: list[str] = []
    describe = app.desk.describe

    def spy(request: ApprovalRequest) -> Ask:  # the desk describes every ask it shows
        asked.append(request.call.id)
        return describe(request)

    app.desk.describe = spy
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "edit")
        await wait_for(pilot, lambda: not app.busy or asked, "the turn to end (or a prompt)")
        assert asked == []
        calls = app.calls.calls
        assert (calls["unread"].status.value, calls["unread"].code) == ("error", "not_read")
        assert (calls["missing"].status.value, calls["missing"].code) == ("error", "not_found")
        assert "read_file" in calls["unread"].next_step
    assert asked == []
    assert (tmp_path / "app.py").read_text() == "x = 1\n"


def _shell(call_id: str, command: str) -> dict[str, Any]:
    return {"id": call_id, "name": "run_shell", "arguments": {"command": command}}


def _settings_files(tmp_path: Path) -> dict[Path, object]:
    """The project's settings files byte for byte, and the permissions of the user's (the app
    may save the theme there when it quits; that is not a permission)."""
    found: dict[Path, object] = {
        p: p.read_bytes() for p in (tmp_path / ".agent-tui").rglob("*") if p.is_file()
    }
    user = config_dir() / "settings.json"
    found[user] = json.loads(user.read_text()).get("permissions") if user.exists() else None
    return found


async def test_s_allows_for_this_session_writes_no_file_and_deny_still_wins(
    tmp_path: Path,
) -> None:
    (tmp_path / ".agent-tui").mkdir()
    settings = {"permissions": {"deny": ["run_shell(echo three)"]}}
    (tmp_path / ".agent-tui" / "settings.json").write_text(json.dumps(settings))
    before = _settings_files(tmp_path)
    turns = _calls(
        _shell("one", "echo one"), _shell("two", "echo two"), _shell("three", "echo three")
    )
    app = _pipeline_app(tmp_path, turns)
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "go")
        screen = await wait_approval(pilot)
        assert screen.always == "run_shell(echo:*)"
        choices = screen.query_one("#choices", ApprovalChoices)
        assert "Allow for this session" in choices.label("session").plain
        assert "s: this session only" in str(screen.query_one("#hint", Static).render())
        await pilot.press("s")
        await wait_idle(pilot)  # "echo two" ran without a prompt
        calls = app.calls.calls
        assert [calls[i].status.value for i in ("one", "two")] == ["ok", "ok"]
        assert (calls["three"].status.value, calls["three"].rejected_by) == ("rejected", "rule")
        assert not app.desk.pending
    assert _settings_files(tmp_path) == before  # byte for byte, and no settings.local.json
    # a new session asks again
    again = _pipeline_app(tmp_path, _calls(_shell("one", "echo one")))
    async with again.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "go")
        await wait_approval(pilot)
        await pilot.press("n")
        await wait_idle(pilot)


def _long_write(tmp_path: Path, lines: int = 100) -> list[dict[str, Any]]:
    """A write_file over a file of ``lines`` lines with ``lines`` new ones: a ~2×lines diff."""
    (tmp_path / "big.txt").write_text("".join(f"old line {n}\n" for n in range(lines)))
    content = "".join(f"new line {n}\n" for n in range(lines))
    return _calls(
        {"id": "w", "name": "write_file", "arguments": {"path": "big.txt", "content": content}}
    )


def _on_screen(screen: ApprovalScreen, widget: Widget) -> bool:
    """``widget`` lies inside the terminal and is what the screen shows at its first cell."""
    region = widget.region
    if not region or not Region(0, 0, *screen.size).contains_region(region):
        return False
    try:
        shown, _ = screen.get_widget_at(region.x, region.y)
    except NoWidget:
        return False
    return shown is widget or widget in shown.ancestors


CHOICES = ("#choices", "#hint")


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])
async def test_a_long_diff_scrolls_and_the_choices_stay_on_screen(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = _pipeline_app(tmp_path, _long_write(tmp_path))
    async with app.run_test(size=size) as pilot:
        await submit(pilot, "rewrite")
        screen = await wait_approval(pilot)
        choices = [screen.query_one(selector) for selector in CHOICES]
        await wait_for(
            pilot, lambda: all(_on_screen(screen, c) for c in choices), "the choices on screen"
        )
        details = screen.query_one("#details", VerticalScroll)
        await wait_for(pilot, lambda: details.max_scroll_y > 0, "the diff to scroll")
        assert details.virtual_size.height > 200  # the whole diff is there, not cut
        await wait_for(  # the layout settles (a loaded machine paints in between)
            pilot,
            lambda: details.region.bottom <= min(c.region.y for c in choices),
            "the diff to end above the choices",
        )
        places = [c.region for c in choices]

        async def scrolled(key: str, expect: Any) -> None:
            await pilot.press(key)
            await wait_for(pilot, lambda: expect(details.scroll_y), f"{key} to scroll the diff")
            assert [c.region for c in choices] == places  # the choices stay put
            assert all(_on_screen(screen, c) for c in choices)

        await scrolled("end", lambda y: y == details.max_scroll_y)
        await scrolled("home", lambda y: y == 0)
        await scrolled("pagedown", lambda y: y >= details.region.height - 1)
        page = details.scroll_y
        await scrolled("down", lambda y: y == page + 1)
        await scrolled("up", lambda y: y == page)
        await scrolled("pageup", lambda y: y == 0)
        assert "scroll" in str(screen.query_one("#dialog").border_subtitle)
        assert app.screen is screen  # the keys scrolled; none of them answered
        await pilot.press("y")
        await wait_idle(pilot)
    assert (tmp_path / "big.txt").read_text().startswith("new line 0\n")


def _write(call_id: str, path: str) -> dict[str, Any]:
    return {"id": call_id, "name": "write_file", "arguments": {"path": path, "content": "x\n"}}


async def test_esc_in_the_feedback_field_goes_back_to_the_choices(tmp_path: Path) -> None:
    app = _pipeline_app(tmp_path, _calls(_write("w1", "a.txt"), _write("w2", "b.txt")))
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "write")
        screen = await wait_approval(pilot)
        dialog, field = screen.query_one("#dialog"), screen.query_one("#feedback", Input)
        hint = screen.query_one("#hint", Static)
        await pilot.press("f")
        assert dialog.has_class("-feedback")
        assert field.has_focus
        await pilot.press(*"use c.txt")
        await pilot.press("escape")
        assert app.screen is screen  # not denied: back to the choices
        assert not dialog.has_class("-feedback")
        assert not field.has_focus
        assert "n or esc denies" in str(hint.render())
        await pilot.press("f")  # what was typed is still there
        assert field.value == "use c.txt"
        assert "esc goes back to the choices" in str(hint.render())
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.calls.calls["w1"].status.value == "rejected", "w1")
        assert app.calls.calls["w1"].feedback == "use c.txt"
        # the second: f, then esc twice denies, as esc on the choices always does
        second = await wait_approval(pilot)
        assert second is not screen
        await pilot.press("f", *"never mind", "escape")
        assert app.screen is second
        await pilot.press("escape")
        await wait_idle(pilot)
        call = app.calls.calls["w2"]
        assert (call.status.value, call.feedback, call.rejected_by) == ("rejected", None, "you")
    assert not (tmp_path / "a.txt").exists()
    assert not (tmp_path / "b.txt").exists()


async def test_shift_tab_in_the_prompt_switches_the_mode_and_the_edit_runs(
    tmp_path: Path,
) -> None:
    app = _pipeline_app(tmp_path, _calls(_write("w", "a.txt")))
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "write")
        screen = await wait_approval(pilot)
        await pilot.press("shift+tab")
        assert app.main.status.mode == "accept-edits"
        await wait_idle(pilot)  # accept-edits allows an edit inside the workspace: it ran
        assert app.screen is not screen
        call = app.calls.calls["w"]
        assert call.status.value == "ok"
        assert call.allowed_by == "accept-edits mode"
        card = app.main.lane.cards["w"]
        await wait_for(
            pilot,
            lambda: "allowed by accept-edits mode" in str(card.view.render()),
            "the card to say what allowed it",
        )
    assert (tmp_path / "a.txt").read_text() == "x\n"


async def test_shift_tab_keeps_asking_when_the_mode_still_asks_then_plan_rejects(
    tmp_path: Path,
) -> None:
    app = _pipeline_app(tmp_path, _calls(_shell("s", "touch made")))
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "touch")
        screen = await wait_approval(pilot)
        await pilot.press("shift+tab")  # accept-edits: a command still asks
        assert app.main.status.mode == "accept-edits"
        assert app.screen is screen
        reason = str(screen.query_one("#reason", Static).render())
        assert reason.startswith("still asks in accept-edits mode")
        await pilot.press("shift+tab")  # plan: only read-only tools run
        assert app.main.status.mode == "plan"
        await wait_idle(pilot)
        call = app.calls.calls["s"]
        assert (call.status.value, call.rejected_by) == ("rejected", "plan mode")
    assert not (tmp_path / "made").exists()


async def _confirm(pilot: Any) -> BypassConfirm:
    return await wait_armed(pilot, BypassConfirm, "the bypass confirmation")


async def test_cycling_into_bypass_asks_first_and_any_other_key_skips_it(
    tmp_path: Path,
) -> None:
    app = _pipeline_app(tmp_path, _calls())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("shift+tab", "shift+tab")
        assert app.main.status.mode == "plan"
        await pilot.press("shift+tab")
        confirm = await _confirm(pilot)
        text = " ".join(str(s.render()) for s in confirm.query(Static))
        assert "without asking" in text
        assert "deny rules" in text
        assert "protected paths" in text
        assert "default mode instead" in text  # what cancelling does
        assert app.main.status.mode == "plan"  # not yet
        assert app.agent.policy.mode is Mode.PLAN
        await pilot.press("n")
        await wait_for(pilot, lambda: app.main.status.mode == "default", "the cycle to skip it")
        assert app.agent.policy.mode is Mode.DEFAULT
        await pilot.press("shift+tab", "shift+tab", "shift+tab")
        await _confirm(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: app.main.status.mode == "bypass", "bypass")
        assert app.agent.policy.mode is Mode.BYPASS
        await pilot.press("shift+tab")  # leaving bypass needs no confirmation
        assert app.main.status.mode == "default"


async def test_the_palette_picker_asks_before_bypass_and_cancel_stays(tmp_path: Path) -> None:
    app = _pipeline_app(tmp_path, _calls())
    async with app.run_test(size=(80, 24)) as pilot:
        app.set_mode(Mode.BYPASS)  # what the palette's "Permission mode" entry calls
        confirm = await _confirm(pilot)
        assert "stay in default mode" in str(confirm.query_one("#keys", Static).render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, BypassConfirm), "closed")
        assert app.agent.policy.mode is Mode.DEFAULT
        assert app.main.status.mode == "default"
        app.set_mode(Mode.BYPASS)
        await _confirm(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: app.agent.policy.mode is Mode.BYPASS, "bypass")


async def test_shift_tab_into_bypass_from_an_open_prompt_confirms_then_runs_it(
    tmp_path: Path,
) -> None:
    """An ask rule makes a listing ask in every mode but bypass; the prompt is open while the
    mode cycles through all four, the bypass confirmation opening over it."""
    (tmp_path / "docs").mkdir()
    (tmp_path / ".agent-tui").mkdir()
    settings = {"permissions": {"ask": ["list_dir(docs)"]}}
    (tmp_path / ".agent-tui" / "settings.json").write_text(json.dumps(settings))
    listing = {"id": "r", "name": "list_dir", "arguments": {"path": "docs"}}
    app = _pipeline_app(tmp_path, _calls(listing))
    async with app.run_test(size=(80, 24)) as pilot:
        app.agent.policy.set_mode(Mode.PLAN)
        app.mode = "plan"  # the app holds the state; the status bar binds it
        await submit(pilot, "list")
        prompt = await wait_approval(pilot)
        await pilot.press("shift+tab")  # plan → bypass: confirm first
        await _confirm(pilot)
        await pilot.press("n")  # skipped: default, where the ask rule still asks
        await wait_for(pilot, lambda: app.screen is prompt, "back to the prompt")
        assert app.main.status.mode == "default"
        reason = str(prompt.query_one("#reason", Static).render())
        assert reason.startswith("still asks in default mode")
        await pilot.press("shift+tab", "shift+tab")  # accept-edits, plan: it still asks
        assert app.main.status.mode == "plan"
        assert app.screen is prompt
        await pilot.press("shift+tab")
        await _confirm(pilot)
        await pilot.press("y")
        await wait_idle(pilot)
        assert app.main.status.mode == "bypass"
        assert app.screen is app.main
        call = app.calls.calls["r"]
        assert (call.status.value, call.allowed_by) == ("ok", "bypass mode"), call.content


async def test_a_click_on_a_row_answers_as_its_key_and_the_row_under_the_mouse_lights(
    tmp_path: Path,
) -> None:
    """The answers are rows of one widget: hovering one highlights it; a click on the note
    (why "always" is not offered) or past a row's end does nothing; a click on "Deny"
    denies; a click on "Allow once" allows."""
    turns = _calls(_shell("one", "x=$(printf touch); $x one.txt"), _write("two", "two.txt"))
    app = _pipeline_app(tmp_path, turns)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "go")
        screen = await wait_approval(pilot)
        choices = screen.query_one("#choices", ApprovalChoices)
        assert choices.choices == ["allow", "deny", "feedback"]  # no always / session
        await wait_for(pilot, lambda: choices.size.height >= 5, "the rows laid out")
        rows = {
            choice: next(y for y in range(choices.size.height) if choices.answer_at(y) == choice)
            for choice in choices.choices
        }
        assert rows["allow"] == 0
        assert rows["deny"] > rows["allow"] + 1  # the note between
        await pilot.hover(choices, offset=(3, rows["deny"]))
        await wait_for(pilot, lambda: choices.hovered == rows["deny"], "the hover")
        assert "Deny" in str(choices.render()).splitlines()[rows["deny"]]
        await pilot.hover(choices, offset=(3, rows["allow"] + 1))  # the note: not an answer
        await wait_for(pilot, lambda: choices.hovered is None, "no hover on the note")
        await pilot.click(choices, offset=(3, rows["allow"] + 1))
        await pilot.click(choices, offset=(choices.size.width - 1, rows["allow"]))  # past it
        await pilot.pause()
        assert app.screen is screen
        assert app.calls.calls["one"].status.value != "rejected"
        await pilot.click(choices, offset=(3, rows["deny"]))
        await wait_for(pilot, lambda: app.calls.calls["one"].status.value == "rejected", "deny")
        assert app.calls.calls["one"].rejected_by == "you"
        second = await wait_approval(pilot)
        assert second is not screen
        again = second.query_one("#choices", ApprovalChoices)
        await pilot.click(again, offset=(3, 0))
        await wait_idle(pilot)
        assert app.calls.calls["two"].status.value == "ok"
    assert not (tmp_path / "one.txt").exists()
    assert (tmp_path / "two.txt").read_text() == "x\n"


async def test_keys_typed_right_after_f_go_into_the_field_and_answer_nothing(
    tmp_path: Path,
) -> None:
    """f, then "s" and "y" in the same burst (a fast typist, keys queued while the app was
    busy): the field has focus before the next key is read, so "sy" is feedback text, not
    "allow for this session" and "allow once"."""
    app = _pipeline_app(tmp_path, _calls(_write("w", "a.txt")))
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "write")
        screen = await wait_approval(pilot)
        for key in "fsy":  # queued together, before the app handles the first
            app.post_message(events.Key(key, key))
        field = screen.query_one("#feedback", Input)
        await wait_for(
            pilot, lambda: field.value == "sy" or app.screen is not screen, "the three keys"
        )
        assert app.screen is screen, "a key typed for the field answered the prompt"
        assert field.value == "sy"
        assert app.calls.calls["w"].status.value not in ("ok", "running")
        await pilot.press("enter")
        await wait_idle(pilot)
        call = app.calls.calls["w"]
        assert (call.status.value, call.feedback) == ("rejected", "sy")
    assert not (tmp_path / "a.txt").exists()
