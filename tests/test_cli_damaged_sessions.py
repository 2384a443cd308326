"""``--continue`` never opens another session without saying so (issue 38, item 3): a
session with bytes that are not UTF-8 is read past its damage, which is reported with file and
line; a newer session whose header cannot be read is named, with how to resume it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.test_cli_headless import run_cli, write_script


def _sessions() -> list[Path]:
    root = Path(os.environ["AGENT_TUI_DATA_DIR"]) / "sessions"
    return sorted(root.glob("*.jsonl"))


def _two_sessions(workspace: Path) -> tuple[Path, Path]:
    script = write_script(workspace / "s.json", [{"text": "an answer"}])
    run_cli("-p", "the older one", "--model", f"script:{script}", cwd=workspace)
    (first,) = _sessions()
    # file names are stamped to the second: date the first one back, so it sorts first
    older = first.rename(first.with_name("20000101T000000-" + first.name.split("-", 1)[1]))
    first.with_name(first.name + ".seal").unlink()
    _accept(workspace, older)  # renamed by hand: its seal is made anew
    run_cli("-p", "the newest one", "--model", f"script:{script}", cwd=workspace)
    (newest,) = [p for p in _sessions() if p != older]
    return older, newest


def _continue(workspace: Path) -> dict:  # type: ignore[type-arg]
    script = write_script(workspace / "s2.json", [{"text": "again"}])
    done = run_cli(
        "-p",
        "go on",
        "--model",
        f"script:{script}",
        "--continue",
        "--output-format",
        "json",
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _accept(workspace: Path, session: Path) -> None:
    """The user accepts a session changed outside agent-tui as theirs (its seal is renewed)."""
    done = run_cli("trust", "--session", str(session), "--yes", cwd=workspace)
    assert done.returncode == 0, done.stderr


def test_an_undecodable_byte_in_the_newest_session_is_refused_then_read_past(
    workspace: Path,
) -> None:
    """Changed outside agent-tui, the newest session is not loaded in silence, nor an older
    one instead: --continue says which file and how to accept it; accepted, it is read past
    its damage, which is reported with its line."""
    _, newest = _two_sessions(workspace)
    lines = newest.read_bytes().split(b"\n")
    at = next(i for i, line in enumerate(lines) if b'"role": "user"' in line)
    lines[at] = lines[at].replace(b"the newest one", b"the newest \xff one")  # first 8 KB
    newest.write_bytes(b"\n".join(lines))
    script = write_script(workspace / "s2.json", [{"text": "again"}])
    refused = run_cli("-p", "go on", "--model", f"script:{script}", "--continue", cwd=workspace)
    assert refused.returncode == 1
    assert str(newest) in refused.stderr
    assert "agent-tui trust --session" in refused.stderr
    _accept(workspace, newest)
    result = _continue(workspace)
    warnings = result["warnings"]
    assert any(f"{newest}: line {at + 1} held bytes that are not UTF-8" in w for w in warnings)
    from agent_tui.core.conversation.session import SessionLog

    contents = [m.content for m in SessionLog.load(newest).messages]
    assert contents[0] == "the newest \ufffd one"
    assert contents[-2:] == ["go on", "again"]  # it went on in the newest session


def test_a_newest_session_with_a_damaged_header_is_named_with_how_to_resume(
    workspace: Path,
) -> None:
    older, newest = _two_sessions(workspace)
    data = newest.read_bytes()
    newest.write_bytes(b"\x00garbage" + data[data.index(b"\n") :])
    result = _continue(workspace)
    (note,) = [w for w in result["warnings"] if "passed over" in w]
    assert str(newest) in note
    assert f"agent-tui --resume {newest}" in note
    # and, once accepted as the user's, the named command resumes it
    _accept(workspace, newest)
    script = write_script(workspace / "s3.json", [{"text": "resumed"}])
    done = run_cli(
        "-p",
        "here",
        "--model",
        f"script:{script}",
        "--resume",
        str(newest),
        "--output-format",
        "json",
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr
    from agent_tui.core.conversation.session import SessionLog

    assert [m.content for m in SessionLog.load(newest).messages][-2:] == ["here", "resumed"]
    assert [m.content for m in SessionLog.load(older).messages] == [
        "the older one",
        "an answer",
        "go on",
        "again",
    ]
