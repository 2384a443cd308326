"""The first frame before the core: ``AgentApp(boot=…)`` paints the shell (header, empty chat
and lane, prompt, status bar with the model and mode) importing no core, builds the core in a
worker, and sends what was typed meanwhile once it is ready."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from textual.widgets import Static

from agent_tui.ui.chat.user_prompt import UserPrompt
from agent_tui.ui.shell.boot import Booted, BootFailed, FirstLook, first_look
from agent_tui.ui.shell.main_screen import MainScreen
from agent_tui.ui.shell.shell_screen import ShellScreen
from agent_tui.ui.shell.shell_status import ShellStatus
from agent_tui.ui.shell.status_bar import StatusBar
from tests.ui.helpers import DEADLINE, SIZE, QuietApp, make_agent, wait_for, wait_idle

SRC = Path(__file__).resolve().parents[2] / "src"

CORE_STACK = (
    "pydantic",
    "httpx",
    "httpx2",
    "mcp",
    "markdown_it",
    "agent_tui.core.agent.agent",
    "agent_tui.core.events",
    "agent_tui.core.budget",
    "agent_tui.core.executor",
    "agent_tui.core.disclosure",
    "agent_tui.core.mcp",
    "agent_tui.core.mcp.client.manager",
    "agent_tui.core.providers",
    "agent_tui.core.permissions",
    "agent_tui.core.conversation.session",
    "agent_tui.core.settings",
    "agent_tui.core.tools",
    "agent_tui.cli.assemble",
    "acp",
    "agent_tui.acp",
    "agent_tui.ui.shell.main_screen",
    "agent_tui.ui.shell.themes",
)


def test_the_tui_shell_imports_none_of_the_core_stack() -> None:
    """What ``cli.main`` imports for the TUI (``cli.main``, ``ui.app``, the boot contract and the
    shell screen) paints the first frame without the core: none of it may come back at import."""
    code = (
        "import sys, agent_tui.cli.main, agent_tui.ui.app, agent_tui.ui.shell.boot,"
        " agent_tui.ui.shell.shell_screen\n"
        f"stack = {CORE_STACK!r}\n"
        "print(','.join(m for m in stack if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    assert result.stdout.strip() == ""


class GatedBoot:
    """A boot that builds a script agent once ``gate`` is set: the test decides when the core
    is ready (no sleeping)."""

    def __init__(self, cwd: Path, turns: list[dict[str, object]]) -> None:
        self.agent = make_agent(cwd, turns)
        self.gate = threading.Event()
        self.started = threading.Event()

    def __call__(self) -> Booted:
        self.started.set()
        assert self.gate.wait(DEADLINE), "the test never let the boot finish"
        return Booted(self.agent, self.agent.describe())


def _opened(app: QuietApp) -> bool:
    """The main screen is up and the boot worker (which opened it) is done."""
    return isinstance(app.screen, MainScreen) and not any(
        w.group == "boot" and not w.is_finished for w in app.workers
    )


def _text(app: QuietApp, selector: str) -> str:
    return str(app.screen.query_one(StatusBar).query_one(selector, Static).render())


def _shell_status(app: QuietApp) -> str:
    """The shell's status line as drawn (one widget, one line)."""
    return app.screen.query_one(ShellStatus).render().plain


async def test_a_message_typed_before_the_core_is_ready_is_queued_then_answered(
    tmp_path: Path,
) -> None:
    boot = GatedBoot(tmp_path, [{"text": "the answer"}])
    look = FirstLook(model="openai:gpt-x", demo=False, mode="plan", cwd="~/project")
    app = QuietApp(boot=boot, first=look)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, boot.started.is_set, "the boot to start")
        shell = app.screen
        assert isinstance(shell, ShellScreen)
        assert not app.ready
        # the status bar of the first frame: the model and the mode, starting
        line = _shell_status(app)
        assert line.startswith("openai:gpt-x  ● starting  mode: plan  0 in · 0 out"), line
        assert line.rstrip().endswith("~/project"), line
        shell.prompt.insert("hello before the core")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(shell.query(".queued")), "the message to be listed")
        assert "hello before the core" in str(shell.query_one(".queued", Static).render())
        assert shell.prompt.text == ""
        shell.prompt.insert("a draft")  # typed, not sent: carried over to the main screen
        assert isinstance(app.screen, ShellScreen)  # nothing switched while the boot waits
        boot.gate.set()
        await wait_for(pilot, lambda: _opened(app), "the main screen to open")
        await wait_for(
            pilot,
            lambda: [p.text for p in app.main.chat.query(UserPrompt)] == ["hello before the core"],
            "the queued message to be sent",
        )
        await wait_idle(pilot)
        assert [m.content for m in app.agent.messages] == ["hello before the core", "the answer"]
        assert app.main.prompt.text == "a draft"
        assert _text(app, "#model") == "script:script.json"  # the real provider's name now
        assert "idle" in _text(app, "#activity")


