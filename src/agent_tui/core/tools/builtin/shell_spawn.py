"""How a shell command is started: one way for ``run_shell``, foreground or background.

``spawn`` runs ``bash -c`` in the session's sandbox (bubblewrap, ``--die-with-parent``) or,
without one, under the lifeline (a watchdog a per-thread zygote clones, ``core.sandbox.zygote``,
or else the watchdog script, ``core.sandbox.lifeline``): either way the command dies with the
agent, ``kill -9`` included. ``child_env`` is the environment it gets.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from agent_tui.core.jobs.groups import Started
from agent_tui.core.sandbox import ShellSandbox, environment
from agent_tui.core.sandbox.refusal import SandboxRefused
from agent_tui.core.sandbox.session_env import SessionEnv
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.errors import ToolFailure

CHILD_ENV = {"PAGER": "cat", "GIT_PAGER": "cat", "TERM": "dumb", "GIT_TERMINAL_PROMPT": "0"}
NO_COLOR_ENV = {"NO_COLOR": "1", "FORCE_COLOR": "0", "CLICOLOR": "0", "NODE_DISABLE_COLORS": "1"}
"""Colour off, for the conventions programs follow: no-color.org (most), FORCE_COLOR=0 (Node's
chalk and supports-color, which ignore NO_COLOR; jest, vitest), CLICOLOR (BSD tools, Rust's
anstream), NODE_DISABLE_COLORS (node itself)."""
FORCE_COLOR_ENV = ("CLICOLOR_FORCE",)
"""Removed with colour off: some programs (BSD ls) force colour when it is set at all."""


def child_env(
    color: bool = False,
    shell: ShellSandbox | None = None,
    passed: Sequence[str] = (),
    extra: Mapping[str, str] | None = None,
    chosen: SessionEnv | None = None,
) -> dict[str, str]:
    """The environment of a command (``sandbox.environment``: allow-listed in the sandbox
    ``shell``, ours without the provider keys outside it), with the non-interactive defaults
    of ``CHILD_ENV`` and, unless ``color`` (the ``shell.color`` setting), the colour-off
    hints. ``passed``: the ``shell.env`` names; ``extra``: what the user's SessionStart hooks
    set (``CLAUDE_ENV_FILE``), filtered alike; ``chosen``: the settings files' ``env``
    (``sandbox.session_env``). Ours win over all of them (``CHILD_ENV``, colour, ``TMPDIR``)."""
    found = environment.for_command(shell, passed=passed, color=color, extra=extra, chosen=chosen)
    env = {**found, **CHILD_ENV}
    if not color:
        env.update(NO_COLOR_ENV)
        for name in FORCE_COLOR_ENV:
            env.pop(name, None)
    return env


async def spawn(
    command: str, ctx: ToolContext, stdout: int, masked: tuple[Path, ...] = ()
) -> Started:
    """Start ``bash -c command`` as every ``run_shell`` call does: in the session's sandbox
    (or under the lifeline), with the command's environment, stdin closed, stdout and stderr
    to ``stdout``, leading a process group of its own. Call it on the loop's thread (the
    lifeline's death signal follows the thread that started it)."""
    shell = shutil.which("bash") or "/bin/sh"
    argv = [shell, "-c", command]
    state = ctx.sandbox.state
    if state.refuses:
        raise ToolFailure(
            "sandbox_unavailable",
            f"The sandbox is required (sandbox.mode is required) but cannot run here: "
            f"{state.problem}.",
            "Ask the user to install bubblewrap or to set sandbox.mode to auto or off.",
        )
    # Either way the command dies with the agent: bwrap has --die-with-parent and its own PID
    # namespace; unsandboxed, the lifeline (a watchdog parent) kills the process group.
    if state.shell is not None:  # finding the files to hide walks the workspace: a thread
        confined, plain = state.shell, argv
        try:
            argv = await asyncio.to_thread(
                lambda: confined.wrap(plain, ctx.cwd, ctx.reads.hidden(), masked)
            )
        except SandboxRefused as exc:
            raise ToolFailure("sandbox_refused", exc.reason, exc.hint) from None
    sandbox = ctx.sandbox
    env = child_env(ctx.shell.color, state.shell, ctx.shell.env, sandbox.hook_env, sandbox.env)
    temp = ctx.sandbox.temp_dir  # the session's own (``sandbox.scratch``): free to write
    if temp is not None:
        env["TMPDIR"] = str(temp)
    try:
        if state.shell is None:  # the first unsandboxed command imports the watchdog's parts
            from agent_tui.core.sandbox import zygote
            from agent_tui.core.sandbox.lifeline import lifeline_argv

            watched = await zygote.start(argv, ctx.cwd, env, stdout)
            if watched is not None:
                return watched
            argv = lifeline_argv(argv)  # no zygote here: the watchdog script
        return await asyncio.create_subprocess_exec(
            *argv,
            cwd=ctx.cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=stdout,
            stderr=stdout,  # the same pipe: stdout and stderr interleave in write order
            env=env,
            start_new_session=True,  # its own process group, killable as a whole
        )
    except OSError as exc:
        raise ToolFailure(
            "spawn_failed",
            f"Could not start {shell}: {exc.strerror or exc}.",
            "Check that the working directory exists and a shell is installed.",
        ) from exc
