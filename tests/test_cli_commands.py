"""``agent-tui -p`` with slash commands and piped stdin, as a user runs it: a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agent_tui.core.events import parse_event
from tests.core.mcp.conftest import fixture_entry, write_config
from tests.trusting import trust_everything


def run_cli(
    *args: str, cwd: Path, stdin: bytes | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    env["HOME"] = str(cwd.parent / "home")  # no ~/.claude/commands of whoever runs this
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=timeout,
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )


def _script(workspace: Path) -> str:
    path = workspace / "s.json"
    path.write_text(json.dumps({"turns": [{"text": "ok"}]}))
    return f"script:{path}"


def _user_message(done: subprocess.CompletedProcess[bytes]) -> str:
    for line in done.stdout.decode().splitlines():
        event = parse_event(line)
        if event.type == "user_message":
            return str(event.text)
    raise AssertionError(f"no user_message in {done.stdout!r} / {done.stderr!r}")


def test_a_custom_command_runs_headless_with_its_argument(workspace: Path) -> None:
    commands = workspace / ".agent-tui" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review\n---\nReview $1 now.\n")
    done = run_cli(
        "-p", "/review x.py", "--model", _script(workspace), "--output-format", "stream-json",
        cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _user_message(done) == "Review x.py now."


def test_piped_stdin_is_appended_and_decoded_with_replacement(workspace: Path) -> None:
    done = run_cli(
        "-p", "why does this fail?", "--model", _script(workspace),
        "--output-format", "stream-json",
        cwd=workspace, stdin=b"Traceback: boom \xff\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _user_message(done) == "why does this fail?\n\nTraceback: boom \ufffd\n"


def test_dash_reads_the_whole_prompt_from_stdin(workspace: Path) -> None:
    done = run_cli(
        "-p", "-", "--model", _script(workspace), "--output-format", "stream-json",
        cwd=workspace, stdin=b"the prompt itself",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _user_message(done) == "the prompt itself"


def test_stdin_over_the_cap_is_refused(workspace: Path) -> None:
    done = run_cli(
        "-p", "x", "--model", _script(workspace), cwd=workspace, stdin=b"y" * (10 * 2**20 + 1)
    )
    assert done.returncode == 2
    assert b"the input on stdin is over 10 MB" in done.stderr


def test_builtins_headless_help_prints_others_need_the_tui(workspace: Path) -> None:
    helped = run_cli("-p", "/help", "--model", _script(workspace), cwd=workspace)
    assert helped.returncode == 0, helped.stderr
    assert b"/model [spec]" in helped.stdout
    cleared = run_cli("-p", "/clear", "--model", _script(workspace), cwd=workspace)
    assert cleared.returncode == 2
    assert b"/clear needs the TUI" in cleared.stderr
    unknown = run_cli("-p", "/revew", "--model", _script(workspace), cwd=workspace)
    assert unknown.returncode == 2
    assert b"Unknown command /revew" in unknown.stderr


def test_an_mcp_prompt_runs_headless_and_names_missing_arguments(workspace: Path) -> None:
    write_config(workspace / ".mcp.json", {"fx": fixture_entry(name="headless-prompts")})
    trust_everything(workspace)
    done = run_cli(
        "-p", "/mcp__fx__review a.py", "--model", _script(workspace),
        "--output-format", "stream-json", cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _user_message(done) == "Please review a.py."
    missing = run_cli("-p", "/mcp__fx__review", "--model", _script(workspace), cwd=workspace)
    assert missing.returncode == 2
    assert b"needs its required argument(s) path" in missing.stderr
