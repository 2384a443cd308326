"""What the shell tools share about background jobs: starting one (``run_shell`` with
``run_in_background``, through the same ``spawn`` as any command, after the same permission
decision: the flag is not part of what the permission engine judges), finding one by id, and
saying a job's state to the model."""

from __future__ import annotations

import asyncio
import os

from pydantic import Field, field_validator

from agent_tui.core.calls import ResultFacts
from agent_tui.core.jobs import JobInfo, JobManager, UnknownJob
from agent_tui.core.jobs.info import elapsed_text
from agent_tui.core.tools.base import ToolContext, ToolInput, ToolOutput
from agent_tui.core.tools.builtin.shell_spawn import spawn
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.paths import shown


class JobInput(ToolInput):
    id: str = Field(min_length=1, description='The job id run_shell returned, e.g. "1".')

    @field_validator("id", mode="before")
    @classmethod
    def _number(cls, value: object) -> object:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def jobs_of(ctx: ToolContext) -> JobManager:
    if ctx.jobs is None:
        raise ToolFailure(
            "no_background_jobs",
            "Background jobs are not available here.",
            "Run the command in the foreground (without run_in_background).",
        )
    return ctx.jobs


def job_of(ctx: ToolContext, job_id: str) -> JobManager:
    """The manager, after checking ``job_id`` names one of its jobs (else a clear error)."""
    jobs = jobs_of(ctx)
    try:
        jobs.get(job_id)
    except UnknownJob as exc:
        raise ToolFailure(
            "unknown_job",
            str(exc),
            "Use an id that run_shell returned for a job started with run_in_background.",
        ) from None
    return jobs


ISOLATED_PORTS = (
    "It runs in the sandbox without network: a server it starts listens inside that sandbox "
    "only. No later command (each runs in a sandbox of its own) and not the user can reach its "
    "ports. A server meant to be reached needs the sandbox's network on (the user's setting "
    '"sandbox": {"network": "on"}).'
)
"""Told with a job started in a sandbox without network (its own network namespace)."""


def state_line(info: JobInfo) -> str:
    """``[job 1: running for 12s, pid 4242]``, ``[job 1: exited 0 after 3s]``."""
    took = elapsed_text(info.elapsed())
    if info.running:
        return f"[job {info.id}: running for {took}, pid {info.pid}]"
    return f"[job {info.id}: {info.status} after {took}]"


async def start_job(command: str, ctx: ToolContext) -> ToolOutput:
    """Start ``command`` as a background job of the session and return at once."""
    from agent_tui.core.sandbox import command_guard  # a command's first run imports it

    jobs = jobs_of(ctx)
    shell = ctx.sandbox.state.shell
    guard = await asyncio.to_thread(command_guard.before, ctx.sandbox)
    read_fd, write_fd = os.pipe()
    try:
        proc = await spawn(command, ctx, write_fd, guard.masked)
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)

    async def after() -> str | None:  # what the command planted, undone when it ends
        moved, problem = await asyncio.to_thread(guard.after)
        return command_guard.message(moved, problem, guard.sandboxed, lambda p: shown(p, ctx))

    info = jobs.adopt(command, proc, read_fd, after)
    text = (
        f"Started background job {info.id} (pid {info.pid}): {command}\n"
        f'Read its new output with shell_output(id="{info.id}"); stop it with '
        f'shell_kill(id="{info.id}"). You are told when it ends. Its whole output is saved '
        f"in {info.log}."
    )
    if shell is not None and not shell.network:
        text += f"\n{ISOLATED_PORTS}"
    return ToolOutput(
        text,
        data={"job_id": info.id, "command": command, "log": info.log, "pid": info.pid},
        summary=f"background job {info.id}",
        never_spill=True,
        facts=ResultFacts(
            sandboxed=shell is not None,
            network=shell.network if shell is not None else None,
        ),
    )