class TunedApp(QuietApp):
    QUIET_GC = True  # as in a process of its own: the collector is tuned


async def test_the_start_up_heap_is_frozen_before_the_first_frame_and_given_back(
    tmp_path: Path,
) -> None:
    """With the collector tuned, the heap is frozen as the shell mounts (a full collection in
    the first frame walks only what is new), while the core is still being built; typing works
    as before, and the app gives the heap back when it ends."""
    gc.unfreeze()
    boot = GatedBoot(tmp_path, [{"text": "the answer"}])
    app = TunedApp(boot=boot, first=FirstLook(model="demo", demo=True, mode="", cwd="~"))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, boot.started.is_set, "the boot to start")
            assert isinstance(app.screen, ShellScreen)
            assert not app.ready
            assert gc.get_freeze_count() > 0
            # the breakpoint class of its width from the start (no restyle at the first resize)
            assert app.screen.has_class("-wide")
            assert not app.screen.has_class("-narrow")
            await pilot.press(*"typed early")
            boot.gate.set()
            await wait_for(pilot, lambda: _opened(app), "the main screen to open")
            assert app.main.prompt.text == "typed early"
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


async def test_the_command_line_prompt_waits_for_the_core_too(tmp_path: Path) -> None:
    boot = GatedBoot(tmp_path, [{"text": "first"}, {"text": "second"}])
    app = QuietApp(boot=boot, initial_prompt="from argv")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, boot.started.is_set, "the boot to start")
        assert isinstance(app.screen, ShellScreen)
        app.screen.prompt.insert("typed too")
        await pilot.press("enter")
        boot.gate.set()
        await wait_for(
            pilot,
            lambda: app.ready and len(app.agent.messages) == 4,
            "both messages to be answered, in order",
        )
        assert [m.content for m in app.agent.messages] == [
            "from argv",
            "first",
            "typed too",
            "second",
        ]


async def test_a_boot_failure_ends_the_app_with_its_message_and_code(tmp_path: Path) -> None:
    def boot() -> Booted:
        raise BootFailed("unknown model spec 'gpt5': use demo, openai:MODEL, …", 2)

    app = QuietApp(boot=boot)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.boot_failure is not None, "the failure")
    assert app.boot_failure is not None
    assert app.boot_failure.message.startswith("unknown model spec 'gpt5'")
    assert app.return_code == 2
    assert not app.ready


async def test_a_crash_while_booting_is_reported_not_hidden(tmp_path: Path) -> None:
    def boot() -> Booted:
        raise RuntimeError("disk on fire")

    app = QuietApp(boot=boot)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.boot_failure is not None, "the failure")
    assert app.boot_failure is not None
    assert app.boot_failure.message == "start-up failed: RuntimeError: disk on fire"
    assert app.return_code == 1


async def test_keys_of_the_core_do_nothing_before_it_is_ready_and_quit_works(
    tmp_path: Path,
) -> None:
    boot = GatedBoot(tmp_path, [])
    app = QuietApp(boot=boot)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, boot.started.is_set, "the boot to start")
        for key in ("ctrl+l", "ctrl+o", "ctrl+g", "shift+tab", "ctrl+t", "escape", "ctrl+p"):
            await pilot.press(key)
        assert isinstance(app.screen, ShellScreen)
        await pilot.press("ctrl+q")
        boot.gate.set()
    assert app.return_code in (None, 0)


