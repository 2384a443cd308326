"""``agent-tui -p`` and background jobs: a server the model starts in the background is gone
when the run ends (the process and its port), and the job's end reaches the next request."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from agent_tui.core.events import JobsEnded, ToolResult, parse_event
from tests.core.jobs.helpers import PORT, pids_with, port_open, server_command
from tests.core.providers.conftest import FakeServer
from tests.test_cli_headless import run_cli, write_script
from tests.test_cli_text import reply_calls, reply_text
from tests.test_cli_text import run_cli as run_openai


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


JOB = "until [ -e go ];do sleep .02;done;echo built;>ended;exit 1"


def test_the_next_request_to_an_openai_server_is_told(tmp_path: Path) -> None:
    """Against a real 127.0.0.1 OpenAI-format server: the job tools join the tools array once
    there is a job, and the request after the job ended carries the note."""
    server = FakeServer()
    server.start()
    try:
        # The job waits for `go`, which the second call makes: ended before the first call's
        # batch was over, it would be told to the second request, not to the third.
        job = {"command": JOB, "run_in_background": True}
        reply_calls(server, ("s", "run_shell", job))
        wait = "touch go; until [ -e ended ]; do sleep .02; done; sleep 1"  # it ends meanwhile
        reply_calls(server, ("w", "run_shell", {"command": wait}))
        reply_text(server, "The build failed.")
        done = run_openai(server, "-p", "build it", "--allow", "run_shell", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        bodies = [request.json for request in server.requests]
    finally:
        server.stop()
    tools = [{t["function"]["name"] for t in body["tools"]} for body in bodies]
    assert "run_shell" in tools[0]
    assert not tools[0] & {"shell_output", "shell_kill"}
    assert {"shell_output", "shell_kill"} <= tools[1]
    told = [m for m in bodies[2]["messages"] if "<background-jobs>" in str(m.get("content"))]
    assert len(told) == 1
    assert told[0]["role"] == "user"
    line = f'background job 1 `{JOB}` exited 1; 1 new line: use shell_output(id="1")'
    assert line in told[0]["content"]
    assert f"⚙ background job 1 exited 1: {JOB}" in done.stderr
