"""``agent-tui mcp list | call | add | remove`` (in process, and once through the entry point)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.cli.main import main
from agent_tui.core.mcp.config.load import user_config_path
from tests.core.mcp.conftest import ROOT, fixture_entry, write_config
from tests.trusting import trust_everything


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["mcp", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_add_and_remove(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cwd = str(workspace)
    code, out, _ = _run(
        capsys,
        "--cwd",
        cwd,
        "add",
        "-e",
        "TOKEN=${MY_TOKEN}",
        "--timeout",
        "30",
        "files",
        "npx",
        "-y",
        "@modelcontextprotocol/server-filesystem",
        ".",
    )
    assert code == 0
    assert "added 'files'" in out
    code, out, _ = _run(
        capsys,
        "--cwd",
        cwd,
        "add",
        "--transport",
        "http",
        "-H",
        "Authorization: Bearer x",
        "remote",
        "https://example.invalid/mcp",
    )
    assert code == 0
    raw = json.loads((workspace / ".mcp.json").read_text())
    assert raw["mcpServers"] == {
        "files": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
            "env": {"TOKEN": "${MY_TOKEN}"},
            "timeout": 30.0,
        },
        "remote": {
            "type": "http",
            "url": "https://example.invalid/mcp",
            "headers": {"Authorization": "Bearer x"},
        },
    }
    code, _, err = _run(capsys, "--cwd", cwd, "add", "files", "other")
    assert code == 2
    assert "already exists" in err
    code, _, err = _run(capsys, "--cwd", cwd, "add", "bad name", "x")
    assert code == 2
    assert "not a valid server name" in err
    code, _, err = _run(capsys, "--cwd", cwd, "add", "-e", "NOEQUALS", "x", "cmd")
    assert code == 2
    assert "KEY=VALUE" in err
    code, out, _ = _run(capsys, "--cwd", cwd, "remove", "remote")
    assert code == 0
    assert list(json.loads((workspace / ".mcp.json").read_text())["mcpServers"]) == ["files"]
    code, _, err = _run(capsys, "--cwd", cwd, "remove", "remote")
    assert code == 2
    assert "no server named 'remote'" in err
    code, _, _ = _run(capsys, "--cwd", cwd, "add", "--scope", "user", "mine", "cmd")
    assert code == 0
    assert "mine" in json.loads(user_config_path().read_text())["mcpServers"]


def test_list(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(
        workspace / ".mcp.json",
        {"fx": fixture_entry(), "dies": fixture_entry("exit-at-start"), "bad": {"command": 1}},
    )
    code, out, _ = _run(capsys, "--cwd", str(workspace), "list", "--json")
    assert code == 1  # the broken entry of "bad"
    listing = json.loads(out)
    servers = {s["name"]: s for s in listing["servers"]}
    assert servers["fx"]["status"] == "connected"
    assert servers["fx"]["transport"] == "stdio"
    assert "mcp__fx__echo" in [t["name"] for t in servers["fx"]["tools"]]
    assert servers["fx"]["tool_count"] == len(servers["fx"]["tools"])
    assert servers["dies"]["status"] == "failed"
    assert servers["dies"]["error"] == "the server exited during start-up"
    assert "fixture: bad configuration, giving up" in servers["dies"]["stderr_tail"]
    assert servers["bad"]["status"] == "failed"
    assert "$.command" in servers["bad"]["error"]
    assert any("'bad'" in p for p in listing["problems"])
    assert "'bad'" in listing["error"]
    cost = listing["tools_cost"]
    assert cost["without_disclosure_tokens"] >= cost["direct_tokens"] > 0
    marks = {t["disclosure"] for t in servers["fx"]["tools"]}
    assert marks <= {"direct", "deferred"}

    write_config(
        workspace / ".mcp.json", {"dies": fixture_entry("exit-at-start"), "fx": fixture_entry()}
    )
    code, out, _ = _run(capsys, "--cwd", str(workspace), "list")
    assert code == 0  # a server that fails among working ones is a status, not an error
    # fx connected in the first list, which cached its tools (lazy, the default): not started
    assert re.search(r"fx  \(stdio: .*\)  lazy: not started, \d+ cached tools", out)
    assert "dies  (stdio: " in out
    assert "failed: the server exited during start-up" in out
    assert "stderr: fixture: bad configuration, giving up" in out


def test_list_fails_when_every_server_failed(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(
        workspace / ".mcp.json",
        {
            "dies": fixture_entry("exit-at-start"),
            "nocmd": {"command": str(workspace / "missing")},
            "off": fixture_entry(disabled=True),
        },
    )
    code, out, _ = _run(capsys, "--cwd", str(workspace), "list")
    assert code == 1  # nothing works: a script checking the exit code must notice
    assert "failed: the server exited during start-up" in out
    assert "command not found" in out
    code, out, _ = _run(capsys, "--cwd", str(workspace), "list", "--json")
    assert code == 1
    servers = {s["name"]: s for s in json.loads(out)["servers"]}
    assert {n: s["status"] for n, s in servers.items()} == {
        "dies": "failed",
        "nocmd": "failed",
        "off": "disabled",
    }
    assert servers["dies"]["failure_kind"] == "exited"
    assert servers["nocmd"]["failure_kind"] == "command_not_found"
    assert servers["nocmd"]["http_status"] is None


def test_an_http_entry_with_an_unset_variable_is_listed_as_http(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broken entry is still said with its transport: an HTTP server whose URL names an
    unset variable was listed as ``(stdio)``."""
    monkeypatch.delenv("NOPE_URL", raising=False)
    write_config(
        workspace / ".mcp.json",
        {
            "typed": {"type": "http", "url": "${NOPE_URL}/mcp"},
            "untyped": {"url": "http://127.0.0.1:1/${NOPE_URL}"},
            "local": {"command": "${NOPE_URL}"},
        },
    )
    code, out, _ = _run(capsys, "--cwd", str(workspace), "list")
    assert code == 1
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert "(http)" in lines["typed"]
    assert "NOPE_URL" in lines["typed"]
    assert "(http)" in lines["untyped"]
    assert "(stdio)" in lines["local"]
    _, out, _ = _run(capsys, "--cwd", str(workspace), "list", "--json")
    servers = {s["name"]: s for s in json.loads(out)["servers"]}
    assert {n: s["transport"] for n, s in servers.items()} == {
        "typed": "http",
        "untyped": "http",
        "local": "stdio",
    }


