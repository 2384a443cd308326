"""Running one hook command: off the event loop, in its own process group, with the event as
JSON on stdin and a deadline that kills the group. Where it runs is ``placement``'s call: the
user's own hooks as the user's programs, the project's (and user hooks that run a workspace
file) confined — in the session's sandbox when there is one, with an allow-listed environment
and a copy of the transcript it can open (``transcript_view``)."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.hooks.config import HookSpec
from agent_tui.core.hooks.placement import PROJECT_VARS, confined_because, confined_env
from agent_tui.core.hooks.transcript_view import confined_copy, drop_copy
from agent_tui.core.sandbox import SessionSandbox, environment
from agent_tui.core.sandbox.refusal import SandboxRefused
from agent_tui.core.tools.reads import NO_GUARD, ReadGuard

if TYPE_CHECKING:
    from agent_tui.core.sandbox import command_guard

OUTPUT_CAP = 64 * 1024
"""Bytes of stdout and of stderr kept from one hook."""


@dataclass(frozen=True)
class HookProcess:
    """How one hook run ended. ``exit_code`` is None when it did not finish (``timed_out``)
    or did not start (``error``)."""

    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str | None = None
    confined: str | None = None
    """Why it ran confined (None: as the user's own program)."""
    undone: str | None = None
    """What the after-command git check undid of what a confined hook planted (nested git
    config, hooks, attributes…), in one sentence; or that the check could not run."""


async def run_command(
    spec: HookSpec,
    payload: dict[str, Any],
    cwd: Path,
    sandbox: SessionSandbox,
    *,
    env_names: Sequence[str] = (),
    reads: ReadGuard = NO_GUARD,
    extra: Mapping[str, str] | None = None,
) -> HookProcess:
    """Run one hook. The user's own hooks run as the user's programs (``placement``); a
    confined one in the sandbox sees what a command sees: the allow-listed environment
    (``sandbox.environment``, plus the ``shell.env`` names ``env_names``) and not the files
    the read rules protect (``reads``); confined without a sandbox, ``placement``'s
    allow-listed environment. The settings files' ``env`` (``sandbox.env``) as commands get it;
    a user's own hook gets the user's, never a project's. ``extra``: variables of ours it gets
    (``CLAUDE_ENV_FILE``)."""
    confined = await asyncio.to_thread(confined_because, spec, cwd)  # it looks at files
    if confined is None:  # the user's own program: as the user, outside any sandbox
        # with the user's settings ``env`` (never a project's: it would reach past the sandbox)
        own = {**os.environ, **sandbox.env.user}
        env = {**own, **dict.fromkeys(PROJECT_VARS, str(cwd)), **(extra or {})}
        return await _run(spec.argv, spec, payload, cwd, env, None)
    # confined: it runs like a command, so what it plants in git's config is undone after it
    # as after a command (``command_guard``): a project hook is the project's code
    from agent_tui.core.sandbox import command_guard  # a confined hook's first run imports it

    guard = await asyncio.to_thread(command_guard.before, sandbox)
    try:
        done = await _confined(
            spec, payload, cwd, sandbox, confined, env_names, reads, guard, extra or {}
        )
    finally:
        moved, problem = await asyncio.shield(asyncio.to_thread(guard.after))
    shown = functools.partial(_shown, cwd)
    undone = command_guard.message(moved, problem, guard.sandboxed, shown, who="the hook")
    return replace(done, undone=undone) if undone is not None else done


def _shown(cwd: Path, path: Path) -> str:
    return os.path.relpath(path, cwd) if path.is_relative_to(cwd) else str(path)


async def _confined(
    spec: HookSpec,
    payload: dict[str, Any],
    cwd: Path,
    sandbox: SessionSandbox,
    confined: str,
    env_names: Sequence[str],
    reads: ReadGuard,
    guard: command_guard.Guard,
    extra: Mapping[str, str],
) -> HookProcess:
    argv = spec.argv
    state = await asyncio.to_thread(lambda: sandbox.state)
    if state.refuses:
        return HookProcess(
            None,
            error=f"was not run: it runs confined ({confined}) and the sandbox is "
            f"required but unavailable ({state.problem})",
            confined=confined,
        )
    shell = state.shell
    if shell is not None:  # what a command sees: no secret, no file a read rule hides
        plain, masked = argv, guard.masked  # nested git directories kept read-only
        try:
            argv = await asyncio.to_thread(lambda: shell.wrap(plain, cwd, reads.hidden(), masked))
        except SandboxRefused as exc:
            return HookProcess(None, error=f"{exc.reason} {exc.hint}", confined=confined)
        env = {
            **environment.for_command(shell, passed=env_names, chosen=sandbox.env),
            **dict.fromkeys(PROJECT_VARS, str(cwd)),
        }
    else:  # confined without a sandbox: at least no key or secret of the user's
        env = environment.confined_with(confined_env(cwd), sandbox.env)
    copy = None
    where = await asyncio.to_thread(lambda: sandbox.temp_dir) if shell is not None else None
    if where is not None:  # the sandbox hides agent-tui's state: the transcript is copied
        payload, copy = await asyncio.to_thread(confined_copy, payload, where)
    try:
        return await _run(argv, spec, payload, cwd, {**env, **extra}, confined)
    finally:
        if copy is not None:
            await asyncio.shield(asyncio.to_thread(drop_copy, copy))


async def _run(
    argv: list[str],
    spec: HookSpec,
    payload: dict[str, Any],
    cwd: Path,
    env: dict[str, str],
    confined: str | None,
) -> HookProcess:
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return HookProcess(
            None, error=f"could not start ({exc.strerror or exc})", confined=confined
        )
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    try:
        out, err = await asyncio.wait_for(_talk(proc, data), spec.timeout)
    except TimeoutError:
        _kill_group(proc)
        await proc.wait()
        return HookProcess(None, timed_out=True, confined=confined)
    except asyncio.CancelledError:
        _kill_group(proc)
        await proc.wait()
        raise
    return HookProcess(proc.returncode, _text(out), _text(err), confined=confined)


async def _talk(proc: asyncio.subprocess.Process, data: bytes) -> tuple[bytes, bytes]:
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    try:
        proc.stdin.write(data)
        await proc.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass  # a hook that does not read its stdin
    finally:
        proc.stdin.close()
    out, err = await asyncio.gather(_read(proc.stdout), _read(proc.stderr))
    await proc.wait()
    return out, err


async def _read(stream: asyncio.StreamReader) -> bytes:
    kept = bytearray()
    while chunk := await stream.read(65536):
        if len(kept) < OUTPUT_CAP:
            kept += chunk[: OUTPUT_CAP - len(kept)]
    return bytes(kept)


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").strip()
