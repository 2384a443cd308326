"""Read-deny holes in the sandbox: a ``read_file`` deny rule on a path outside the workspace —
named through a symbolic link, or naming a link — must hide what a command would read there;
and when the search for protected files stops at its entry cap, the command is refused rather
than run with files left unhidden. Each secret is shown readable bare first."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.hooks.config import HookSpec
from agent_tui.core.hooks.runner import run_command
from agent_tui.core.permissions import Rule, RuleSet
from agent_tui.core.permissions.read_guard import RuleReadGuard
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox, walk
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell
from agent_tui.core.tools.errors import ToolFailure

PROBLEM = Bubblewrap().problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
SECRET = "abs-path-canary-6e2f"


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory on a real disk outside the workspace (not /tmp, which the sandbox
    replaces): ``srv/a.key`` holds the secret, ``alias`` leads to ``srv``, ``link`` to the
    key."""
    base = Path("/var/tmp") / f"agent-tui-readdeny-{os.getpid()}-{time.monotonic_ns()}"
    (base / "srv").mkdir(parents=True)
    (base / "srv" / "a.key").write_text(f"{SECRET}\n")
    (base / "srv" / "b.key").write_text(f"{SECRET}-b\n")
    (base / "alias").symlink_to(base / "srv")
    (base / "link").symlink_to(base / "srv" / "a.key")
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _ctx(work: Path, *deny: str, **settings: object) -> ToolContext:
    guard = RuleReadGuard(RuleSet(deny=[Rule.parse(f"read_file({d})") for d in deny]), work)
    sandbox = SessionSandbox(SandboxSettings(**settings), work)  # type: ignore[arg-type]
    return ToolContext(cwd=work, sandbox=sandbox, reads=guard)


async def _run(ctx: ToolContext, command: str) -> ToolOutput:
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx)


def _bare(work: Path, command: str) -> str:
    done = subprocess.run(["bash", "-c", command], cwd=work, capture_output=True, check=False)
    return (done.stdout + done.stderr).decode("utf-8", "replace")


CASES = [
    # (rule, what the command reads); {b} is the outside directory
    ("/{b}/srv/a.key", "cat {b}/srv/a.key"),
    ("/{b}/alias/a.key", "cat {b}/alias/a.key"),  # the rule names the path through a link
    ("/{b}/alias/a.key", "cat {b}/srv/a.key"),  # ... and the command reads the real one
    ("/{b}/link", "cat {b}/link; cat {b}/srv/a.key"),  # the rule names a link
    # our own variants
    ("/{b}/alias/*.key", "cat {b}/srv/*.key"),  # a pattern below a link
    ("/{b}/alias/**", "cat {b}/srv/a.key {b}/srv/b.key"),  # a whole directory below a link
    ("ws-link.key", "cat ws-link.key; cat {b}/srv/a.key"),  # a link in the workspace, named
    ("/{b}/srv/a.key", "ln -s {b}/srv/a.key mine; cat mine; cp {b}/alias/a.key c; cat c"),
]


@pytest.mark.parametrize(("rule", "command"), CASES)
async def test_a_read_deny_rule_outside_the_workspace_hides_the_file(
    tmp_path: Path, outside: Path, rule: str, command: str
) -> None:
    rule, command = rule.format(b=outside), command.format(b=outside)
    bare, work = tmp_path / "bare", tmp_path / "ws"
    for ws in (bare, work):
        ws.mkdir()
        (ws / "ws-link.key").symlink_to(outside / "srv" / "a.key")
    assert SECRET in _bare(bare, command)
    out = await _run(_ctx(work, rule), command)
    assert SECRET not in out.content
    assert (outside / "srv" / "a.key").read_text() == f"{SECRET}\n"


async def test_a_home_rule_through_a_linked_directory(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, work = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    work.mkdir()
    (home / "notes").symlink_to(outside / "srv")  # ~/notes leads outside the home
    monkeypatch.setenv("HOME", str(home))
    command = f"cat {outside}/srv/a.key"
    assert SECRET in _bare(work, command)
    out = await _run(_ctx(work, "~/notes/a.key"), command)
    assert SECRET not in out.content


async def test_a_home_rule_on_a_path_allow_read_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, work = tmp_path / "home", tmp_path / "ws"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "x").write_text(f"{SECRET}\n")
    (home / "notes" / "y").write_text("fine\n")
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    ctx = _ctx(work, "~/notes/x", allow_read=[str(home / "notes")])
    out = await _run(ctx, "cat ~/notes/x ~/notes/y")
    assert SECRET not in out.content
    assert "fine" in out.content


