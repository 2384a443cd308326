"""A lab for what a command plants in a workspace's git config, and the user's git afterwards.

Each ``Case`` is a script the command runs (shipped by the repository as ``plant.sh``, run as
``sh ./plant.sh`` — in bypass mode the permission analysis lets such an opaque command run: it
is this layer's job to undo what it plants), a set-up of the user's own state before the
session, and the git commands the user types later, in a terminal, outside any sandbox. The
case is proven three ways:

1. *bare*: in a fresh lab the script is run by bash itself and the user's git then runs the
   canary — the attack is real;
2. *through the executor* (bypass mode, a real ``ToolExecutor``), sandboxed and not: the call
   ran, and the user's git afterwards does **not** make the canary.

The user's git runs with ``GIT_CONFIG_NOSYSTEM=1``, no ``HOME`` (``GIT_CONFIG_GLOBAL`` names the
lab's own global config, empty unless a case writes one), and, for commands whose pager would
run only on a terminal, under ``script`` (a real pseudo-terminal).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.events import ToolResult
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import Mode, PermissionPipeline, RuleSet
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import ToolCall

PROBLEM = Bubblewrap().problem()
IDENTITY = {
    "GIT_AUTHOR_NAME": "u",
    "GIT_AUTHOR_EMAIL": "u@example.org",
    "GIT_COMMITTER_NAME": "u",
    "GIT_COMMITTER_EMAIL": "u@example.org",
}


@dataclass
class Lab:
    root: Path
    """The workspace: a repository with one commit."""
    home: Path
    canary: Path

    def user_env(self) -> dict[str, str]:
        """The user's terminal, later: no HOME, no system config, the lab's global config."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": str(self.home / ".gitconfig"),
            "LANG": "C.UTF-8",
            "TERM": "xterm",
            **IDENTITY,
        }
        return env

    def git(self, where: str, *args: str, tty: bool = False) -> str:
        cwd = self.root / where
        if not cwd.is_dir():
            return f"(no {where})"
        argv = ["git", *args]
        if tty:  # a pager starts only on a terminal
            argv = ["script", "-qec", " ".join(argv), "/dev/null"]
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=self.user_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
            check=False,
        )
        return (done.stdout + done.stderr).decode("utf-8", "replace")


Later = tuple[str, tuple[str, ...], bool]
"""(directory below the workspace, git arguments, on a terminal)."""
USUAL: tuple[Later, ...] = (
    ("", ("status",), False),
    ("", ("log", "-1"), True),
)


@dataclass(frozen=True)
class Case:
    plant: str
    """The script's body; ``{C}`` is the canary's path."""
    later: tuple[Later, ...] = ()
    setup: Callable[[Lab], None] | None = None
    """The user's own state before the session."""
    needs: tuple[str, ...] = ()
    own: bool = False
    """A variant of this suite's own, beyond the issue's examples."""
    sandbox_blocks: bool = False
    """In the sandbox the script fails before planting (a read-only mask): the bare and
    unsandboxed runs still prove the attack."""
    notes: list[str] = field(default_factory=list)


def make_lab(base: Path, name: str) -> Lab:
    root = base / name / "ws"
    home = base / name / "home"
    root.mkdir(parents=True)
    home.mkdir()
    (home / ".gitconfig").write_text("")
    lab = Lab(root.resolve(), home.resolve(), (base / name / "PWNED").resolve())
    env = lab.user_env()
    for args in (["init", "-q", "."], ["add", "README"], ["commit", "-qm", "init"]):
        if args[0] == "add":
            (root / "README").write_text("hello\n")
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return lab


def prepare(base: Path, name: str, case: Case, monkeypatch: pytest.MonkeyPatch) -> Lab:
    lab = make_lab(base, name)
    monkeypatch.setenv("HOME", str(lab.home))  # the agent sees the lab's global config too
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    if case.setup is not None:
        case.setup(lab)
    script = case.plant.replace("{C}", str(lab.canary))
    (lab.root / "plant.sh").write_text("set -e\n" + script + "\n")
    return lab


def user_runs_git(lab: Lab, case: Case) -> str:
    return "\n".join(lab.git(w, *a, tty=t) for w, a, t in (*USUAL, *case.later))


def run_bare(lab: Lab) -> str:
    done = subprocess.run(
        ["bash", "./plant.sh"],
        cwd=lab.root,
        env={**os.environ},
        capture_output=True,
        timeout=60,
        check=False,
    )
    return (done.stdout + done.stderr).decode("utf-8", "replace")


async def through_executor(lab: Lab, sandboxed: bool) -> str:
    """``sh ./plant.sh`` through the real executor in bypass mode; the result's text."""
    sandbox = SessionSandbox(SandboxSettings(mode="auto" if sandboxed else "off"), lab.root)
    if sandboxed:
        assert sandbox.state.shell is not None
    executor = ToolExecutor(
        default_registry(),
        lab.root,
        PermissionPipeline(lab.root, RuleSet(), Mode.BYPASS),
        None,
        FileStateCache(),
        store=SpillStore(lab.root / ".agent-spill", lab.root),
        sandbox=sandbox,
    )
    call = ToolCall(
        id="plant", name="run_shell", arguments=json.dumps({"command": "sh ./plant.sh"})
    )
    texts: list[str] = []
    ran = False
    events = []
    async for event in executor.execute([call], [], asyncio.Event()):
        events.append(event)
        if isinstance(event, ToolResult):
            ran = True
            texts.append(event.content)
    assert ran, f"the command did not run: this case proves nothing about the after-check: {events}"
    return "\n".join(texts)


async def prove(
    tmp_path: Path, case: Case, monkeypatch: pytest.MonkeyPatch, sandboxed: bool
) -> str:
    """The attack is real (bare), and through the executor it leaves nothing that runs."""
    missing = [n for n in ("script", *case.needs) if shutil.which(n) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    if sandboxed and PROBLEM is not None:
        pytest.skip(f"no sandbox here: {PROBLEM}")
    bare = prepare(tmp_path, "bare", case, monkeypatch)
    said = run_bare(bare)
    later = user_runs_git(bare, case)
    assert bare.canary.exists(), f"the attack does nothing bare: {said[-400:]}\n{later[-600:]}"
    lab = prepare(tmp_path, "agent", case, monkeypatch)
    out = await through_executor(lab, sandboxed)
    # what an unsandboxed command runs itself is its own doing (it was allowed to run): only
    # what the user's git runs *later* is this layer's to prevent
    lab.canary.unlink(missing_ok=True)
    later = user_runs_git(lab, case)
    assert not lab.canary.exists(), f"the planted code ran later: {out[-800:]}\n{later[-800:]}"
    return out
