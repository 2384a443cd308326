"""The ``env`` of Claude Code's settings files: the user's applies at once, a project's waits for
trust (one item per file, showing every name and value), a project may never set what decides
which code runs, and Claude Code's own variables are said to have no effect here."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent_tui.core.claude.env import claude_own, load_env, project_refusal
from agent_tui.core.claude.permissions import permission_config
from agent_tui.core.sandbox import safe_git
from agent_tui.core.state.trust import ProjectTrust

pytestmark = pytest.mark.real_trust


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _user(env: dict[str, object]) -> Path:
    return _write(Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json", {"env": env})


def test_the_users_env_applies_at_once_and_claude_codes_own_are_said(workspace: Path) -> None:
    path = _user(
        {
            "MY_TOOL_MODE": "fast",
            "RETRIES": 3,
            "BASH_ENV": "~/.bashrc.agent",  # the user's own choice: applied
            "ANTHROPIC_MODEL": "opus",
            "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
            "BASH_DEFAULT_TIMEOUT_MS": "600000",
            "MAX_THINKING_TOKENS": "8000",
            "bad-name": "x",
            "LIST": ["a"],
        }
    )
    env, notes = load_env(workspace, ProjectTrust(workspace))
    assert env.user == {"MY_TOOL_MODE": "fast", "RETRIES": "3", "BASH_ENV": "~/.bashrc.agent"}
    own = [n for n in notes if "configure Claude Code itself" in n]
    assert len(own) == 1
    assert own[0].startswith(str(path))
    for name in ("ANTHROPIC_MODEL", "CLAUDE_CODE_ENABLE_TELEMETRY", "BASH_DEFAULT_TIMEOUT_MS"):
        assert name in own[0]
    assert any("'bad-name' is not a variable name" in n for n in notes)
    assert any("env.LIST: the value must be a string" in n for n in notes)
    assert not env.project
    assert not env.waiting


def test_a_users_secret_is_named_as_kept_out_of_the_sandbox_unless_listed(
    workspace: Path,
) -> None:
    _user({"GITHUB_TOKEN": "ghp_x", "DEPLOY_KEY": "k", "OPENAI_API_KEY": "sk-x", "PLAIN": "1"})
    env, notes = load_env(workspace, ProjectTrust(workspace), passed=["GITHUB_TOKEN"])
    said = [n for n in notes if "look like secrets" in n]
    assert len(said) == 1
    assert "DEPLOY_KEY" in said[0]
    assert "OPENAI_API_KEY" in said[0]
    assert "GITHUB_TOKEN" not in said[0]
    assert "PLAIN" not in said[0]
    assert env.user["GITHUB_TOKEN"] == "ghp_x"


def test_a_projects_env_waits_for_trust_as_one_item_showing_names_and_values(
    workspace: Path,
) -> None:
    path = _write(
        workspace / ".claude" / "settings.json",
        {"env": {"PROJECT_GREETING": "hi there", "BASH_ENV": "./evil.sh", "FEATURE_X": "on"}},
    )
    trust = ProjectTrust(workspace)
    env, notes = load_env(workspace, trust)
    assert env.project == {}
    [item] = trust.pending
    assert (item.kind, item.source) == ("env", path)
    assert 'PROJECT_GREETING="hi there"' in item.detail
    assert 'FEATURE_X="on"' in item.detail
    assert "never set, even if trusted: BASH_ENV" in item.detail
    assert ".claude/settings.json" in item.describe()
    assert any("a project may not set BASH_ENV" in n for n in notes)
    env.trusted([item.key])
    assert env.project == {"PROJECT_GREETING": "hi there", "FEATURE_X": "on"}
    # trusted and saved: the next start applies it without asking
    trust.trust([item])
    again, _ = load_env(workspace, ProjectTrust(workspace))
    assert again.project == {"PROJECT_GREETING": "hi there", "FEATURE_X": "on"}
    # a changed env section asks again
    _write(path, {"env": {"PROJECT_GREETING": "hi there", "FEATURE_X": "off"}})
    fresh = ProjectTrust(workspace)
    changed, _ = load_env(workspace, fresh)
    assert changed.project == {}
    assert [i.kind for i in fresh.pending] == ["env"]


def test_no_trust_at_all_leaves_a_projects_env_out(workspace: Path) -> None:
    _write(workspace / ".claude" / "settings.local.json", {"env": {"FEATURE_X": "on"}})
    env, _ = load_env(workspace, None)
    assert env.project == {}
    assert env.waiting == {}


def test_the_agents_own_environment_and_git_calls_never_get_a_projects_env(
    workspace: Path,
) -> None:
    _write(workspace / ".claude" / "settings.json", {"env": {"PROJECT_GREETING": "hi"}})
    _user({"MY_TOOL_MODE": "fast"})
    trust = ProjectTrust(workspace)
    env, _ = load_env(workspace, trust)
    env.trusted([i.key for i in trust.pending])
    assert env.project == {"PROJECT_GREETING": "hi"}
    assert "PROJECT_GREETING" not in os.environ
    assert "MY_TOOL_MODE" not in os.environ
    assert "PROJECT_GREETING" not in safe_git.environment()


@pytest.mark.parametrize(
    "name",
    [
        "BASH_ENV",
        "ENV",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "DYLD_INSERT_LIBRARIES",
        "PATH",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "NODE_OPTIONS",
        "PERL5OPT",
        "RUBYOPT",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_KEY_0",
        "GIT_SSH_COMMAND",
        "GIT_EXEC_PATH",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "IFS",
        "HOME",
        "TMPDIR",
        "http_proxy",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "JAVA_TOOL_OPTIONS",
        "RUSTC_WRAPPER",
        "CARGO_BUILD_RUSTC",
        "GOFLAGS",
        "PIP_INDEX_URL",
        "npm_config_script_shell",
        "NPM_CONFIG_USERCONFIG",
        "EDITOR",
        "PAGER",
        "LESSOPEN",
        "XDG_CONFIG_HOME",
        "SSL_CERT_FILE",
        "DOCKER_HOST",
        "KUBECONFIG",
        "GITHUB_TOKEN",
        "OPENAI_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "MY_APP_PASSWORD",
        "GCONV_PATH",
        "CLASSPATH",
        "MAKEFLAGS",
        "CC",
        "SOME_TOOL_COMMAND",
        "ANY_PLUGIN_PATH",
        "API_URL",
        "LC_ALL",
    ],
)
def test_a_project_may_not_set_what_decides_which_code_runs(name: str) -> None:
    assert project_refusal(name) is not None, name


@pytest.mark.parametrize(
    "name", ["NODE_ENV", "PROJECT_GREETING", "FEATURE_X", "LOG_LEVEL", "DEBUG", "RUST_BACKTRACE"]
)
def test_a_project_may_set_plain_names(name: str) -> None:
    assert project_refusal(name) is None


def test_claude_codes_own_variables() -> None:
    for name in ("ANTHROPIC_BASE_URL", "CLAUDE_CODE_USE_BEDROCK", "DISABLE_TELEMETRY"):
        assert claude_own(name)
    assert not claude_own("NODE_ENV")


def test_env_is_read_so_no_longer_reported_as_unmapped(workspace: Path) -> None:
    _write(workspace / ".claude" / "settings.json", {"env": {"FOO": "1"}, "model": "opus"})
    problems = permission_config(workspace).problems
    assert not any("'env'" in p for p in problems)
    assert any("'model'" in p for p in problems)
