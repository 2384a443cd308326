"""Without anyone to ask (``agent-tui -p``, ``agent-tui mcp call``) a server's elicitation is
declined, and stderr says so and what to do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.core.helpers import write_script
from tests.core.mcp.conftest import ROOT, write_config
from tests.core.mcp.test_elicitation import elicit_entry
from tests.trusting import trust_everything


def test_headless_declines_and_says_so(tmp_path: Path) -> None:
    """``agent-tui -p``: the model calls a tool that asks; the server gets a decline, the
    model reads what the server made of it, stderr says why and what to do."""
    write_config(tmp_path / ".mcp.json", {"el": elicit_entry()})
    trust_everything(tmp_path)
    script = write_script(
        tmp_path / "script.json",
        [{"tool_calls": [{"name": "mcp__el__signup", "arguments": {}}]}, {"text": "done"}],
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_tui",
            "--cwd",
            str(tmp_path),
            "-p",
            "sign me up",
            "--model",
            f"script:{script}",
            "--output-format",
            "json",
            "--allow",
            "mcp__el",
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    [tool] = [e for e in result["events"] if e["type"] == "tool_result"]
    assert json.loads(tool["content"]) == {"action": "decline", "content": None}
    assert (
        "agent-tui: mcp: the MCP server 'el' asked for input (Sign up for the newsletter); "
        "headless mode declines — run interactively to answer it"
    ) in done.stderr


def test_mcp_call_declines_and_says_so(tmp_path: Path) -> None:
    write_config(tmp_path / ".mcp.json", {"el": elicit_entry()})
    trust_everything(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "agent_tui", "mcp", "call", "el", "visit"],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr
    assert '"action": "decline"' in done.stdout
    assert "asked for input (Connect your account); headless mode declines" in done.stderr
