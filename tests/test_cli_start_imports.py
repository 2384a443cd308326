"""What a headless start imports (issue 45): every start pays for every module it imports, and
the test suite alone starts agent-tui hundreds of times. A one-turn headless run with the demo
model must not import what it does not use — the UI, the MCP client when no server is
configured, the rule suggestions of an approval prompt, tool search, log compression, the
Claude transcript export — and the ones it must still import when they are needed are checked
too. Behaviour, not time: which modules are in ``sys.modules`` at the end of a real run."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fresh_python import python_on_src

PROBE = """
import json, runpy, sys
sys.argv = ["agent-tui", *json.loads(sys.argv[1])]
try:
    runpy.run_module("agent_tui", run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
sys.__stderr__.write("\\nMODULES " + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

NOT_IMPORTED = (
    "textual",
    "rich",
    "mcp",
    "agent_tui.ui",
    "agent_tui.acp",
    "agent_tui.core.mcp.client",
    "agent_tui.core.mcp.client.manager",
    "agent_tui.core.mcp.config.load",
    "agent_tui.core.permissions.suggest",
    "agent_tui.core.disclosure.search",
    "agent_tui.core.disclosure.tokenize",
    "agent_tui.core.budget.compress",
    "agent_tui.core.conversation.claude_export",
    "agent_tui.core.commands.completer",
    "agent_tui.core.mentions.completer",
    "agent_tui.core.mentions.index",
    "html.entities",
    "difflib",  # only a mistaken tool, path or command name asks what it looks like
    # what runs calls, commands, hooks, rewinds and compactions: imported by the first use
    "agent_tui.core.sandbox.command_guard",
    "agent_tui.core.sandbox.git_watch",
    "agent_tui.core.sandbox.quarantine",
    "agent_tui.core.sandbox.zygote",
    "agent_tui.core.sandbox._lifeline_main",
    "agent_tui.core.permissions.shell",
    "agent_tui.core.commands.expand",
    "agent_tui.core.commands.command_shell",
    "agent_tui.core.conversation.rewind",
    "agent_tui.core.checkpoints.restore",
    "agent_tui.core.checkpoints.plan",
    "agent_tui.core.executor.approval",
    "agent_tui.core.executor.batch",
    "agent_tui.core.executor.results",
    "agent_tui.core.executor.permission_hooks",
    "agent_tui.core.hooks.runner",
    "agent_tui.core.hooks.prompts",
    "agent_tui.core.hooks.conditions",
    "agent_tui.core.hooks.verdict",
    "agent_tui.core.conversation.compaction",
    "agent_tui.core.tools.json_schema",
)
"""Not imported by a one-turn headless run of the demo model without MCP configuration."""

HEAVY = ("textual", "rich", "mcp", "httpx", "httpx2", "anyio", "tree_sitter", "tree_sitter_bash")
"""Third-party packages such a run imports none of (pydantic it does: its events are models)."""


def headless_modules(cwd: Path, *args: str, prompt: str = "hello") -> tuple[int, set[str]]:
    """(exit code, the modules imported) of ``agent-tui -p PROMPT --model demo ARGS`` in
    ``cwd``."""
    code, modules, _ = headless_run(cwd, *args, prompt=prompt)
    return code, modules


def headless_run(cwd: Path, *args: str, prompt: str = "hello") -> tuple[int, set[str], str]:
    """``headless_modules`` and what the run printed on stdout."""
    argv = ["-p", prompt, "--model", "demo", *args]
    done = python_on_src(["-c", PROBE, json.dumps(argv)], cwd)
    found = json.loads(done.stderr.rpartition("\nMODULES ")[2])
    return found["code"], set(found["modules"]), done.stdout


def test_a_headless_demo_turn_imports_none_of_what_it_does_not_use(workspace: Path) -> None:
    code, modules = headless_modules(workspace)
    assert code == 0
    assert "agent_tui.core.agent.agent" in modules  # the probe ran the real thing
    assert "agent_tui.core.events" in modules
    imported = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    imported += sorted(m for m in NOT_IMPORTED if m in modules)
    assert imported == []


def test_a_call_imports_what_runs_it_and_still_runs(workspace: Path) -> None:
    """What a headless start leaves out is imported by the first call that needs it: a shell
    command the rules allow runs (and is answered) through the executor's batches, the shell
    analysis and the command guard."""
    code, modules, out = headless_run(
        workspace, "--output-format", "json", "--allow", "run_shell", prompt="run echo lazy-ok"
    )
    assert code == 0
    assert "lazy-ok" in out  # the command ran, and its output came back
    for name in (
        "agent_tui.core.executor.approval",
        "agent_tui.core.executor.batch",
        "agent_tui.core.executor.results",
        "agent_tui.core.permissions.shell",
        "agent_tui.core.sandbox.command_guard",
    ):
        assert name in modules


def test_the_other_output_formats_import_no_more_of_it(workspace: Path) -> None:
    for output in ("json", "stream-json"):
        code, modules = headless_modules(workspace, "--output-format", output)
        assert code == 0
        assert sorted(m for m in NOT_IMPORTED if m in modules) == []


def test_an_mcp_configuration_brings_the_manager_back(workspace: Path) -> None:
    """The manager is left out only when it could find nothing: a ``.mcp.json`` (even an empty
    one) or an ``mcp`` section in a settings file, or a settings file that cannot be read, and
    the run builds it as before (its problems are said)."""
    (workspace / ".mcp.json").write_text("{}")
    _, modules = headless_modules(workspace)
    assert "agent_tui.core.mcp.client.manager" in modules
    (workspace / ".mcp.json").unlink()

    settings = workspace / ".agent-tui" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"mcp": {"start": "lazy"}}))
    _, modules = headless_modules(workspace)
    assert "agent_tui.core.mcp.client.manager" in modules

    settings.write_text("{ not json")
    _, modules = headless_modules(workspace)
    assert "agent_tui.core.mcp.client.manager" in modules

    settings.write_text(json.dumps({"budget": {}}))
    _, modules = headless_modules(workspace)
    assert "agent_tui.core.mcp.client.manager" not in modules


def test_a_broken_mcp_roots_setting_is_still_reported_headless(workspace: Path) -> None:
    """What the manager would have said about the settings' ``mcp`` section is said as before."""
    settings = workspace / ".agent-tui" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"mcp": {"roots": "not a list"}}))
    done = python_on_src(["-m", "agent_tui", "-p", "hello", "--model", "demo"], workspace)
    assert done.returncode == 0
    assert '"mcp.roots" must be a list' in done.stderr