def test_call(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(workspace / ".mcp.json", {"fx": fixture_entry(), "other": {"command": "nope"}})
    cwd = str(workspace)
    code, out, _ = _run(capsys, "--cwd", cwd, "call", "fx", "echo", "--args", '{"text": "hi"}')
    assert (code, out) == (0, "hi\n")
    code, out, _ = _run(capsys, "--cwd", cwd, "call", "fx", "echo", '{"text": "after"}')
    assert (code, out) == (0, "after\n")  # the arguments may follow the tool's name
    code, out, err = _run(capsys, "--cwd", cwd, "call", "fx", "echo", "{}", "--args", "{}")
    assert (code, out) == (2, "")
    assert "give the arguments once" in err
    code, out, err = _run(capsys, "--cwd", cwd, "call", "fx", "slow", "--args", '{"steps": 2}')
    assert code == 0
    assert out == "counted to 2\n"
    assert "[progress 1/2] step 1 of 2" in err
    code, out, err = _run(capsys, "--cwd", cwd, "call", "fx", "add", "--args", '{"a": 1}')
    assert code == 1
    assert json.loads(out)["code"] == "invalid_arguments"  # what the model would see
    assert err == (
        "agent-tui mcp: the call failed (invalid_arguments): The arguments for mcp__fx__add "
        "do not match its input schema (1 problem).\n  $.b: required field is missing\n"
    )
    code, out, err = _run(capsys, "--cwd", cwd, "call", "fx", "fail")
    assert code == 1
    assert "reported an error" in out
    assert err == (
        "agent-tui mcp: the call failed (mcp_tool_error): mcp__fx__fail reported an error: "
        "it went wrong\n"
    )
    code, out, err = _run(capsys, "--cwd", cwd, "call", "fx", "echo", "--args", "{text: 1}")
    assert (code, out) == (2, "")
    assert err.startswith(
        "agent-tui mcp: the arguments are not valid JSON: Expecting property name"
    )
    assert 'e.g. agent-tui mcp call SERVER TOOL \'{"text": "hi"}\'' in err
    code, out, err = _run(capsys, "--cwd", cwd, "call", "fx", "echo", "--args", "[1]")
    assert (code, out) == (2, "")
    assert "the arguments must be a JSON object, not list" in err
    code, out, err = _run(capsys, "--cwd", cwd, "call", "fx", "big", "--args", '{"chars": 120000}')
    assert code == 0
    assert "[full output saved to .agent-spill/" in err
    assert "Output too large for the context" in out
    code, _, err = _run(capsys, "--cwd", cwd, "call", "fx", "nope")
    assert code == 2
    assert "the MCP server 'fx' has no tool 'nope' (its tools: add, " in err
    assert "echo" in err
    code, _, err = _run(capsys, "--cwd", cwd, "call", "ghost", "echo")
    assert code == 2
    assert "no MCP server named 'ghost' (configured: fx, other)" in err
    assert "`agent-tui mcp list` shows them" in err
    code, _, err = _run(capsys, "--cwd", cwd, "call", "other", "x")
    assert code == 1
    assert err == (
        "agent-tui mcp: MCP server other failed to start: command not found: 'nope' (check "
        "the command and PATH); check .mcp.json / run `agent-tui mcp list`\n"
    )


def test_the_entry_point_routes_mcp(workspace: Path) -> None:
    write_config(workspace / ".mcp.json", {})
    done = subprocess.run(
        [sys.executable, "-m", "agent_tui", "mcp", "--cwd", str(workspace), "list", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["servers"] == []


def _mcp_subprocess(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", "mcp", "--cwd", str(cwd), *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        check=False,
    )


def test_list_on_a_broken_config_prints_the_error_and_fails(workspace: Path) -> None:
    config = workspace / ".mcp.json"
    config.write_text('{"mcpServers": {"fx": }}', encoding="utf-8")
    done = _mcp_subprocess(workspace, "list")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "No MCP servers configured" not in done.stdout + done.stderr
    assert done.stderr == (
        f"agent-tui mcp: configuration error: {config}: is not valid JSON: Expecting value "
        "at line 1 column 23; no server of this file is loaded\n"
    )

    done = _mcp_subprocess(workspace, "list", "--json")
    assert done.returncode == 1
    listing = json.loads(done.stdout)
    assert listing["error"] == (
        f"{config}: is not valid JSON: Expecting value at line 1 column 23; no server of this "
        "file is loaded"
    )
    assert listing["problems"] == [listing["error"]]
    assert listing["servers"] == []

    done = _mcp_subprocess(workspace, "call", "fx", "echo")
    assert done.returncode == 2
    assert f"no MCP server named 'fx' (configured: none); and {config}: is not valid" in (
        done.stderr
    )


def _marker_entry(marker: Path) -> dict[str, object]:
    """A server entry whose process, if it is ever started, leaves ``marker`` behind."""
    code = f"open({str(marker)!r}, 'w').write('started')"
    return {"command": sys.executable, "args": ["-c", code]}


def test_lazy_servers_in_list_and_call(workspace: Path) -> None:
    """Real subprocesses: ``list`` leaves a cached lazy server unstarted (``--connect`` starts
    it), and ``call`` starts only the server it calls, lazy or not."""
    settings = workspace / ".agent-tui" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"mcp": {"start": "lazy"}}), encoding="utf-8")
    write_config(workspace / ".mcp.json", {"fx": fixture_entry(name="cli-lazy")})
    trust_everything(workspace)

    first = _mcp_subprocess(workspace, "list", "--json")  # no cache yet: started, and cached
    assert first.returncode == 0, first.stderr
    (fx,) = json.loads(first.stdout)["servers"]
    assert fx["status"] == "connected"
    tools = [t["name"] for t in fx["tools"]]
    assert "mcp__fx__echo" in tools

    second = _mcp_subprocess(workspace, "list", "--json")
    assert second.returncode == 0, second.stderr
    (fx,) = json.loads(second.stdout)["servers"]
    assert fx["status"] == "lazy"
    assert [t["name"] for t in fx["tools"]] == tools  # the cached list
    assert fx["connect_seconds"] is None
    text = _mcp_subprocess(workspace, "list")
    assert text.returncode == 0, text.stderr
    assert "fx  (stdio: " in text.stdout
    assert f"lazy: not started, {len(tools)} cached tools (--connect starts it)" in text.stdout

    connected = _mcp_subprocess(workspace, "list", "--json", "--connect")
    assert connected.returncode == 0, connected.stderr
    (fx,) = json.loads(connected.stdout)["servers"]
    assert fx["status"] == "connected"

    marker = workspace / "other-started"
    write_config(
        workspace / ".mcp.json",
        {"fx": fixture_entry(name="cli-lazy"), "other": _marker_entry(marker)},
    )
    trust_everything(workspace)
    done = _mcp_subprocess(workspace, "call", "fx", "echo", "--args", '{"text": "hi"}')
    assert (done.returncode, done.stdout) == (0, "hi\n"), done.stderr
    assert not marker.exists()  # only the called server ran
    _mcp_subprocess(workspace, "list", "--json", "--connect")
    assert marker.exists()  # the marker entry does start when asked: the check above is real
