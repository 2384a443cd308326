"""The sandbox's modes and the permission modes together, for real: ``required`` on a machine
without bubblewrap runs nothing (whatever the permission mode), ``auto`` runs unconfined and
says so, and ``sandbox.auto_allow`` gives each permission mode what the README promises —
``default`` and ``accept-edits`` gain it, ``plan`` still denies, ``bypass`` runs anyway, deny
rules deny in every mode. A machine without bubblewrap is a ``PATH`` without ``bwrap``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet, Step
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry, run_shell
from agent_tui.core.tools.errors import ToolFailure

PROBLEM = Bubblewrap().problem()
needs_sandbox = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")


@pytest.fixture
def no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH with the programs the commands need and no bubblewrap."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("touch", "bash", "sh"):
        found = subprocess.run(["which", name], capture_output=True, text=True, check=False)
        if found.returncode == 0:
            (bin_dir / name).symlink_to(found.stdout.strip())
    monkeypatch.setenv("PATH", str(bin_dir))
    work = tmp_path / "work"
    work.mkdir()
    return work


async def _call(work: Path, command: str, **settings: Any) -> Any:
    sandbox = SessionSandbox(SandboxSettings(**settings), work)
    ctx = ToolContext(cwd=work, sandbox=sandbox)
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx)


async def test_required_without_bubblewrap_runs_nothing(no_bwrap: Path) -> None:
    with pytest.raises(ToolFailure) as failed:
        await _call(no_bwrap, "touch CANARY", mode="required")
    assert failed.value.info.code == "sandbox_unavailable"
    assert "bubblewrap (bwrap) is not installed" in str(failed.value)
    assert not (no_bwrap / "CANARY").exists()


async def test_auto_without_bubblewrap_runs_unconfined_and_says_so(no_bwrap: Path) -> None:
    out = await _call(no_bwrap, "touch CANARY")
    assert (no_bwrap / "CANARY").exists()
    assert out.facts.sandboxed is False
    state = SessionSandbox(SandboxSettings(), no_bwrap).state
    assert state.shelter.label == "not sandboxed"
    assert state.shelter.why_not is not None
    assert "not installed" in state.shelter.why_not


def test_sandbox_status_without_bubblewrap_says_why_and_fails(no_bwrap: Path) -> None:
    def status(mode: str) -> subprocess.CompletedProcess[str]:
        config = no_bwrap.parent / f"config-{mode}"
        config.mkdir(exist_ok=True)
        (config / "settings.json").write_text(f'{{"sandbox": {{"mode": "{mode}"}}}}')
        return subprocess.run(
            [sys.executable, "-m", "agent_tui", "sandbox", "status"],
            cwd=no_bwrap,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "AGENT_TUI_CONFIG_DIR": str(config)},
        )

    auto = status("auto")
    assert auto.returncode == 1, auto
    assert "no sandbox: bubblewrap (bwrap) is not installed" in auto.stdout
    assert "runs commands unconfined" in auto.stdout
    required = status("required")
    assert required.returncode == 1
    assert "refuses every command" in required.stdout


def _judge(work: Path, permission: Mode, rules: RuleSet | None = None, **settings: Any) -> Any:
    pipeline = PermissionPipeline(work, rules or RuleSet(), permission)
    pipeline.use_sandbox(SessionSandbox(SandboxSettings(**settings), work))
    tool = default_registry().get("run_shell")
    assert tool is not None
    return lambda command: pipeline.judge(tool, {"command": command})


@needs_sandbox
def test_auto_allow_in_each_permission_mode(tmp_path: Path) -> None:
    deny = RuleSet(deny=[Rule.parse("run_shell(rm:*)", source="test")])
    for mode in (Mode.DEFAULT, Mode.ACCEPT_EDITS):
        judge = _judge(tmp_path, mode, deny, auto_allow=True)
        allowed = judge("pytest -q")
        assert (allowed.kind, allowed.step) == ("allow", Step.SANDBOX), mode
        assert allowed.shelter.label == "sandboxed · no network"
        assert judge("rm -rf src").kind == "deny", mode
        assert judge("curl -s https://example.invalid").kind == "ask", mode
    plan = _judge(tmp_path, Mode.PLAN, deny, auto_allow=True)
    assert plan("pytest -q").kind == "deny"
    bypass = _judge(tmp_path, Mode.BYPASS, deny, auto_allow=True)
    assert (bypass("pytest -q").kind, bypass("pytest -q").step) == ("allow", Step.BYPASS)
    assert bypass("rm -rf src").kind == "deny"
    assert bypass("echo x >> .git/config").kind == "ask"  # an every-mode check


def test_auto_allow_without_a_working_sandbox_asks_in_every_mode_that_asks(
    no_bwrap: Path,
) -> None:
    for mode in (Mode.DEFAULT, Mode.ACCEPT_EDITS):
        for sandbox_mode in ("auto", "required"):
            decision = _judge(no_bwrap, mode, auto_allow=True, mode=sandbox_mode)("pytest -q")
            assert decision.kind == "ask", (mode, sandbox_mode)
            assert decision.shelter is not None
            assert not decision.shelter.sandboxed
