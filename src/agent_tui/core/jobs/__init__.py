"""Background jobs: commands ``run_shell`` started with ``run_in_background``, owned by the
session (``manager.JobManager``, one per executor). Each job's whole output goes to a spill file
as it arrives (``job``); the model reads what is new (``shell_output``) and stops a job
(``shell_kill``); a job that ends is reported once to the next model request (``notes``) and
to whoever listens (the TUI's card). Every job is killed when the agent closes; a hard death of
the agent (``kill -9``) kills them too (the sandbox's ``--die-with-parent``, or the lifeline).

May import the standard library, ``core.budget`` (the spill store) and ``core.text``; never
the tools, the executor or the agent: they import it.
"""

from agent_tui.core.jobs.info import JOB_TOOLS, JobInfo, JobState, UnknownJob
from agent_tui.core.jobs.manager import JobManager

__all__ = ["JOB_TOOLS", "JobInfo", "JobManager", "JobState", "UnknownJob"]
