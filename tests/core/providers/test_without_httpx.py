"""Nothing needs httpx: with ``httpx`` and ``httpcore`` blocked, the providers and the headless
CLI still talk to a real server on 127.0.0.1 (they use httpx2, as the MCP SDK does)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[3] / "src"

RUN_BLOCKED = """\
import sys
for name in ("httpx", "httpcore"):
    sys.modules[name] = None  # any import of them now raises ImportError
from agent_tui.cli.main import main
code = main(sys.argv[1:])
loaded = sorted(
    m for m in sys.modules if m.split(".")[0] in ("httpx", "httpcore") and sys.modules[m]
)
print("loaded:", ",".join(loaded), file=sys.stderr)
raise SystemExit(code)
"""


def run_blocked(
    args: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(SRC), **env}
    return subprocess.run(
        [sys.executable, "-c", RUN_BLOCKED, *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def _openai_reply(server) -> None:
    chunk = {"id": "x", "choices": [{"index": 0, "delta": {"content": "pong"}}]}
    done = {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    server.add_sse(server.sse_bytes(chunk, done, "[DONE]"))


def _anthropic_reply(server) -> None:
    events = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "pong"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]
    server.add_sse(server.sse_bytes(*events, event_names=True))


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_headless_turn_runs_with_httpx_blocked(server, tmp_path: Path, kind: str) -> None:
    if kind == "openai":
        _openai_reply(server)
        env = {"AGENT_BASE_URL": f"{server.url}/v1", "AGENT_API_KEY": "k"}
    else:
        _anthropic_reply(server)
        env = {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "k"}
    done = run_blocked(
        ["-p", "ping", "--model", f"{kind}:m", "--output-format", "json"], tmp_path, env
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["model"], result["text"]) == (f"{kind}:m", "pong")
    assert done.stderr.rstrip().endswith("loaded:"), done.stderr
    assert len(server.requests) == 1
