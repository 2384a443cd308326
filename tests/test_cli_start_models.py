"""What a headless start builds (issue 45): a pydantic model's validator and schema cost ~1 ms
to build, and a one-turn headless run with the demo model uses few of the ~80 models it
imports. The ones it does not use are left unbuilt (``defer_build``), to be built by their
first use: which models are complete at the end of a real run."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fresh_python import python_on_src

PROBE = """
import json, runpy, sys
sys.argv = ["agent-tui", "-p", "hello", "--model", "demo"]
try:
    runpy.run_module("agent_tui", run_name="__main__")
except SystemExit:
    pass
from pydantic import BaseModel
def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)
built = {
    f"{m.__module__}.{m.__qualname__}": bool(m.__pydantic_complete__)
    for m in subclasses(BaseModel) if m.__module__.startswith("agent_tui")
}
sys.__stderr__.write("\\nMODELS " + json.dumps(built))
"""

NOT_BUILT = (
    "agent_tui.core.tools.base.ToolInput",
    "agent_tui.core.tools.base.JsonInput",
    "agent_tui.core.tools.builtin.shell_output.ShellOutputInput",
    "agent_tui.core.tools.builtin.shell_jobs.JobInput",
    "agent_tui.core.tools.builtin.exit_plan_mode.ExitPlanInput",
    "agent_tui.core.skills.tool.SkillInput",
    "agent_tui.core.disclosure.proxies.SearchToolInput",
    "agent_tui.core.disclosure.proxies.RunToolInput",
    "agent_tui.core.plan.Plan",
    "agent_tui.core.tools.errors.ToolErrorInfo",
    "agent_tui.core.events.ToolResult",
    "agent_tui.core.events.ErrorEvent",
    # their schemas are stored (core.tools.schema.STORED): built by the first call
    "agent_tui.core.tools.builtin.read_file.ReadFileInput",
    "agent_tui.core.tools.builtin.edit_file.EditFileInput",
    "agent_tui.core.tools.builtin.run_shell.RunShellInput",
    "agent_tui.core.tools.builtin.update_plan.UpdatePlanInput",
    "agent_tui.core.tools.builtin.update_plan.StepInput",
    "agent_tui.core.subagents.tool.TaskInput",
)
"""Imported by a one-turn demo run, not used by it: built by their first use."""


def test_a_headless_demo_turn_builds_only_the_models_it_uses(workspace: Path) -> None:
    done = python_on_src(["-c", PROBE], workspace)
    assert done.returncode == 0, done.stderr
    built = json.loads(done.stderr.rpartition("\nMODELS ")[2])
    # what the run used was built: its settings, its events
    for name in ("agent_tui.core.settings.Settings", "agent_tui.core.events.AssistantDelta"):
        assert built[name] is True
    assert [name for name in NOT_BUILT if built[name]] == []
