"""Claude Code's settings ``env`` reaches real commands and hooks: the user's everywhere (in the
sandbox too, a secret only when ``shell.env`` names it), a trusted project's only in commands
and confined hooks, never replacing a variable that is set, never in the user's own hooks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.core.hooks.config import HookSpec
from agent_tui.core.hooks.runner import run_command
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.sandbox.session_env import SessionEnv
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell
from agent_tui.core.tools.config import ShellSettings

PROBLEM = Bubblewrap().problem()
needs_bwrap = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
PRINT = (
    "for v in MY_TOOL_MODE GITHUB_TOKEN PROJECT_GREETING ALREADY_SET; do echo $v=${!v-unset}; done"
)


def _env() -> SessionEnv:
    return SessionEnv(
        user={"MY_TOOL_MODE": "fast", "GITHUB_TOKEN": "ghp_user_canary_123456"},
        project={"PROJECT_GREETING": "hi", "ALREADY_SET": "project"},
    )


def _sandbox(work: Path, env: SessionEnv, mode: str = "auto") -> SessionSandbox:
    sandbox = SessionSandbox(SandboxSettings(mode=mode), work)  # type: ignore[arg-type]
    sandbox.env = env
    return sandbox


async def _run(sandbox: SessionSandbox, work: Path, listed: list[str] | None = None) -> ToolOutput:
    ctx = ToolContext(cwd=work, sandbox=sandbox, shell=ShellSettings(env=listed or []))
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=PRINT), ctx)


def _seen(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


@needs_bwrap
async def test_a_sandboxed_command_gets_the_users_env_and_a_trusted_projects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALREADY_SET", "mine")  # not passed into the sandbox, not replaced
    sandbox = _sandbox(tmp_path, _env())
    assert sandbox.state.shell is not None
    seen = _seen((await _run(sandbox, tmp_path)).content)
    assert seen["MY_TOOL_MODE"] == "fast"  # the user's name passes the allow-list
    assert seen["GITHUB_TOKEN"] == "unset"  # a secret needs shell.env, as any secret does
    assert seen["PROJECT_GREETING"] == "hi"
    assert seen["ALREADY_SET"] == "unset"  # a project never fills a name that is set
    listed = _seen((await _run(sandbox, tmp_path, ["GITHUB_TOKEN"])).content)
    assert listed["GITHUB_TOKEN"] == "ghp_user_canary_123456"


async def test_an_unsandboxed_command_gets_them_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALREADY_SET", "mine")
    seen = _seen((await _run(_sandbox(tmp_path, _env(), "off"), tmp_path)).content)
    assert seen == {
        "MY_TOOL_MODE": "fast",
        "GITHUB_TOKEN": "ghp_user_canary_123456",  # unsandboxed: the user's environment
        "PROJECT_GREETING": "hi",
        "ALREADY_SET": "mine",
    }


async def test_without_settings_env_nothing_is_added(tmp_path: Path) -> None:
    seen = _seen((await _run(_sandbox(tmp_path, SessionEnv(), "off"), tmp_path)).content)
    assert set(seen.values()) == {"unset"}


@pytest.mark.parametrize("mode", ["auto", "off"])
async def test_the_users_own_hook_gets_the_users_env_never_a_projects(
    tmp_path: Path, mode: str
) -> None:
    if mode == "auto" and PROBLEM is not None:
        pytest.skip(PROBLEM)
    sandbox = _sandbox(tmp_path, _env(), mode)
    command = f"bash -c '{PRINT}'"
    mine = await run_command(HookSpec("Stop", command, scope="user"), {}, tmp_path, sandbox)
    assert mine.exit_code == 0, mine
    seen = _seen(mine.stdout)
    assert seen["MY_TOOL_MODE"] == "fast"
    assert seen["GITHUB_TOKEN"] == "ghp_user_canary_123456"
    assert seen["PROJECT_GREETING"] == "unset"  # it runs outside the sandbox: no project env
    theirs = await run_command(HookSpec("Stop", command, scope="project"), {}, tmp_path, sandbox)
    assert theirs.exit_code == 0, theirs
    confined = _seen(theirs.stdout)
    assert confined["MY_TOOL_MODE"] == "fast"
    assert confined["PROJECT_GREETING"] == "hi"  # confined: as a command sees it
    assert confined["GITHUB_TOKEN"] == "unset"  # confined: no secret of the user's
    assert "PROJECT_GREETING" not in os.environ
