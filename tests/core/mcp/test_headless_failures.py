"""``agent-tui -p`` with an MCP server that fails to start: reported on stderr and in
``session_start.warnings``, and a call to one of its tools answers with its failure reason
(not "unknown tool" with suggestions from the other servers). A real subprocess, real servers."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.events import parse_event
from tests.core.mcp.conftest import fixture_entry, write_config
from tests.test_cli_headless import run_cli, write_script
from tests.trusting import trust_everything


def test_a_server_that_failed_to_start_is_reported_and_its_calls_say_why(
    workspace: Path,
) -> None:
    write_config(
        workspace / ".mcp.json",
        {"dies": fixture_entry("exit-at-start"), "fx": fixture_entry()},
    )
    trust_everything(workspace)
    script = write_script(
        workspace / "s.json",
        [
            {
                "text": "Calling.",
                "tool_calls": [
                    {"id": "dead", "name": "mcp__dies__echo", "arguments": {"text": "a"}},
                    {"id": "live", "name": "mcp__fx__echo", "arguments": {"text": "b"}},
                ],
            },
            {"text": "Done."},
        ],
    )
    done = run_cli(
        "-p",
        "go",
        "--model",
        f"script:{script}",
        "--output-format",
        "stream-json",
        cwd=workspace,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    events = [parse_event(line) for line in done.stdout.splitlines()]
    start = events[0]
    assert start.type == "session_start"
    warning = next(w for w in start.warnings if w.startswith("MCP server dies failed to start"))
    assert "the server exited during start-up" in warning
    assert warning.endswith("check .mcp.json / run `agent-tui mcp list`")
    assert not any("fx" in w for w in start.warnings)
    assert f"agent-tui: {warning}" in done.stderr.splitlines()

    error = next(e for e in events if e.type == "tool_error" and e.id == "dead")
    assert error.code == "mcp_server_unavailable"
    assert "MCP server dies failed to start: the server exited during start-up" in error.message
    assert "mcp__fx__" not in error.message + error.next_step  # no suggestions from others
    assert not any(e.type == "tool_error" and e.id == "live" for e in events)
    result = next(e for e in events if e.type == "tool_result" and e.id == "live")
    assert result.content == "b"


def test_text_output_reports_the_failed_server_on_stderr(workspace: Path) -> None:
    write_config(workspace / ".mcp.json", {"nocmd": {"command": str(workspace / "missing")}})
    trust_everything(workspace)
    script = write_script(workspace / "s.json", [{"text": "Hello."}])
    done = run_cli("-p", "hi", "--model", f"script:{script}", cwd=workspace, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Hello." in done.stdout
    assert (
        "agent-tui: MCP server nocmd failed to start: command not found: "
        f"{str(workspace / 'missing')!r} (check the command and PATH); check .mcp.json / run "
        "`agent-tui mcp list`"
    ) in done.stderr.splitlines()
