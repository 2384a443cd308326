"""``session/load`` replays a saved session's edits with their diffs, from its checkpoints
(the text before each edit and after it), and says so when the checkpoints cannot tell."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp.schema import FileEditToolCallContent

from agent_tui.core.conversation.session_store import SessionStore
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


def edit(call: str, old: str, new: str) -> tuple[str, str, dict[str, Any]]:
    return (call, "edit_file", {"path": "app.py", "old_string": old, "new_string": new})


def diffs(editor: Editor, call: str) -> list[tuple[str | None, str]]:
    return [
        (c.old_text, c.new_text)
        for u in editor.call_updates(call)
        for c in u.content or []
        if isinstance(c, FileEditToolCallContent)
    ]


def result_text(editor: Editor, call: str) -> str:
    done = editor.call_updates(call)[-1]
    return "".join(c.content.text for c in done.content or [] if c.type == "content")


async def _session_of_edits(server: FakeServer, cwd: Path) -> str:
    """Two turns: the first edits app.py twice and creates new.txt, the second edits app.py
    again; the session's id."""
    (cwd / "app.py").write_text("x = 1\nprint(x)\n")
    reply_calls(server, ("call_r", "read_file", {"path": "app.py"}))
    reply_calls(server, edit("call_a", "x = 1", "x = 2"))
    reply_calls(server, edit("call_b", "print(x)", "print(x + 1)"))
    reply_calls(server, ("call_w", "write_file", {"path": "new.txt", "content": "fresh\n"}))
    say(server, "Done.")
    reply_calls(server, edit("call_c", "x = 2", "x = 3"))
    say(server, "Done again.")
    async with running_agent(
        Editor(), cwd, "--permission-mode", "accept-edits", server=server
    ) as conn:
        session = await conn.new_session(cwd=str(cwd))
        sid = session.session_id
        for prompt in ("edit it", "once more"):
            reply = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=text(prompt)), DEADLINE
            )
            assert reply.stop_reason == "end_turn"
    assert (cwd / "app.py").read_text() == "x = 3\nprint(x + 1)\n"
    return sid


async def test_a_loaded_sessions_edits_replay_with_their_diffs(
    server: FakeServer, tmp_path: Path
) -> None:
    """Each edit's text before and after, wherever the checkpoints keep it: the first edit's
    before in its turn's checkpoint and its after rebuilt from the call (checked by digest),
    the second's after kept by the next turn's checkpoint, the last one's in the file."""
    sid = await _session_of_edits(server, tmp_path)
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        await conn.load_session(cwd=str(tmp_path), session_id=sid)
    assert diffs(editor, "call_a") == [("x = 1\nprint(x)\n", "x = 2\nprint(x)\n")]
    assert diffs(editor, "call_b") == [("x = 2\nprint(x)\n", "x = 2\nprint(x + 1)\n")]
    assert diffs(editor, "call_w") == [(None, "fresh\n")]  # created
    assert diffs(editor, "call_c") == [("x = 2\nprint(x + 1)\n", "x = 3\nprint(x + 1)\n")]
    assert "[no diff" not in result_text(editor, "call_a")


async def test_an_edit_whose_checkpoint_is_gone_says_why_it_has_no_diff(
    server: FakeServer, tmp_path: Path
) -> None:
    sid = await _session_of_edits(server, tmp_path)
    found = SessionStore().find(sid)
    assert found is not None
    shutil.rmtree(found.blobs.root)  # the contents the checkpoints kept, lost
    (tmp_path / "app.py").write_text("changed by someone else\n")
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        await conn.load_session(cwd=str(tmp_path), session_id=sid)
    for call in ("call_a", "call_b", "call_c"):
        assert diffs(editor, call) == []
        assert "[no diff: its content before the turn is gone]" in result_text(editor, call)
        assert editor.statuses(call)[-1] == "completed"
    assert diffs(editor, "call_w") == [(None, "fresh\n")]  # a new file needs no checkpoint


async def test_an_edit_after_a_command_changed_its_file_has_no_diff_made_up(
    server: FakeServer, tmp_path: Path
) -> None:
    """Between two edits of a turn a command appended to the file: the second edit's text
    before is not the first one's after, and the replay says so rather than showing the
    command's change as the edit's."""
    (tmp_path / "app.py").write_text("x = 1\n")
    reply_calls(server, ("call_r", "read_file", {"path": "app.py"}))
    reply_calls(server, edit("call_a", "x = 1", "x = 2"))
    reply_calls(server, ("call_s", "run_shell", {"command": "echo 'y = 0' >> app.py"}))
    reply_calls(server, ("call_r2", "read_file", {"path": "app.py"}))
    reply_calls(server, edit("call_b", "x = 2", "x = 3"))
    say(server, "Done.")
    async with running_agent(
        Editor(), tmp_path, "--permission-mode", "bypass", server=server
    ) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        sid = session.session_id
        reply = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("go")), DEADLINE)
        assert reply.stop_reason == "end_turn"
    assert (tmp_path / "app.py").read_text() == "x = 3\ny = 0\n"
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        await conn.load_session(cwd=str(tmp_path), session_id=sid)
    assert diffs(editor, "call_a") == [("x = 1\n", "x = 2\n")]
    assert diffs(editor, "call_b") == []
    assert "[no diff: a command changed the file between" in result_text(editor, "call_b")