# -- past the cap: refused, not run unmasked --------------------------------------------------


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(walk, "MAX_ENTRIES", 300)
    walk.forget()
    return 300


def _big_workspace(work: Path, entries: int) -> None:
    modules = work / "node_modules" / "pkg"
    modules.mkdir(parents=True)
    for i in range(entries):
        (modules / f"f{i}.js").touch()
    (work / ".env").write_text(f"TOKEN={SECRET}\n")
    (work / "node_modules" / "pkg" / ".env").write_text(f"NESTED={SECRET}\n")


async def test_past_the_cap_the_command_is_refused(tmp_path: Path, small_cap: int) -> None:
    work = tmp_path / "ws"
    _big_workspace(work, small_cap + 100)
    command = "touch ran; cat node_modules/pkg/.env"
    assert SECRET in _bare(work, command)
    (work / "ran").unlink()
    with pytest.raises(ToolFailure) as failure:
        await _run(_ctx(work, ".env"), command)
    info = failure.value.info
    assert info.code == "sandbox_refused"
    assert "stopped after" in info.message
    assert "read_file(/.env)" in info.next_step  # what to do instead
    assert not (work / "ran").exists()  # nothing ran


async def test_past_the_cap_variants(tmp_path: Path, small_cap: int) -> None:
    work = tmp_path / "ws"
    _big_workspace(work, small_cap + 100)
    # a pattern at any depth, a deny rule on a subtree's files, an ask rule: all refused
    for rules in ([".env"], ["**/*.env"], ["node_modules/**/.env"]):
        with pytest.raises(ToolFailure):
            await _run(_ctx(work, *rules), "true")
    ask = RuleReadGuard(RuleSet(ask=[Rule.parse("read_file(**/.env)")]), work)
    ctx = ToolContext(cwd=work, sandbox=SessionSandbox(SandboxSettings(), work), reads=ask)
    with pytest.raises(ToolFailure):
        await _run(ctx, "true")
    # the remedy the message gives works: an anchored rule needs no walk
    out = await _run(_ctx(work, "/.env"), "cat .env; echo ok")
    assert SECRET not in out.content
    assert "ok" in out.content
    # and no rule at all: no walk, commands run
    out = await _run(_ctx(work), "echo fine")
    assert "fine" in out.content


async def test_past_the_cap_a_sandboxed_hook_is_not_run(tmp_path: Path, small_cap: int) -> None:
    work = tmp_path / "ws"
    _big_workspace(work, small_cap + 100)
    guard = RuleReadGuard(RuleSet(deny=[Rule.parse("read_file(.env)")]), work)
    spec = HookSpec(
        event="PreToolUse", command="touch hook-ran; cat node_modules/pkg/.env", scope="project"
    )
    sandbox = SessionSandbox(SandboxSettings(), work)
    done = await run_command(spec, {}, work, sandbox, reads=guard)
    assert done.exit_code is None
    assert done.error is not None
    assert "stopped after" in done.error
    assert not (work / "hook-ran").exists()
    # under the cap, the hook runs and the file the rule protects is hidden from it too
    small = tmp_path / "small"
    small.mkdir()
    (small / ".env").write_text(f"TOKEN={SECRET}\n")
    guard = RuleReadGuard(RuleSet(deny=[Rule.parse("read_file(.env)")]), small)
    spec = HookSpec(event="PreToolUse", command="cat .env; echo hooked", scope="project")
    done = await run_command(spec, {}, small, SessionSandbox(SandboxSettings(), small), reads=guard)
    assert "hooked" in done.stdout
    assert SECRET not in done.stdout


async def test_the_real_cap(tmp_path: Path) -> None:
    """50,000 entries for real (a big node_modules), not a lowered cap."""
    work = tmp_path / "ws"
    _big_workspace(work, walk.MAX_ENTRIES + 10)
    walk.forget()
    with pytest.raises(ToolFailure) as failure:
        await _run(_ctx(work, ".env"), "touch ran")
    assert f"{walk.MAX_ENTRIES:,}" in failure.value.info.message or "stopped after" in (
        failure.value.info.message
    )
    assert not (work / "ran").exists()