def test_the_first_look_names_the_model_as_the_provider_will(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.core.providers.spec import make_provider

    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(tmp_path / "config"))
    for name in ("AGENT_API_KEY", "AGENT_BASE_URL", "AGENT_MODEL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    script = tmp_path / "s.json"
    script.write_text('{"turns": []}', encoding="utf-8")
    assert first_look(None, None, tmp_path) == FirstLook(
        model="demo", demo=True, mode="", cwd=str(tmp_path)
    )
    look = first_look("script:s.json", "bypass", tmp_path)
    assert (look.model, look.demo, look.mode) == ("script:s.json", False, "bypass")
    assert make_provider("script:s.json", cwd=tmp_path).name == f"script:{script}"
    monkeypatch.setenv("AGENT_API_KEY", "k")
    monkeypatch.setenv("AGENT_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("AGENT_MODEL", "gpt-x")
    for spec in (None, "openai:gpt-y"):
        assert first_look(spec, None, tmp_path).model == make_provider(spec).name
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert first_look("anthropic:", None, tmp_path).model == make_provider("anthropic:").name


async def test_the_first_frame_takes_the_theme_the_user_chose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text('{"ui": {"theme": "agent-light"}}', encoding="utf-8")
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(config))
    look = first_look("demo", None, tmp_path)
    assert look.theme == "agent-light"
    boot = GatedBoot(tmp_path, [])
    app = QuietApp(boot=boot, first=look)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, boot.started.is_set, "the boot to start")
        assert app.theme == "agent-light"
        assert _shell_status(app).startswith(" DEMO  demo")
        boot.gate.set()
        await wait_for(pilot, lambda: _opened(app), "the main screen to open")


def test_an_app_needs_an_agent_or_a_boot() -> None:
    with pytest.raises(TypeError):
        QuietApp()


def test_what_the_parser_writes_out_matches_the_core() -> None:
    """``cli.options`` spells out the permission modes and the turn limit (importing them would
    import the core before the first frame): they must stay the core's."""
    import agent_tui.cli.options as cli
    from agent_tui.core.agent.agent import DEFAULT_MAX_TURNS
    from agent_tui.core.permissions import Mode

    assert tuple(m.value for m in Mode) == cli.PERMISSION_MODES
    assert cli.DEFAULT_MAX_TURNS == DEFAULT_MAX_TURNS


def test_a_bad_model_spec_ends_the_tui_with_the_message_and_code_of_before(
    tmp_path: Path,
) -> None:
    """Through ``cli.main`` on a real terminal: the shell paints, the core fails to build, the app
    ends and ``agent-tui: <why>`` is the last thing on stderr (where Textual's driver writes
    too), exit code 2 — as a headless run says it."""
    import os
    import pty

    master, slave = pty.openpty()
    env = {
        "PYTHONPATH": str(SRC),
        "PATH": "/usr/bin:/bin",
        "TERM": "xterm-256color",
        "HOME": str(tmp_path),
        "AGENT_TUI_DATA_DIR": str(tmp_path / "data"),
        "AGENT_TUI_CONFIG_DIR": str(tmp_path / "config"),
    }
    try:
        done = subprocess.run(
            [sys.executable, "-m", "agent_tui", "--model", "gpt5", "--cwd", str(tmp_path)],
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE,
            env=env,
            timeout=DEADLINE,
            check=False,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert done.returncode == 2
    assert done.stderr.decode().endswith(
        "agent-tui: unknown model spec 'gpt5': use demo, openai:MODEL, anthropic:MODEL or "
        "script:PATH\n"
    )


def test_start_up_warnings_are_printed_once_the_app_is_gone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The chat shows them; the terminal keeps them after the app leaves the alternate
    screen (they used to be printed before the app, which no longer waits for them)."""
    import agent_tui.cli.main as cli

    agent = make_agent(tmp_path, [])
    start = agent.describe().model_copy(update={"warnings": ["settings error: x: broken"]})
    cli._after(Booted(agent, start))
    assert capsys.readouterr().err == "agent-tui: settings error: x: broken\n"
    cli._after(None)  # quit before the core was built: nothing to say
    assert capsys.readouterr().err == ""
