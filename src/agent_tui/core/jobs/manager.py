"""The session's background jobs: started (adopted from ``run_shell``), read, killed, listed,
their ends reported once to the model (``take_notes``) and at once to listeners (the TUI).

Ids are ``1``, ``2``… in the order jobs start; an id that names none of ours is an
``UnknownJob`` (the tools turn it into a clear error). ``aclose`` kills every job still
running: the agent calls it when it closes, so no job outlives a normal exit.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from datetime import UTC, datetime

from agent_tui.core.budget.store import SpillStore
from agent_tui.core.jobs.groups import Started
from agent_tui.core.jobs.info import JobInfo, UnknownJob
from agent_tui.core.jobs.job import After, Job

JOB_TOOL = "shell_job"
"""The tool name in a job's spill file name (``…-shell_job-job1-….txt``)."""
log = logging.getLogger(__name__)

JobListener = Callable[[JobInfo], None]


class JobManager:
    def __init__(self, store: SpillStore) -> None:
        self.store = store
        self._jobs: dict[str, Job] = {}
        self._next = 1
        self._listeners: list[JobListener] = []

    # -- starting -----------------------------------------------------------------------------

    def adopt(
        self,
        command: str,
        proc: Started,
        pipe_fd: int,
        after: After | None = None,
    ) -> JobInfo:
        """Follow ``proc`` (started by ``run_shell``, leading its process group) as a new job;
        its output comes from ``pipe_fd`` (owned from now). Blocking for a moment (the spill
        file is made): call it on the loop's thread, which started the process."""
        job_id = str(self._next)
        self._next += 1
        try:
            writer = self.store.open_writer(
                JOB_TOOL, f"job{job_id}", datetime.now(UTC), summary=command
            )
        except BaseException:
            os.close(pipe_fd)
            raise
        job = Job(
            job_id, command, proc, writer, self.store.shown(writer.path), self._changed, after
        )
        self._jobs[job_id] = job
        job.start(pipe_fd)
        self._changed(job)
        return job.info()

    # -- what the tools and front ends use ---------------------------------------------------

    def get(self, job_id: str) -> Job:
        job = self._jobs.get(str(job_id).strip().removeprefix("job").strip())
        if job is None:
            raise UnknownJob(str(job_id), list(self._jobs))
        return job

    def infos(self) -> list[JobInfo]:
        """Every job of the session, oldest first."""
        return [job.info() for job in self._jobs.values()]

    def running(self) -> list[JobInfo]:
        return [info for info in self.infos() if info.running]

    async def kill(self, job_id: str, by: str = "model") -> JobInfo:
        """Stop the job (its whole process group) and wait for its end; a job already ended
        is left as it is."""
        job = self.get(job_id)
        await job.kill(by)
        return job.info()

    async def kill_all(self, by: str = "exit") -> None:
        jobs = [job for job in self._jobs.values() if job.info().running]
        if jobs:
            await asyncio.gather(*(job.kill(by) for job in jobs), return_exceptions=True)

    async def aclose(self) -> None:
        """Kill every job still running (the agent closes)."""
        await self.kill_all("exit")

    async def output_file(self, job_id: str) -> str:
        """The spill file holding the job's whole output (as the model sees paths); while it
        runs, a copy of what it wrote so far (its own file is complete only at its end)."""
        job = self.get(job_id)
        if job.done.is_set():
            return job.log_shown
        record = await asyncio.to_thread(job.copy_to, self.store, JOB_TOOL)
        return record.shown

    def take_notes(self) -> list[JobInfo]:
        """The jobs that ended since the last call and were not stopped by the model: what
        the next model request should be told (each once)."""
        out = []
        for job in self._jobs.values():
            if job.done.is_set() and not job.noted:
                job.noted = True
                out.append(job.info())
        return out

    # -- listeners ------------------------------------------------------------------------------

    def subscribe(self, listener: JobListener) -> Callable[[], None]:
        """Call ``listener`` (on the loop's thread) with a job's info each time it starts, has
        new output (at most every 0.2 s) or ends; returns the unsubscribe."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _changed(self, job: Job) -> None:
        info = job.info()
        for listener in list(self._listeners):
            try:
                listener(info)
            except Exception:  # a broken listener must not stop a job
                log.exception("a background-job listener failed")
