"""The redteam3 lab: ``harness.make_lab`` plus what a hostile repository ships (a setup
callback), run for real three ways — judged, bare (the attack works), through the executor
(nothing happens) — and with effects looked for anywhere in the lab (the workspace and its
private home), the *later* ones included (the user's ``git status`` in a directory, a new login
shell reading ``~/.bashrc``)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.permissions import Decision, Mode, RuleSet
from tests.core.permissions.red_team.harness import (
    Lab,
    decide,
    home_of,
    make_lab,
    pipeline,
    run_bare,
    through_agent,
)

Setup = Callable[[Lab], None]
Later = Callable[[Lab], None]
"""What the user does afterwards, outside the agent (their ``git status`` in a directory)."""


def pwned(lab: Lab) -> list[Path]:
    """Every canary ``pwned`` in the lab (workspace, home), wherever a program made it."""
    return [p for p in lab.root.parent.rglob("pwned*") if p.name.startswith("pwned")]


def rc_changed(lab: Lab) -> bool:
    return (lab.home / ".bashrc").read_text() != "# rc\n"


@dataclass(frozen=True)
class Case:
    command: str
    setup: Setup | None = None
    later: Later | None = None
    effect: Callable[[Lab], bool] = lambda lab: bool(pwned(lab))
    tool: str = "run_shell"
    arguments: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


def fresh(base: Path, name: str, case: Case) -> Lab:
    lab = make_lab(base, name)
    if case.setup is not None:
        case.setup(lab)
    return lab


def user_git(where: str, *args: str) -> Later:
    """The user's own git, later, in a terminal: ``git ARGS`` in ``where`` below the
    workspace, with the lab's home."""

    def later(lab: Lab) -> None:
        subprocess.run(
            ["git", *args],
            cwd=lab.root / where,
            env={**lab.env, "GIT_PAGER": "cat"},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
            check=False,
        )

    return later


def judged(tmp_path: Path, case: Case, ruleset: RuleSet, mode: Mode) -> Decision:
    lab = fresh(tmp_path, "judged", case)
    arguments = case.arguments if case.arguments is not None else {"command": case.command}
    with home_of(lab):
        return decide(pipeline(lab, ruleset, mode), case.tool, arguments)


def works_bare(tmp_path: Path, case: Case) -> None:
    """The attack is real: run bare in a fresh lab (and the user's later step), it has its
    effect."""
    bare = fresh(tmp_path, "bare", case)
    said = run_bare(bare, case.command)
    if case.later is not None:
        case.later(bare)
    assert case.effect(bare), f"the attack does nothing bare: {said[-500:]}"


async def prove(tmp_path: Path, case: Case, ruleset: RuleSet, mode: Mode) -> Decision:
    """The attack is never allowed, works when run bare, and does nothing through the agent
    (nor later)."""
    decision = judged(tmp_path, case, ruleset, mode)
    assert decision.kind != "allow", f"ALLOWED: {case.command!r}: {decision}"
    if case.tool == "run_shell":
        works_bare(tmp_path, case)
    lab = fresh(tmp_path, "agent", case)
    arguments = case.arguments if case.arguments is not None else {"command": case.command}
    with home_of(lab):
        outcome = await through_agent(lab, pipeline(lab, ruleset, mode), case.tool, arguments)
    assert not outcome.ran, f"RAN: {case.command!r}: {outcome.text[-300:]}"
    if case.later is not None:
        case.later(lab)
    assert not case.effect(lab), f"the attack took effect through the agent: {case.command!r}"
    return decision


def symlink(link: str, target: str) -> Setup:
    def setup(lab: Lab) -> None:
        path = lab.root / link
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)

    return setup


def chain(*setups: Setup) -> Setup:
    def setup(lab: Lab) -> None:
        for one in setups:
            one(lab)

    return setup


async def through_sandboxed(
    lab: Lab, ruleset: RuleSet, mode: Mode, command: str, *, auto_allow: bool = False
) -> tuple[bool, str]:
    """``command`` through the real executor with the bubblewrap sandbox on (the pipeline
    told, as the agent does): (whether it ran, the text the model got)."""
    import asyncio
    import json

    from agent_tui.core.budget import SpillStore
    from agent_tui.core.events import ToolResult
    from agent_tui.core.executor import ToolExecutor
    from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
    from agent_tui.core.tools.builtin import default_registry
    from agent_tui.core.tools.file_state import FileStateCache
    from agent_tui.core.transcript import ToolCall
    from tests.core.permissions.red_team.harness import Outcome

    sandbox = SessionSandbox(SandboxSettings(mode="required", auto_allow=auto_allow), lab.root)
    policy = pipeline(lab, ruleset, mode)
    policy.use_sandbox(sandbox)
    executor = ToolExecutor(
        default_registry(),
        lab.root,
        policy,
        None,
        FileStateCache(),
        store=SpillStore(lab.root / ".agent-spill", lab.root),
        sandbox=sandbox,
    )
    call = ToolCall(id="attack", name="run_shell", arguments=json.dumps({"command": command}))
    outcome = Outcome()
    with home_of(lab):
        async for event in executor.execute([call], [], asyncio.Event()):
            outcome.events.append(event)
    return any(isinstance(e, ToolResult) for e in outcome.events), outcome.text
