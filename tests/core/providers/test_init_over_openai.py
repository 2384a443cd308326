"""``agent-tui init`` with a real model: one request to an OpenAI-wire server on 127.0.0.1,
carrying the project's survey; the answer becomes AGENTS.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _init(cwd: Path, base_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[3] / "src")
    env["AGENT_BASE_URL"] = base_url
    env["AGENT_API_KEY"] = "k"
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", "init", "--model", "openai:gpt-4o", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_init_asks_the_model_once_with_the_layout(server, tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/x\n")
    (tmp_path / "cmd").mkdir()
    (tmp_path / "README.md").write_text("# Widget service\n")
    answer = "```markdown\n# AGENTS.md\n\nRun `go test ./...`.\n```"
    server.add_sse(server.sse_bytes(_chunk({"content": answer}, "stop"), "[DONE]"))

    done = _init(tmp_path, f"{server.url}/v1")

    assert done.returncode == 0, done.stderr
    assert (tmp_path / "AGENTS.md").read_text() == "# AGENTS.md\n\nRun `go test ./...`.\n"
    assert "written by openai:gpt-4o" in done.stdout
    (request,) = server.requests
    body = request.json
    assert "tools" not in body
    prompt = body["messages"][-1]["content"]
    for fact in ("Languages: Go", "go.mod", "cmd/", "README title: Widget service"):
        assert fact in prompt
    assert "Test command: go test ./..." in prompt


def test_a_failed_request_writes_nothing(server, tmp_path: Path) -> None:
    server.add_json(400, {"error": {"message": "no such model", "type": "invalid"}})
    done = _init(tmp_path, f"{server.url}/v1")
    assert done.returncode == 1
    assert "nothing written" in done.stderr
    assert "no such model" in done.stderr
    assert not (tmp_path / "AGENTS.md").exists()
    assert json.loads(server.requests[0].body)["model"] == "gpt-4o"
