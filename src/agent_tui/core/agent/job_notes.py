"""Background jobs and the model requests: the jobs that ended, told to the next request (the
note the model reads, ``core.jobs.notes``, and the ``jobs_ended`` event the front ends show),
and the job tools offered only once the session has a job (``offered``)."""

from __future__ import annotations

from agent_tui.core.events import EndedJob, JobsEnded
from agent_tui.core.jobs import JOB_TOOLS, JobInfo, JobManager, JobState
from agent_tui.core.jobs.notes import note_text
from agent_tui.core.tools.registry import ToolRegistry


def offered(registry: ToolRegistry, jobs: JobManager) -> ToolRegistry:
    """The tools the next request offers (without disclosure): all of them once there is a
    job, else all but the job tools."""
    if jobs.infos() or not any(name in registry for name in JOB_TOOLS):
        return registry
    return ToolRegistry(t for t in registry.tools() if t.name not in JOB_TOOLS)


def take_ended(jobs: JobManager) -> tuple[str, JobsEnded] | None:
    """What ended since the last call (each job once), as (note, event); None: nothing."""
    infos = jobs.take_notes()
    if not infos:
        return None
    return note_text(infos), JobsEnded(jobs=[_ended(info) for info in infos])


def _ended(info: JobInfo) -> EndedJob:
    return EndedJob(
        id=info.id,
        command=info.command,
        state="killed" if info.state is JobState.KILLED else "exited",
        exit_code=info.exit_code,
        new_lines=info.unread_lines,
        log=info.log,
        killed_by=info.killed_by,
    )
