"""``agent-tui -p`` with a lazy server, as a user runs it (a real subprocess, the real fixture
server): the first run starts it at launch (no cache yet) and caches its tools; the second run
leaves it unstarted, so the call of one of its tools reports ``starting_server`` before the
server's real answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.events import parse_event
from agent_tui.core.state.paths import cache_dir, config_dir
from tests.core.mcp.conftest import fixture_entry, write_config
from tests.test_cli_headless import run_cli, write_script


@pytest.mark.timeout(300)  # two whole runs of agent-tui, each starting a server
def test_a_lazy_server_starts_on_its_first_call_in_a_headless_run(workspace: Path) -> None:
    config_dir().mkdir(parents=True, exist_ok=True)
    write_config(config_dir() / "mcp.json", {"fx": fixture_entry()})
    settings = {"mcp": {"start": "lazy"}}
    (config_dir() / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    call = {"id": "c1", "name": "run_tool", "arguments": {"name": "mcp__fx__pid", "input": {}}}
    script = write_script(workspace / "s.json", [{"tool_calls": [call]}, {"text": "Done."}])

    def run() -> list[Any]:
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
        return [parse_event(line) for line in done.stdout.splitlines()]

    first = run()  # no cache: started at launch, connected before the model's first request
    assert not any(e.type == "tool_progress" and e.starting_server for e in first)
    assert list((cache_dir() / "mcp-tools").glob("*.json"))

    second = run()
    progress = [e for e in second if e.type == "tool_progress"]
    assert [e.starting_server for e in progress if e.starting_server] == ["fx"]
    result = next(e for e in second if e.type == "tool_result")
    assert result.content.strip().isdigit()
