"""What ``run_shell`` does around each command — and the hooks runner around each confined
(project) hook, which runs like a command — so that nothing it plants runs later.

``before`` (in a worker thread, just before the command starts) records the protected paths
that do not exist yet (sandboxed commands: ``aftercheck``) and takes the git watch's baseline
(``git_watch``: every command, sandboxed or not — the one place an unsandboxed command's
planted hook or config is caught). ``Guard.masked`` is what the sandbox keeps read-only of the
nested and bare git directories found. ``Guard.after`` undoes what the command made, and
``message`` says it in one sentence for the card and the model.

Unsandboxed as sandboxed, the cost is the watch's looks: a cached walk of the workspace (one
``stat`` per unchanged directory) after each command and, after a pause, before it too
(``Watch.baseline``), and a ``stat`` per watched file. No watch runs for a session without a
workspace (``UNCONFINED``, whose workspace is ``/``), and a failure of the check itself is
reported, never raised into the command's result.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.sandbox import aftercheck, config_watch
from agent_tui.core.sandbox.git_watch import Snapshot, Watch, describe
from agent_tui.core.sandbox.quarantine import Moved
from agent_tui.core.sandbox.state import SessionSandbox
from agent_tui.core.state.paths import data_dir

log = logging.getLogger(__name__)


@dataclass
class Guard:
    sandboxed: bool
    workspace: Path
    created: tuple[Path, ...] = ()
    """Protected paths absent before a sandboxed command."""
    watch: Watch | None = None
    baseline: Snapshot | None = None
    failed: str | None = None
    """Why the baseline could not be taken (the check is then said to be off)."""
    masked: tuple[Path, ...] = ()
    """What the sandbox keeps read-only of the nested and bare git directories."""
    configs: config_watch.Look | None = None
    """The agent's config files before an unsandboxed command (``config_watch``)."""

    def after(self) -> tuple[list[Moved], str | None]:
        """Undo what the command planted (blocking); and why a check could not run. Each
        check runs on its own: one that fails does not keep the others from running."""
        moved: list[Moved] = []
        problems = [self.failed] if self.failed else []

        def run(what: str, check: Callable[[], list[Moved]]) -> None:
            try:
                moved.extend(check())
            except Exception as exc:  # reported on the card; never the command's failure
                log.exception("the %s failed after a command", what)
                problems.append(f"{what}: {type(exc).__name__}: {exc}")

        if self.created:
            created = self.created
            run("sweep of protected paths", lambda: aftercheck.sweep(created, self.workspace))
        if self.watch is not None and self.baseline is not None:
            watch, baseline = self.watch, self.baseline
            run("git check", lambda: watch.check(baseline))
        if self.configs is not None:
            configs = self.configs

            def configs_check() -> list[Moved]:
                undone, incomplete = config_watch.check(self.workspace, configs)
                if incomplete:
                    problems.append(incomplete)
                return undone

            run("configuration check", configs_check)
        return moved, "; ".join(problems) or None


def watch_of(sandbox: SessionSandbox) -> Watch | None:
    """The session's watch (made on first use), or None without a workspace."""
    workspace = sandbox.workspace.resolve()
    if workspace == Path("/"):
        return None
    if sandbox.nested_git is None:
        quarantine = os.path.realpath(data_dir() / "quarantine")
        sandbox.nested_git = Watch(workspace, skip=(quarantine,))
    return sandbox.nested_git


def before(sandbox: SessionSandbox) -> Guard:
    """What a command's after-check needs, taken now (blocking: a walk)."""
    shell = sandbox.state.shell
    workspace = sandbox.workspace.resolve()
    guard = Guard(sandboxed=shell is not None, workspace=workspace)
    if shell is not None:
        guard.created = aftercheck.absent(shell.protected())
    guard.watch = watch_of(sandbox)
    if shell is None and guard.watch is not None:  # unsandboxed, in a workspace
        try:
            guard.configs = config_watch.look(workspace)
        except Exception as exc:
            log.exception("the config check could not take its baseline")
            guard.failed = f"{type(exc).__name__}: {exc}"
    if guard.watch is not None:
        try:
            guard.baseline = guard.watch.baseline()
            if guard.sandboxed:
                guard.masked = guard.watch.masks(guard.baseline)
        except Exception as exc:
            log.exception("the git check could not take its baseline")
            guard.failed = f"{type(exc).__name__}: {exc}"
    return guard


def message(
    moved: list[Moved],
    problem: str | None,
    sandboxed: bool,
    shown: Callable[[Path], str],
    who: str = "the command",
) -> str | None:
    """One sentence on what was undone (or that the check could not run), or None; ``who``
    made it (``the command``, ``the hook``)."""
    by = "blocked by the sandbox" if sandboxed else "blocked by agent-tui's after-command check"
    warning = (
        None
        if problem is None
        else "warning: the check for planted config and git hooks could not run fully "
        f"({problem}); look at git status before you run git here"
    )
    if not moved:
        return warning
    box = moved[0].box
    kept = any(m.how in ("moved", "reverted") for m in moved)
    return (
        f"{by}: {who} created or changed {describe(moved, shown)} — protected (it "
        "configures the agent or makes git run a program later: a config key such as "
        "core.fsmonitor, an alias or a filter, a hook, a hooks path, an attributes driver, a "
        "nested or bare repository's config)"
        + (f"; moved to {box}" if kept else "")
        + " — move it back yourself if you meant it, or make the change with the file tools, "
        "which ask" + (f"; {warning}" if warning else "")
    )
