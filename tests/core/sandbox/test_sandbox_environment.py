"""Secrets inside the sandbox: the command's environment is allow-listed.

The provider's API key (and the user's other secrets) were in every sandboxed command's
environment and in ``/proc/1/environ``: a prompt-injected model could print them into its own
context. Each attack here runs for real: in the same sandbox started with the agent's whole
environment, as before (the canaries show, so the attack is real), then through ``run_shell``
(nothing shows). Unsandboxed, commands still lose the provider keys.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.core.hooks.config import HookSpec
from agent_tui.core.hooks.runner import run_command
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.sandbox.environment import (
    ALLOWED,
    PROVIDER_KEYS,
    sandboxed_env,
    secret_looking,
    unsandboxed_env,
)
from agent_tui.core.settings import load_settings
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell
from agent_tui.core.tools.config import ShellSettings

PROBLEM = Bubblewrap().problem()
needs_bwrap = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")

CANARIES = {
    "ANTHROPIC_API_KEY": "sk-ant-canary-0a1b2c3d4e5f",
    "AGENT_API_KEY": "sk-agent-canary-9f8e7d6c",
    "OPENAI_API_KEY": "sk-openai-canary-5a5a5a5a",
    "GITHUB_TOKEN": "ghp_canary_token_1234567890",
    "AWS_SECRET_ACCESS_KEY": "aws-canary-secret-abcdef",
    "DB_PASSWORD": "db-canary-password-42",
    "DEPLOY_PAT": "pat-canary-31337",
    "SOME_UNLISTED_THING": "unlisted-canary-value",
    "COPIED_HEADER": "Bearer sk-ant-canary-0a1b2c3d4e5f",
}
"""Set in the agent's environment; none may reach a sandboxed command."""
PROVIDER_CANARIES = ("sk-ant-canary", "sk-agent-canary", "sk-openai-canary")


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    return CANARIES


def leaked(text: str, names: tuple[str, ...] | None = None) -> list[str]:
    values = [CANARIES[n] for n in names] if names else list(CANARIES.values())
    return [v for v in values if v in text]


async def _run(
    work: Path, command: str, *, env: list[str] | None = None, **settings: object
) -> ToolOutput:
    sandbox = SessionSandbox(SandboxSettings(**settings), work)  # type: ignore[arg-type]
    ctx = ToolContext(cwd=work, sandbox=sandbox, shell=ShellSettings(env=env or []))
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx)


def _as_before(work: Path, command: str) -> str:
    """The command in the same sandbox, started with the agent's whole environment (as
    ``run_shell`` did before): the canaries show, so the attack is real."""
    sandbox = SessionSandbox(SandboxSettings(), work)
    assert sandbox.state.shell is not None
    argv = sandbox.state.shell.wrap(["bash", "-c", command], work)
    done = subprocess.run(
        argv, cwd=work, env=dict(os.environ), capture_output=True, timeout=30, check=False
    )
    return (done.stdout + done.stderr).decode("utf-8", "replace")


ATTACKS = [
    ("env", ()),
    ("cat /proc/1/environ", ()),
    ("cat /proc/self/environ", ()),
    ("ps axe -ww", ("ps",)),
    ("cat /proc/*/environ | tr '\\0' '\\n'", ()),
    # our own variants
    ("export -p; declare -x; set", ()),  # the shell's own view, no program run
    ("for p in /proc/[0-9]*; do strings $p/environ 2>/dev/null; done", ("strings",)),
    ("xargs -0 -n1 echo </proc/1/environ; base64 -w0 </proc/1/environ", ("xargs", "base64")),
    (f"{sys.executable} -c 'import os; print(dict(os.environ))'", ()),
    ("perl -e 'print map {\"$_=$ENV{$_}\\n\"} keys %ENV'", ("perl",)),
    ("sh -c 'cat /proc/$PPID/environ' | od -c", ("od",)),
]


@needs_bwrap
@pytest.mark.parametrize(("command", "needs"), ATTACKS, ids=[a[0][:40] for a in ATTACKS])
async def test_no_secret_reaches_a_sandboxed_command(
    tmp_path: Path, secrets: dict[str, str], command: str, needs: tuple[str, ...]
) -> None:
    if missing := [n for n in needs if shutil.which(n) is None]:
        pytest.skip(f"not installed: {', '.join(missing)}")
    before = _as_before(tmp_path, command)
    if "od -c" not in command and "base64" not in command:
        assert leaked(before), f"the attack shows nothing even as before: {before[-300:]}"
    out = await _run(tmp_path, command)
    assert leaked(out.content) == [], out.content[-500:]
    assert "sk-ant-canary" not in out.content.replace(" ", "").replace("\\", "")


