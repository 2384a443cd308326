"""Background jobs in the TUI: a live card per job pinned above the lane (``JobsPanel``: state,
elapsed, last lines, exit), and the ``/shells`` screen (``ShellsScreen``: list, open a job's
whole output, kill), and the question before a new conversation or quitting while jobs run
(``RunningJobsQuestion``). They read ``core.jobs.JobInfo`` (typed fields, never a sentence); what
to do (open, kill) is handed in by the shell.

May import the core, Textual and ``ui.common``; never the other features or the shell."""

from agent_tui.ui.jobs.jobs_panel import JobsPanel
from agent_tui.ui.jobs.shells_screen import ShellsScreen

__all__ = ["JobsPanel", "ShellsScreen"]
