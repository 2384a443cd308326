"""Red team: an unsandboxed command reads the agent's own ``/proc/<pid>/environ``.

Commands lose the provider keys from their own environment (``unsandboxed_env``), but the agent
that runs them is one ``cat`` away: the kernel shows any process's start-up environment to the
user's other processes. Run for real: a process holding canary keys, read from outside before
and after ``hide_provider_keys``; then ``agent-tui -p`` with a scripted model whose command
walks its ancestors' ``/proc/<pid>/environ`` (the agent among them) and every process's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.sandbox.own_environ import hidden_names

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="/proc/<pid>/environ")
ROOT = Path(__file__).resolve().parents[3]

HOLDER = """
import os, subprocess, sys
from agent_tui.core.sandbox.own_environ import hide_provider_keys
if sys.argv[1] == "hide":
    print(",".join(hide_provider_keys()), flush=True)
else:
    print("", flush=True)
inherited = subprocess.run(["sh", "-c", "env"], capture_output=True, text=True).stdout
print(os.environ["ANTHROPIC_API_KEY"] == sys.argv[2], "CANARY" in inherited, flush=True)
sys.stdin.readline()
"""
"""A process holding canary keys from its start; it hides them (or not), says what it hid,
whether ``os.environ`` still has the key and whether a child started without an explicit
environment got one, then waits to be read from outside."""


def _canaries() -> dict[str, str]:
    tag = uuid.uuid4().hex[:12]
    return {
        "ANTHROPIC_API_KEY": f"sk-ant-CANARY-{tag}",
        "AGENT_API_KEY": f"sk-agent-CANARY-{tag}",
        "COPIED": f"Bearer sk-ant-CANARY-{tag}",
        "NOT_A_KEY": f"plain-{tag}",
    }


def _read_from_outside(mode: str, canaries: dict[str, str]) -> tuple[list[str], bytes]:
    env = {**os.environ, **canaries, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, mode, canaries["ANTHROPIC_API_KEY"]],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdin is not None
    try:
        hid = [n for n in proc.stdout.readline().strip().split(",") if n]
        kept, inherited = proc.stdout.readline().split()
        assert kept == "True"  # the providers still read the key from os.environ
        assert inherited == ("False" if mode == "hide" else "True")
        seen = Path(f"/proc/{proc.pid}/environ").read_bytes()
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return hid, seen


def test_a_process_that_hid_its_keys_shows_none() -> None:
    canaries = _canaries()
    _, before = _read_from_outside("keep", canaries)
    assert b"CANARY" in before  # the attack is real: the start-up block holds them
    hid, after = _read_from_outside("hide", canaries)
    assert sorted(hid) == ["AGENT_API_KEY", "ANTHROPIC_API_KEY", "COPIED"]
    assert b"CANARY" not in after
    assert f"NOT_A_KEY={canaries['NOT_A_KEY']}".encode() in after  # the rest as it was
    assert b"ANTHROPIC_API_KEY=\0" in after


def test_the_names_hidden_are_the_ones_commands_lose() -> None:
    environ = {
        "ANTHROPIC_API_KEY": "sk-ant-0123456789",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "ALIAS": "x sk-ant-0123456789 y",
        "GITHUB_TOKEN": "ghp_kept_for_the_users_commands",
        "PATH": "/usr/bin",
    }
    assert hidden_names(environ) == {"ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ALIAS"}


WALK = (
    '{ p=$$; while [ "$p" -gt 1 ]; do '
    "tr '\\0' '\\n' </proc/$p/environ 2>/dev/null | sed \"s/^/$p:/\"; "
    "p=$(awk '{print $4}' /proc/$p/stat); done; "
    "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; } > seen.txt; true"
)
"""Every ancestor's start-up environment, each line under its pid, then every process's."""


@pytest.mark.parametrize("mode", ["off", "required"])
def test_a_command_cannot_read_the_agents_keys(tmp_path: Path, mode: str) -> None:
    if mode == "required" and (problem := Bubblewrap().problem()) is not None:
        pytest.skip(f"no sandbox here: {problem}")
    work = tmp_path / "work"
    work.mkdir()
    config = Path(os.environ["AGENT_TUI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"sandbox": {"mode": mode}}))
    script = tmp_path / "script.json"
    (work / "walk.sh").write_text(WALK + "\n")  # the analysis asks for a /proc read it sees
    call = {"name": "run_shell", "arguments": {"command": "sh walk.sh"}}
    script.write_text(json.dumps({"turns": [{"tool_calls": [call]}, {"text": "done"}]}))
    canaries = _canaries()
    env = {**os.environ, **canaries, "PYTHONPATH": str(ROOT / "src")}
    argv = ["-p", "go", "--output-format", "stream-json", "--model", f"script:{script}"]
    argv += ["--permission-mode", "bypass", "--allow", "run_shell(sh walk.sh)"]
    child = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", "--cwd", str(work), *argv],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = child.communicate(timeout=180)
    assert child.returncode == 0, err
    assert (work / "seen.txt").exists(), out + err
    seen = (work / "seen.txt").read_text(encoding="utf-8", errors="replace")
    assert "CANARY" not in seen
    if mode == "off":  # the walk did reach the agent: its plain variables are there
        assert f"{child.pid}:NOT_A_KEY={canaries['NOT_A_KEY']}" in seen
    assert "CANARY" not in out