@needs_bwrap
async def test_the_sandbox_still_has_what_commands_need(
    tmp_path: Path, secrets: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("VIRTUAL_ENV", "/opt/venv-canary")
    out = await _run(tmp_path, "echo $PATH; echo $HOME; echo $LC_ALL $VIRTUAL_ENV; echo $TERM")
    lines = out.content.splitlines()
    assert lines[0] == os.environ["PATH"]
    assert lines[1] == os.environ["HOME"]
    assert lines[2] == "C.UTF-8 /opt/venv-canary"
    assert lines[3] == "dumb"
    git = await _run(tmp_path, "git init -q . && git status --short; echo ok")
    assert git.content.splitlines()[-2] == "ok"


@needs_bwrap
async def test_names_the_user_lists_pass_but_provider_keys_never(
    tmp_path: Path, secrets: dict[str, str]
) -> None:
    listed = ["GITHUB_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEPLOY_*", "DB_*"]
    out = await _run(tmp_path, "env", env=listed)
    assert CANARIES["GITHUB_TOKEN"] in out.content  # the user's own choice
    assert leaked(out.content, ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AGENT_API_KEY")) == []
    # a prefix never passes a secret-looking name: DEPLOY_PAT, DB_PASSWORD stay out
    assert leaked(out.content, ("DEPLOY_PAT", "DB_PASSWORD", "COPIED_HEADER")) == []


@needs_bwrap
async def test_a_sandboxed_hook_sees_no_secret_either(
    tmp_path: Path, secrets: dict[str, str]
) -> None:
    spec = HookSpec(  # a project's hook: confined (the user's own run as the user's programs)
        event="PreToolUse", command="env; cat /proc/1/environ | tr '\\0' '\\n'", scope="project"
    )
    sandbox = SessionSandbox(SandboxSettings(), tmp_path)
    done = await run_command(spec, {"tool_name": "x"}, tmp_path, sandbox)
    assert done.exit_code == 0, done
    assert "CLAUDE_PROJECT_DIR=" in done.stdout
    assert leaked(done.stdout + done.stderr) == []
    listed = await run_command(spec, {}, tmp_path, sandbox, env_names=("GITHUB_TOKEN",))
    assert CANARIES["GITHUB_TOKEN"] in listed.stdout
    assert leaked(listed.stdout, ("ANTHROPIC_API_KEY",)) == []


async def test_unsandboxed_commands_and_hooks_lose_the_provider_keys(
    tmp_path: Path, secrets: dict[str, str]
) -> None:
    for command in ("env", "cat /proc/self/environ", "tr '\\0' '\\n' </proc/$PPID/environ"):
        out = await _run(tmp_path, command, mode="off")
        assert not any(c in out.content for c in PROVIDER_CANARIES), (command, out.content)
        assert CANARIES["COPIED_HEADER"] not in out.content  # it holds a provider key
    out = await _run(tmp_path, "env", mode="off")
    assert CANARIES["GITHUB_TOKEN"] in out.content  # unsandboxed: the user's own env
    spec = HookSpec(event="Stop", command="env", scope="project")  # confined, no sandbox
    done = await run_command(
        spec, {}, tmp_path, SessionSandbox(SandboxSettings(mode="off"), tmp_path)
    )
    assert not any(c in done.stdout for c in PROVIDER_CANARIES)


# -- the allow-list itself ------------------------------------------------------------------


def test_no_allowed_name_looks_secret_and_no_provider_key_is_allowed() -> None:
    assert [n for n in ALLOWED if secret_looking(n)] == []
    assert not PROVIDER_KEYS & ALLOWED
    for name in (
        "GITHUB_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "NPM_AUTH_TOKEN",
        "DB_PASSWORD",
        "GH_PAT",
        "SSH_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "X_API_KEY",
    ):
        assert secret_looking(name), name
    for name in ("GIT_AUTHOR_NAME", "PATH", "KEYBOARD_LAYOUT", "MONKEY", "PWD"):
        assert not secret_looking(name), name


def test_the_filter_by_rows() -> None:
    environ = {
        "PATH": "/usr/bin",
        "LC_TIME": "C",
        "ANTHROPIC_API_KEY": "sk-ant-xxxxxxxxxx",
        "HTTP_PROXY": "http://user:pw@proxy:3128",
        "MYAPP_MODE": "dev",
        "MYAPP_TOKEN": "t0ken-value-123",
        "ALIAS": "sk-ant-xxxxxxxxxx",
        "TMPDIR": "/nonexistent/tmp",
        "NO_COLOR": "1",
    }
    env = sandboxed_env(environ, passed=["MYAPP_*"])
    assert env == {"PATH": "/usr/bin", "LC_TIME": "C", "MYAPP_MODE": "dev"}
    env = sandboxed_env(environ, passed=["MYAPP_TOKEN", "HTTP_PROXY", "ALIAS"], color=True)
    assert env["MYAPP_TOKEN"] == "t0ken-value-123"
    assert env["HTTP_PROXY"].startswith("http://")
    assert "ALIAS" not in env  # its value is a provider key
    assert env["NO_COLOR"] == "1"
    assert "ANTHROPIC_API_KEY" not in sandboxed_env(environ, passed=["ANTHROPIC_API_KEY"])
    assert set(unsandboxed_env(environ)) == set(environ) - {"ANTHROPIC_API_KEY", "ALIAS"}


def test_tmpdir_passes_only_where_commands_can_write(tmp_path: Path) -> None:
    inside = tmp_path / "ws" / "tmp"
    inside.mkdir(parents=True)
    environ = {"TMPDIR": str(inside)}
    assert sandboxed_env(environ, writable=[tmp_path / "ws"]) == environ
    assert sandboxed_env(environ, writable=[tmp_path / "other"]) == {}


# -- the setting: only the user's own file may add names ----------------------------------------


def _settings(tmp_path: Path, user: dict[str, object], project: dict[str, object]) -> Path:
    config = Path(os.environ["AGENT_TUI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps(user))
    project_dir = tmp_path / "proj"
    (project_dir / ".agent-tui").mkdir(parents=True)
    (project_dir / ".agent-tui" / "settings.json").write_text(json.dumps(project))
    (project_dir / ".agent-tui" / "settings.local.json").write_text(json.dumps(project))
    return project_dir


def test_a_project_cannot_add_names(tmp_path: Path) -> None:
    project = _settings(
        tmp_path, {"shell": {"env": ["GITHUB_TOKEN"]}}, {"shell": {"env": ["AWS_*", "NPM_TOKEN"]}}
    )
    loaded = load_settings(project)
    assert loaded.settings.shell.env == ["GITHUB_TOKEN"]
    said = "\n".join(loaded.messages())
    assert "shell.env ignored" in said
    assert "user settings" in said


def test_a_project_cannot_replace_the_users_list_with_an_empty_one_either(tmp_path: Path) -> None:
    project = _settings(
        tmp_path, {"shell": {"env": ["GITHUB_TOKEN"], "color": True}}, {"shell": {"color": False}}
    )
    loaded = load_settings(project)
    assert loaded.settings.shell.env == ["GITHUB_TOKEN"]
    assert loaded.settings.shell.color is False  # the rest of the section still applies


def test_a_bad_name_is_a_clear_error(tmp_path: Path) -> None:
    project = _settings(tmp_path, {"shell": {"env": ["OK_NAME", "bad name", "$(x)"]}}, {})
    loaded = load_settings(project)
    said = "\n".join(loaded.messages())
    assert "'bad name'" in said
    assert "'$(x)'" in said
    assert "MYAPP_*" in said
    assert loaded.settings.shell.env == []


@needs_bwrap
async def test_pid_1_is_bwraps_child_with_the_clean_environment(
    tmp_path: Path, secrets: dict[str, str]
) -> None:
    out = await _run(
        tmp_path, "cat /proc/1/cmdline | tr '\\0' ' '; echo; tr '\\0' '\\n' </proc/1/environ"
    )
    assert "bwrap" in out.content.splitlines()[0]  # what the red team reads is bwrap's own
    assert "PATH=" in out.content
    assert leaked(out.content) == []
