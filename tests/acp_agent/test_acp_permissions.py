"""``agent-tui acp`` step 2: our pipeline decides, the client only answers what it is asked.

An ask becomes ``session/request_permission`` with allow once / always (the narrowest rule,
what the TUI's "always" saves) / reject; reject, a cancelled answer and any option that was
not offered refuse the call. Red team: a client that answers "allow always" to everything,
or forges an option id, cannot get a denied call or a protected path written (canary files
stay as they were)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acp_agent.helpers import DEADLINE, Editor, running_agent
from tests.acp_agent.test_acp_session import say, text
from tests.core.providers.conftest import FakeServer
from tests.test_cli_text import reply_calls


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


async def _turn(editor: Editor, cwd: Path, server: FakeServer, *args: str) -> str:
    async with running_agent(editor, cwd, *args, server=server) as conn:
        session = await conn.new_session(cwd=str(cwd))
        reply = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("go")), DEADLINE
        )
    return reply.stop_reason


def _write(call: str, path: str, content: str) -> tuple[str, str, dict[str, str]]:
    return (call, "write_file", {"path": path, "content": content})


async def test_an_ask_offers_once_always_and_reject_and_allow_once_runs_it(
    server: FakeServer, tmp_path: Path
) -> None:
    reply_calls(server, _write("call_w", "out.txt", "hello\n"))
    say(server, "Written.")
    editor = Editor()
    editor.answers = ["allow_once"]
    assert await _turn(editor, tmp_path, server) == "end_turn"
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    [asked] = editor.asked
    assert asked["tool_call"].tool_call_id == "call_w"
    kinds = [(o.option_id, o.kind) for o in asked["options"]]
    assert kinds == [
        ("allow_once", "allow_once"),
        ("allow_always", "allow_always"),
        ("reject_once", "reject_once"),
    ]
    assert editor.statuses("call_w") == ["pending", "in_progress", "completed"]
    assert not (tmp_path / ".agent-tui" / "settings.local.json").exists()  # once: no rule


@pytest.mark.parametrize("answer", ["reject_once", "cancelled"])
async def test_reject_and_a_cancelled_answer_refuse_the_call(
    server: FakeServer, tmp_path: Path, answer: str
) -> None:
    reply_calls(server, _write("call_w", "out.txt", "hello\n"))
    say(server, "Not written.")
    editor = Editor()
    editor.answers = [answer]
    assert await _turn(editor, tmp_path, server) == "end_turn"
    assert not (tmp_path / "out.txt").exists()
    assert editor.statuses("call_w") == ["pending", "failed"]
    refused = [m for m in server.requests[-1].json["messages"] if m.get("role") == "tool"]
    assert "denied" in refused[0]["content"].lower()


async def test_allow_always_saves_the_narrowest_rule_and_the_next_call_runs(
    server: FakeServer, tmp_path: Path
) -> None:
    reply_calls(server, ("call_1", "run_shell", {"command": "touch made.txt"}))
    reply_calls(server, ("call_2", "run_shell", {"command": "touch made.txt"}))
    say(server, "Done.")
    editor = Editor()
    editor.answers = ["allow_always"]
    assert await _turn(editor, tmp_path, server) == "end_turn"
    assert (tmp_path / "made.txt").exists()
    [asked] = editor.asked  # the second identical call did not ask
    always = next(o for o in asked["options"] if o.option_id == "allow_always")
    saved = json.loads((tmp_path / ".agent-tui" / "settings.local.json").read_text())
    rules = saved["permissions"]["allow"]
    assert always.name == f"Always allow {', '.join(rules)}"
    # the decision's suggestions, as the TUI's prompt offers and saves them (never run_shell)
    assert rules == ["run_shell(touch:*)", "write_file(/made.txt)"]
    assert editor.statuses("call_2") == ["pending", "in_progress", "completed"]


async def test_red_team_allow_always_cannot_run_a_call_a_deny_rule_refuses(
    server: FakeServer, tmp_path: Path
) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text("untouched\n")
    reply_calls(
        server,
        _write("call_w", "canary.txt", "pwned\n"),
        ("call_rm", "run_shell", {"command": "rm canary.txt"}),
    )
    say(server, "Tried.")
    editor = Editor()
    editor.answers = ["allow_always"] * 5  # says yes, forever, to anything it is asked
    stop = await _turn(
        editor,
        tmp_path,
        server,
        "--deny",
        "write_file(canary.txt)",
        "--deny",
        "run_shell(rm:*)",
        "--permission-mode",
        "bypass",
    )
    assert stop == "end_turn"
    assert canary.read_text() == "untouched\n"
    assert editor.asked == []  # a deny never reaches the client
    assert editor.statuses("call_w") == ["pending", "failed"]
    assert editor.statuses("call_rm") == ["pending", "failed"]
    assert not (tmp_path / ".agent-tui" / "settings.local.json").exists()


@pytest.mark.parametrize("forged", ["yes", "allow", "ALLOW_ONCE", "allow_once "])
async def test_red_team_an_option_not_offered_rejects_a_protected_write(
    server: FakeServer, tmp_path: Path, forged: str
) -> None:
    """Writing the project's own rules is a protected path: it asks in every mode, even in
    bypass. A client that answers anything but an option it was offered gets a rejection,
    and the rules file is never written."""
    loosen = json.dumps({"permissions": {"allow": ["*"]}})
    reply_calls(server, _write("call_p", ".agent-tui/settings.json", loosen))
    say(server, "Tried.")
    editor = Editor()
    editor.answers = [forged]
    stop = await _turn(editor, tmp_path, server, "--permission-mode", "bypass")
    assert stop == "end_turn"
    assert not (tmp_path / ".agent-tui" / "settings.json").exists()
    [asked] = editor.asked
    assert forged not in [o.option_id for o in asked["options"]]
    assert "protected path" in asked["tool_call"].title
    assert editor.statuses("call_p") == ["pending", "failed"]
