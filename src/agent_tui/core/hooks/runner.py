"""Running one hook command: off the event loop, in its own process group, in the sandbox when
the session has one, with the event as JSON on stdin and a deadline that kills the group."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.hooks.config import HookSpec
from agent_tui.core.sandbox import SessionSandbox, environment
from agent_tui.core.sandbox.refusal import SandboxRefused
from agent_tui.core.tools.reads import NO_GUARD, ReadGuard

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


async def run_command(
    spec: HookSpec,
    payload: dict[str, Any],
    cwd: Path,
    sandbox: SessionSandbox,
    *,
    env_names: Sequence[str] = (),
    reads: ReadGuard = NO_GUARD,
) -> HookProcess:
    """Run one hook. In the sandbox it sees what a command sees: the allow-listed environment
    (``sandbox.environment``, plus the ``shell.env`` names ``env_names``) and not the files
    the read rules protect (``reads``); unsandboxed, the agent's environment without its
    provider keys."""
    argv = ["/bin/sh", "-c", spec.command]
    state = await asyncio.to_thread(lambda: sandbox.state)
    if state.refuses:
        return HookProcess(
            None, error=f"not run: the sandbox is required and unavailable ({state.problem})"
        )
    shell = state.shell
    if shell is not None:
        plain = argv
        try:
            argv = await asyncio.to_thread(lambda: shell.wrap(plain, cwd, reads.hidden()))
        except SandboxRefused as exc:
            return HookProcess(None, error=f"{exc.reason} {exc.hint}")
    env = {
        **environment.for_command(shell, passed=env_names),
        "CLAUDE_PROJECT_DIR": str(cwd),
        "AGENT_TUI_PROJECT_DIR": str(cwd),
    }
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
        return HookProcess(None, error=f"could not start ({exc.strerror or exc})")
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    try:
        out, err = await asyncio.wait_for(_talk(proc, data), spec.timeout)
    except TimeoutError:
        _kill_group(proc)
        await proc.wait()
        return HookProcess(None, timed_out=True)
    except asyncio.CancelledError:
        _kill_group(proc)
        await proc.wait()
        raise
    return HookProcess(proc.returncode, _text(out), _text(err))


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
