"""End to end: ``agent-tui -p`` with a script model, a real shell, real spill files."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from agent_tui.core.events import Event, parse_event
from tests.test_cli_headless import run_cli

ROWS = 45_000
PROGRAM = (
    "import sys; sys.stdout.write(''.join("
    f"f'row {{i}}: id={{i * 7}} name=user_{{i}} status=active\\n' for i in range({ROWS})))"
)
COMMAND = f"{shlex.quote(sys.executable)} -c {shlex.quote(PROGRAM)}"


def expected_output() -> str:
    """What COMMAND prints (what a spill of it holds; the model also reads the exit code)."""
    return "".join(f"row {i}: id={i * 7} name=user_{i} status=active\n" for i in range(ROWS))


def agent_tui(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd)


def run_script(cwd: Path, turns: list[dict[str, object]], *args: str) -> list[Event]:
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": turns}))
    done = agent_tui(
        cwd, "-p", "go", "--model", f"script:{script}", "--output-format", "stream-json", *args
    )
    assert done.returncode == 0, done.stderr
    return [parse_event(line) for line in done.stdout.splitlines()]


def shell_turn() -> dict[str, object]:
    call = {"id": "big", "name": "run_shell", "arguments": {"command": COMMAND}}
    return {"text": "Printing.", "tool_calls": [call]}


def test_a_2mb_shell_output_is_spilled_excerpted_and_read_back(workspace: Path) -> None:
    events = run_script(workspace, [shell_turn(), {"text": "done"}], "--allow", "run_shell")
    [spill] = [e for e in events if e.type == "spill"]
    [result] = [e for e in events if e.type == "tool_result"]
    output = expected_output()
    assert len(output) > 2_000_000
    # the model got an excerpt of about 2K characters and the pointer
    assert result.spill is not None
    assert result.spill.path == spill.path
    assert (result.spill.chars, result.spill.lines) == (len(output), ROWS)
    assert 2_000 <= len(result.content) <= 2_800
    assert result.content.startswith("row 0: id=0 name=user_0 status=active\nrow 1: ")
    # the exit code is not in the file: the excerpt keeps it, just above the pointer
    excerpt, pointer = result.content.rsplit("\n", 1)
    assert excerpt.endswith(f"row {ROWS - 1}: id={(ROWS - 1) * 7} name=user_{ROWS - 1} "
                            "status=active\n[exit code 0]")  # fmt: skip
    assert pointer.startswith("[Output too large for the context")
    assert spill.path in result.content
    assert f"{len(output):,} chars" in result.content
    assert "read_file(path=" in result.content
    assert "Do not re-run the command" in result.content
    # the spill file is the output, byte for byte, inside the session's directory
    path = workspace / spill.path
    assert spill.path.startswith(".agent-spill/")
    assert path.read_bytes() == output.encode()
    # the session ended; its saved transcript still points at the file, so it was kept;
    # a following read_file (next prompt, same session) pages it by offset/limit
    read = {"name": "read_file", "arguments": {"path": spill.path, "offset": 20_000, "limit": 5}}
    events = run_script(
        workspace, [{"tool_calls": [read]}, {"text": "read"}], "--continue", "--allow", "run_shell"
    )
    [page] = [e for e in events if e.type == "tool_result"]
    rows = page.content.split("\n")
    assert rows[:5] == [f"{n:>6}\trow {n - 1}: id={(n - 1) * 7} name=user_{n - 1} status=active"
                        for n in range(20_000, 20_005)]  # fmt: skip
    assert rows[5] == (
        f"[lines 20000-20004 of {ROWS} — next: "
        f'read_file(path="{spill.path}", offset=20005, limit=5)]'
    )
    assert page.spill is None


def test_text_mode_shows_the_spill_and_settings_apply(workspace: Path) -> None:
    settings = workspace / ".agent-tui" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"budget": {"spill_dir": "out/spills", "preview_chars": 600}}))
    script = workspace / "script.json"
    script.write_text(json.dumps({"turns": [shell_turn(), {"text": "done"}]}))
    done = agent_tui(workspace, "-p", "go", "--model", f"script:{script}", "--allow", "run_shell")
    assert done.returncode == 0, done.stderr
    assert (
        f"⤵ run_shell output spilled: full output ({len(expected_output()):,} chars" in done.stderr
    )
    [spilled] = (workspace / "out" / "spills").glob("*.txt")
    assert f"in out/spills/{spilled.name}" in done.stderr
    assert spilled.read_text() == expected_output()


def test_a_broken_settings_file_is_reported_and_the_run_goes_on(workspace: Path) -> None:
    settings = workspace / ".agent-tui" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"budget": {"per_result_chars": 1000')
    script = workspace / "script.json"
    script.write_text(json.dumps({"turns": [{"text": "fine"}]}))
    done = agent_tui(workspace, "-p", "go", "--model", f"script:{script}")
    assert done.returncode == 0
    assert "fine" in done.stdout
    assert f"settings error: {settings}: is not valid JSON" in done.stderr
    as_json = agent_tui(
        workspace, "-p", "go", "--model", f"script:{script}", "--output-format", "stream-json"
    )
    start = parse_event(as_json.stdout.splitlines()[0])
    assert start.type == "session_start"
    assert str(settings) in start.warnings[0]
