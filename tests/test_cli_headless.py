"""``agent-tui -p`` as a user runs it: a real subprocess, real tools, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agent_tui.core.events import parse_event


def run_cli(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def write_script(path: Path, turns: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text(json.dumps({"turns": turns}))
    return path


def test_stream_json_shows_result_and_errors_and_the_loop_goes_on(workspace: Path) -> None:
    (workspace / "hello.txt").write_text("hello world\n")
    script = write_script(
        workspace / "s.json",
        [
            {
                "text": "Checking.",
                "tool_calls": [
                    {"id": "ok", "name": "read_file", "arguments": {"path": "hello.txt"}},
                    {"id": "nope", "name": "read_fiel", "arguments": {"path": "hello.txt"}},
                    {"id": "bad", "name": "read_file", "raw_arguments": '{"path": hello'},
                ],
            },
            {"text": "Recovered after the errors."},
        ],
    )
    done = run_cli(
        "-p",
        "check",
        "--model",
        f"script:{script}",
        "--output-format",
        "stream-json",
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr
    events = [parse_event(line) for line in done.stdout.splitlines()]
    kinds = [e.type for e in events]
    assert kinds[0] == "session_start"
    assert kinds.count("tool_use") == 3
    result = next(e for e in events if e.type == "tool_result")
    assert result.id == "ok"
    assert "hello world" in result.content
    errors = {e.id: e.code for e in events if e.type == "tool_error"}
    assert errors == {"nope": "unknown_tool", "bad": "invalid_json"}
    assert events[-1].type == "turn_end"
    assert events[-1].reason == "completed"
    assert events[-1].text == "Recovered after the errors."


def test_write_needs_allow_in_headless_mode(workspace: Path) -> None:
    call = {"name": "write_file", "arguments": {"path": "out.txt", "content": "x\n"}}
    script = write_script(workspace / "s.json", [{"tool_calls": [call]}, {"text": "ok"}])
    denied = run_cli(
        "-p", "w", "--model", f"script:{script}", "--output-format", "stream-json", cwd=workspace
    )
    kinds = [json.loads(line)["type"] for line in denied.stdout.splitlines()]
    assert "tool_rejected" in kinds
    assert not (workspace / "out.txt").exists()
    allowed = run_cli(
        "-p",
        "w",
        "--model",
        f"script:{script}",
        "--allow",
        "write_file",
        "--output-format",
        "json",
        cwd=workspace,
    )
    assert allowed.returncode == 0, allowed.stderr
    result = json.loads(allowed.stdout)
    assert result["reason"] == "completed"
    assert (workspace / "out.txt").read_text() == "x\n"


def test_demo_tour_runs_headless_and_is_labelled(workspace: Path) -> None:
    done = run_cli("-p", "tour", "--allow", "*", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert "offline demo model" in done.stderr
    assert "Welcome to agent-tui" in done.stdout
    assert (workspace / ".agent-tour" / "hello.py").exists()
    assert 'greet("agent-tui")' in (workspace / ".agent-tour/hello.py").read_text()
    assert "✓ run_shell" in done.stderr
    as_json = run_cli("-p", "tour", "--output-format", "json", cwd=workspace)
    result = json.loads(as_json.stdout)
    assert result["demo"] is True
    assert result["model"] == "demo"
    kinds = [e["type"] for e in result["events"]]
    assert "tool_group" in kinds
    assert "tool_rejected" in kinds  # no --allow: the write is refused and the tour stops


def test_continue_resumes_the_latest_session_of_the_directory(workspace: Path) -> None:
    script = write_script(workspace / "s.json", [{"text": "first answer"}])
    first = run_cli(
        "-p", "one", "--model", f"script:{script}", "--output-format", "json", cwd=workspace
    )
    session_id = json.loads(first.stdout)["session_id"]
    again = run_cli(
        "-p",
        "two",
        "--model",
        f"script:{script}",
        "--continue",
        "--output-format",
        "stream-json",
        cwd=workspace,
    )
    start = json.loads(again.stdout.splitlines()[0])
    assert start["session_id"] == session_id
    assert start["resumed"] is True


def test_fork_session_continues_in_a_copy(workspace: Path) -> None:
    script = write_script(workspace / "s.json", [{"text": "first answer"}, {"text": "second"}])
    model = f"script:{script}"
    first = run_cli("-p", "one", "--model", model, "--output-format", "json", cwd=workspace)
    original = json.loads(first.stdout)["session_id"]
    forked = run_cli(
        "-p", "two", "--model", model, "--continue", "--fork-session",
        "--output-format", "stream-json", cwd=workspace,
    )  # fmt: skip
    assert forked.returncode == 0, forked.stderr
    start = json.loads(forked.stdout.splitlines()[0])
    assert start["session_id"] != original
    assert start["forked_from"] == original
    assert start["resumed"] is True
    sessions = Path(os.environ["AGENT_TUI_DATA_DIR"]) / "sessions"
    (old,) = sessions.glob(f"*-{original}.jsonl")
    (new,) = sessions.glob(f"*-{start['session_id']}.jsonl")
    prompts = [
        [e["message"]["content"] for e in map(json.loads, f.read_text().splitlines())
         if e["type"] == "message" and e["message"]["role"] == "user"]
        for f in (old, new)
    ]  # fmt: skip
    assert prompts == [["one"], ["one", "two"]]  # the original stays as it was
    alone = run_cli("-p", "x", "--fork-session", cwd=workspace)
    assert alone.returncode == 2
    assert "--fork-session needs --continue or --resume" in alone.stderr


def test_bad_arguments_get_clear_errors(workspace: Path) -> None:
    bad_model = run_cli("-p", "x", "--model", "gpt5", cwd=workspace)
    assert bad_model.returncode == 2
    assert "unknown model spec" in bad_model.stderr
    missing = run_cli("-p", "x", "--resume", "deadbeef", cwd=workspace)
    assert missing.returncode == 2
    assert "no session 'deadbeef'" in missing.stderr
    no_script = run_cli("-p", "x", "--model", "script:missing.json", cwd=workspace)
    assert no_script.returncode == 2
    assert "script file not found" in no_script.stderr


def test_provider_error_exits_non_zero(workspace: Path) -> None:
    script = write_script(workspace / "s.json", [{"error": "rate limited"}])
    done = run_cli("-p", "x", "--model", f"script:{script}", cwd=workspace)
    assert done.returncode == 1
    assert "rate limited" in done.stderr


def test_continue_without_a_session_of_the_directory_says_so_and_fails(
    workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    script = write_script(workspace / "s.json", [{"text": "an answer"}])
    assert run_cli("-p", "one", "--model", f"script:{script}", cwd=other).returncode == 0
    sessions = Path(os.environ["AGENT_TUI_DATA_DIR"]) / "sessions"
    saved = sorted(sessions.iterdir())
    expected = (
        f"agent-tui: No conversation found to continue: no saved session was started in "
        f"{workspace} (sessions are kept in {sessions}). Run without --continue to start a new "
        "one.\n"
    )
    for launch in (["-p", "two", "--model", f"script:{script}"], []):  # headless, then the TUI
        done = run_cli(*launch, "--continue", cwd=workspace)
        assert done.returncode == 1
        assert done.stdout == ""
        assert done.stderr == expected
    assert sorted(sessions.iterdir()) == saved  # no new session was started


def test_the_demo_model_speaks_of_the_headless_run_not_of_the_tui(workspace: Path) -> None:
    (workspace / "README.md").write_text("# hello\n")
    tui_words = ("lane", "card", "Enter", "Esc", "your approval", "You denied")
    for prompt in ("read README.md", "read missing.md", "tour", "help"):
        done = run_cli("-p", prompt, "--model", "demo", cwd=workspace)
        said = done.stdout
        assert said.strip(), done.stderr
        assert not [w for w in tui_words if w in said], (prompt, said)
    done = run_cli("-p", "read README.md", "--model", "demo", cwd=workspace)
    assert done.stdout.endswith(
        "Read `README.md` — this headless run shows a line per call on stderr; the full result "
        "is in the `tool_result` event (`--output-format json` or `stream-json`).\n"
    )
    tour = run_cli("-p", "tour", "--model", "demo", cwd=workspace)
    assert "nobody can be asked in a headless run" in tour.stdout
    assert "That call was refused — its `tool_rejected` event" in tour.stdout


def _session_file(workspace: Path) -> Path:
    (path,) = (Path(os.environ["AGENT_TUI_DATA_DIR"]) / "sessions").glob("*.jsonl")
    return path


def test_a_torn_session_line_is_reported_and_the_next_prompt_kept(workspace: Path) -> None:
    script = write_script(workspace / "s.json", [{"text": "an answer"}])
    run_cli("-p", "one", "--model", f"script:{script}", cwd=workspace)
    path = _session_file(workspace)
    # what a process that died mid-write leaves: a writer appending through SessionLog,
    # killed by the kernel 62 bytes into its line (a file size limit, SIGXFSZ)
    from tests.core.agent_state.crashes import crash_append

    crash_append("mid-write", path, "lost " * 40, cut=62)
    assert not path.read_bytes().endswith(b"\n")
    again = run_cli(  # a plain --continue: the crash asks for no acceptance
        "-p",
        "two",
        "--model",
        f"script:{script}",
        "--continue",
        "--output-format",
        "stream-json",
        cwd=workspace,
    )
    assert again.returncode == 0, again.stderr
    start = json.loads(again.stdout.splitlines()[0])
    assert start["resumed"] is True
    (warning,) = start["warnings"]
    assert "its last line was cut off" in warning
    assert "agent-tui: session: " in again.stderr
    third = run_cli(
        "-p",
        "three",
        "--model",
        f"script:{script}",
        "--continue",
        "--output-format",
        "json",
        cwd=workspace,
    )
    (skipped,) = json.loads(third.stdout)["warnings"]
    assert skipped.startswith(f"session: {path}: 1 unreadable line(s) skipped (line ")
    from agent_tui.core.conversation.session import SessionLog

    contents = [m.content for m in SessionLog.load(path).messages]
    assert contents == ["one", "an answer", "two", "an answer", "three", "an answer"]


def test_a_full_disk_mid_session_is_an_error_event_and_the_turn_goes_on(workspace: Path) -> None:
    """The session file cannot grow (a file size limit, for real): the answer is still
    streamed, the failure is said once, the file keeps only whole lines, and the next run
    continues from what was saved."""
    import resource

    script = write_script(workspace / "s.json", [{"text": "a long answer " * 400}])
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONDONTWRITEBYTECODE"] = "1"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, resource.RLIM_INFINITY))

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_tui",
            "-p",
            "first",
            "--model",
            f"script:{script}",
            "--output-format",
            "stream-json",
        ],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        preexec_fn=limit,
    )
    # the answer was never saved (the limit holds to the end, for the rescue file too): the
    # run says so once, at the end, and exits 4 (issue 38: it exited 0 promising a save)
    assert done.returncode == 4, done.stderr
    assert done.stderr.count("could not be saved") == 1, done.stderr
    assert "1 message of this run could not be saved to" in done.stderr
    assert "they are lost" in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    errors = [e for e in events if e["type"] == "error"]
    assert len(errors) == 1
    assert errors[0]["where"] == "session"
    assert "could not be saved" in errors[0]["message"]
    assert events[-1]["type"] == "turn_end"
    assert events[-1]["reason"] == "completed"
    path = _session_file(workspace)
    assert path.read_bytes().endswith(b"\n")
    again = run_cli(
        "-p",
        "second",
        "--model",
        f"script:{script}",
        "--continue",
        "--output-format",
        "json",
        cwd=workspace,
    )
    assert json.loads(again.stdout)["warnings"] == []
    from agent_tui.core.conversation.session import SessionLog

    roles = [(m.role, m.content[:6]) for m in SessionLog.load(path).messages]
    assert roles == [("user", "first"), ("user", "second"), ("assistant", "a long")]
