"""``agent-tui -p`` and background jobs: a server the model starts in the background is gone
when the run ends (the process and its port), and the job's end reaches the next request."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from agent_tui.core.events import JobsEnded, ToolResult, parse_event
from tests.core.jobs.helpers import PORT, pids_with, port_open, server_command
from tests.test_cli_headless import run_cli, write_script


def test_a_headless_run_kills_its_background_server(workspace: Path) -> None:
    marker = f"srv-{secrets.token_hex(4)}"
    start = {"command": server_command(marker), "run_in_background": True}
    turns = [
        {"tool_calls": [{"id": "s", "name": "run_shell", "arguments": start}]},
        {"tool_calls": [{"id": "w", "name": "run_shell", "arguments": {"command": "sleep 1"}}]},
        {"tool_calls": [{"id": "o", "name": "shell_output", "arguments": {"id": "1"}}]},
        {"text": "The server runs."},
    ]
    script = write_script(workspace / "s.json", turns)
    done = run_cli(
        "-p", "serve", "--model", f"script:{script}", "--allow", "run_shell",
        "--output-format", "stream-json", cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [parse_event(line) for line in done.stdout.splitlines()]
    results = {e.id: e for e in events if isinstance(e, ToolResult)}
    assert "Started background job 1" in results["s"].content
    found = PORT.search(results["o"].content)
    assert found, results["o"].content
    assert "[job 1: running for" in results["o"].content
    port = int(found.group(1))
    assert not any(isinstance(e, JobsEnded) for e in events)
    deadline = time.monotonic() + 10
    while pids_with(marker) or port_open(port):  # gone when the run ended
        assert time.monotonic() < deadline, "the server outlived the headless run"
        time.sleep(0.05)
