"""Ctrl+X Ctrl+E: the prompt in $VISUAL / $EDITOR and back. Under Pilot the app cannot
suspend, so the editor (a script here) runs without the terminal, in a thread."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.ui.shell.external_editor import CHORD_HINT, EditorChord, editor_command

from .helpers import SIZE, make_agent, make_app, wait_for


def edited_file(tmp_path: Path) -> Path:
    """The file the editor script was given (it records its path)."""
    return Path((tmp_path / "edited-path").read_text())


def gone(path: Path) -> bool:
    return not path.exists()


def editor(tmp_path: Path, body: str) -> Path:
    """An executable ``#!/bin/sh`` editor script; it records the file it was given in
    ``edited-path``."""
    script = tmp_path / "fake-editor"
    script.write_text(f'#!/bin/sh\nprintf %s "$1" > "{tmp_path}/edited-path"\n{body}\n')
    script.chmod(0o755)
    return script


@pytest.fixture
def use_editor(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):  # type: ignore[no-untyped-def]
    def use(body: str) -> Path:
        script = editor(tmp_path, body)
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.setenv("EDITOR", str(script))
        return script

    return use


async def test_the_editor_round_trip_puts_the_saved_text_in_the_prompt(
    tmp_path: Path, use_editor
) -> None:  # type: ignore[no-untyped-def]
    use_editor('echo "and a line from the editor" >> "$1"')
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main.prompt
        prompt.insert("my draft")
        await pilot.press("ctrl+x")
        assert prompt.border_subtitle == CHORD_HINT
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: "editor" in prompt.text, "the edited text in the prompt")
        assert prompt.text == "my draft\nand a line from the editor"
        assert prompt.border_subtitle == ""
        assert prompt.cursor_location == prompt.document.end
        edited = edited_file(tmp_path)
        assert edited.suffix == ".md"
        assert gone(edited)  # the temporary file is removed


async def test_an_editor_that_fails_leaves_the_prompt_unchanged_and_says_so(
    tmp_path: Path, use_editor
) -> None:  # type: ignore[no-untyped-def]
    use_editor('echo "scribbled" >> "$1"\necho "E37: No write since last change" >&2\nexit 1')
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main.prompt
        prompt.insert("keep me")
        await pilot.press("ctrl+x", "ctrl+e")
        await wait_for(pilot, lambda: app._notifications, "a notice")
        notice = next(iter(app._notifications))
        assert "exited with 1" in notice.message
        assert "E37" in notice.message
        assert "unchanged" in notice.message
        assert prompt.text == "keep me"
        assert gone(edited_file(tmp_path))


async def test_an_editor_that_cannot_start_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", str(tmp_path / "no-such-editor") + " --wait")
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        app.main.prompt.insert("text")
        await pilot.press("ctrl+x", "ctrl+e")
        await wait_for(pilot, lambda: app._notifications, "a notice")
        notice = next(iter(app._notifications))
        assert "cannot be started" in notice.message
        assert "$VISUAL" in notice.message
        assert app.main.prompt.text == "text"


async def test_ctrl_x_without_ctrl_e_still_cuts(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main.prompt
        prompt.insert("a whole line")
        await pilot.press("ctrl+x", "z")  # the line cut, then z typed
        assert prompt.text == "z"
        assert prompt.border_subtitle == ""
        prompt.clear()
        prompt.insert("abc def")
        prompt.select_all()
        await pilot.press("ctrl+x")  # a selection is cut at once
        assert prompt.text == ""
        assert prompt.border_subtitle == ""


def test_the_chord_reads_two_keys() -> None:
    chord = EditorChord()
    assert chord.feed("a", selection=False) == "pass"
    assert chord.feed("ctrl+x", selection=True) == "pass"
    assert chord.feed("ctrl+x", selection=False) == "armed"
    assert chord.feed("ctrl+e", selection=False) == "edit"
    assert chord.feed("ctrl+e", selection=False) == "pass"  # alone: end of line, as before
    assert chord.feed("ctrl+x", selection=False) == "armed"
    assert chord.feed("ctrl+x", selection=False) == "cut-only"
    assert chord.feed("ctrl+x", selection=False) == "armed"
    assert chord.feed("left", selection=False) == "cut"


def test_visual_wins_over_editor_and_is_split_like_a_shell() -> None:
    env = {"VISUAL": "code --wait -n", "EDITOR": "nano"}
    assert editor_command(env) == (["code", "--wait", "-n"], "$VISUAL")
    assert editor_command({"EDITOR": "'my editor' -f"}) == (["my editor", "-f"], "$EDITOR")
    assert editor_command({"VISUAL": "  "}, which=lambda _: "/usr/bin/vi") == (
        ["vi"],
        "the fallback",
    )
    assert editor_command({}, which=lambda _: None) is None
