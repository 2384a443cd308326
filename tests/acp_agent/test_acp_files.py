"""``agent-tui acp`` with an editor that reads and writes files for the agent
(``fs/read_text_file``, ``fs/write_text_file``): the editor's buffer — which differs from the
disk here, so each test proves whose content was used — is what the model reads and edits,
under every check the disk has (read before edit, protected paths, deny rules, outside the
workspace: refused before the editor hears of the file), with the buffer's text kept for
rewind; an editor that refuses or never answers ends the call, never the session."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import (
    ClientCapabilities,
    FileEditToolCallContent,
    FileSystemCapabilities,
    ReadTextFileResponse,
    WriteTextFileResponse,
)

from agent_tui.core.conversation.session_store import SessionStore
from tests.acp_agent.helpers import DEADLINE, Editor, running_agent
from tests.acp_agent.test_acp_session import say, text
from tests.core.checkpoints.helpers import make_agent
from tests.core.providers.conftest import FakeServer
from tests.test_cli_text import reply_calls

FS = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True))
DISK = "a = 1\n"
BUFFER = "a = 1\nb = 2\n"
"""The editor's unsaved buffer of ``app.py``: one line more than the disk."""


class BufferEditor(Editor):
    """An editor holding ``buffers`` (path → text; a path not there is read from disk),
    recording each fs request. ``save``: a write also saves the buffer to disk (as Zed does);
    ``refuse``: writes are refused; ``stall``: reads never answer."""

    def __init__(self, buffers: dict[str, str], *, save: bool = False) -> None:
        super().__init__()
        self.buffers = buffers
        self.save = save
        self.refuse: str | None = None
        self.stall = False
        self.fs: list[tuple[str, str]] = []

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        self.fs.append(("read", path))
        self._tell()
        if self.stall:
            await asyncio.Event().wait()
        if path not in self.buffers:
            try:
                on_disk = await asyncio.to_thread(Path(path).read_text, encoding="utf-8")
                return ReadTextFileResponse(content=on_disk)
            except FileNotFoundError:
                raise RequestError(-32002, "Resource not found", {"path": path}) from None
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.fs.append(("write", path))
        self._tell()
        if self.refuse is not None:
            raise RequestError.internal_error({"message": self.refuse})
        self.buffers[path] = content
        if self.save:
            await asyncio.to_thread(Path(path).write_text, content, encoding="utf-8")
        return WriteTextFileResponse()

    def calls_of(self, name: str) -> list[Any]:
        return [u for u in self.updates if getattr(u, "tool_call_id", None) == name]


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    work = tmp_path / "work"
    work.mkdir()
    app = work / "app.py"
    app.write_text(DISK, encoding="utf-8")
    return work, app


def _tool_messages(server: FakeServer) -> list[str]:
    return [
        str(m.get("content"))
        for m in server.requests[-1].json["messages"]
        if m.get("role") == "tool"
    ]


async def _prompt(conn: Any, work: Path) -> tuple[str, str]:
    session = await conn.new_session(cwd=str(work))
    reply = await asyncio.wait_for(
        conn.prompt(session_id=session.session_id, prompt=text("go")), DEADLINE
    )
    return session.session_id, reply.stop_reason


async def test_an_edit_reads_and_writes_the_editor_buffer_with_a_diff(
    server: FakeServer, tmp_path: Path
) -> None:
    work, app = _workspace(tmp_path)
    reply_calls(server, ("r1", "read_file", {"path": "app.py"}))
    reply_calls(
        server,
        ("e1", "edit_file", {"path": "app.py", "old_string": "b = 2", "new_string": "b = 3"}),
    )
    say(server, "Done.")
    editor = BufferEditor({str(app): BUFFER})
    async with running_agent(
        editor, work, "--allow", "edit_file", server=server, capabilities=FS
    ) as conn:
        _, stop = await _prompt(conn, work)
    assert stop == "end_turn"
    read = server.requests[1].json["messages"][-1]["content"]
    assert "     2\tb = 2" in read  # the buffer's line, numbered as ever
    assert editor.fs == [("read", str(app)), ("read", str(app)), ("write", str(app))]
    assert editor.buffers[str(app)] == "a = 1\nb = 3\n"
    assert app.read_text(encoding="utf-8") == DISK  # the editor did not save: nor did we
    assert editor.statuses("e1")[-1] == "completed"
    diffs = [
        c
        for u in editor.calls_of("e1")
        for c in (u.content or [])
        if isinstance(c, FileEditToolCallContent)
    ]
    assert [(d.path, d.old_text, d.new_text) for d in diffs] == [
        (str(app), BUFFER, "a = 1\nb = 3\n")
    ]


async def test_read_before_edit_holds_the_editor_out_until_the_file_is_read(
    server: FakeServer, tmp_path: Path
) -> None:
    work, app = _workspace(tmp_path)
    edit = {"path": "app.py", "old_string": "b = 2", "new_string": "x"}
    reply_calls(server, ("e1", "edit_file", edit))
    reply_calls(server, ("r1", "read_file", {"path": "app.py"}))
    reply_calls(server, ("e2", "edit_file", edit))
    say(server, "Done.")
    editor = BufferEditor({str(app): BUFFER})
    async with running_agent(
        editor, work, "--allow", "edit_file", server=server, capabilities=FS
    ) as conn:
        await _prompt(conn, work)
    assert editor.statuses("e1")[-1] == "failed"
    assert "has not been read in this session" in _tool_messages(server)[0]
    # the refused edit never reached the editor; the read and the edit after it did
    assert editor.fs == [("read", str(app)), ("read", str(app)), ("write", str(app))]
    assert editor.statuses("e2")[-1] == "completed"
    assert editor.buffers[str(app)] == "a = 1\nx\n"


async def test_red_team_protected_denied_and_outside_paths_never_reach_the_editor(
    server: FakeServer, tmp_path: Path
) -> None:
    work, app = _workspace(tmp_path)
    (work / ".vscode").mkdir()
    settings = work / ".vscode" / "settings.json"
    settings.write_text("{}\n", encoding="utf-8")
    secret = work / "secret.txt"
    secret.write_text("canary\n", encoding="utf-8")
    outside = tmp_path / "outside.txt"
    reply_calls(
        server,
        ("w1", "write_file", {"path": ".vscode/settings.json", "content": '{"x": 1}\n'}),
        ("w2", "write_file", {"path": "secret.txt", "content": "owned\n"}),
        ("w3", "write_file", {"path": str(outside), "content": "owned\n"}),
        ("e1", "edit_file", {"path": "secret.txt", "old_string": "canary", "new_string": "x"}),
        ("r1", "read_file", {"path": "app.py"}),
    )
    say(server, "Refused.")
    buffers = {str(settings): "{}\n", str(secret): "canary\n", str(outside): "", str(app): BUFFER}
    editor = BufferEditor(dict(buffers))  # every ask is rejected
    async with running_agent(
        editor,
        work,
        "--permission-mode",
        "accept-edits",
        "--deny",
        "write_file(secret.txt)",
        "--deny",
        "edit_file(secret.txt)",
        server=server,
        capabilities=FS,
    ) as conn:
        await _prompt(conn, work)
    for call in ("w1", "w2", "w3", "e1"):
        assert editor.statuses(call)[-1] == "failed", call
    # not even a read, while the one call allowed did reach the editor
    assert editor.fs == [("read", str(app))]
    assert "     2\tb = 2" in _tool_messages(server)[-1]
    assert settings.read_text(encoding="utf-8") == "{}\n"
    assert secret.read_text(encoding="utf-8") == "canary\n"
    assert not outside.exists()
    assert editor.buffers == buffers


async def test_an_editor_that_refuses_the_write_fails_the_call_and_loses_nothing(
    server: FakeServer, tmp_path: Path
) -> None:
    work, app = _workspace(tmp_path)
    reply_calls(server, ("r1", "read_file", {"path": "app.py"}))
    reply_calls(
        server, ("e1", "edit_file", {"path": "app.py", "old_string": "b = 2", "new_string": "x"})
    )
    say(server, "It refused.")
    editor = BufferEditor({str(app): BUFFER})
    editor.refuse = "the buffer is read-only"
    async with running_agent(
        editor, work, "--allow", "edit_file", server=server, capabilities=FS
    ) as conn:
        _, stop = await _prompt(conn, work)
    assert stop == "end_turn"
    assert editor.statuses("e1")[-1] == "failed"
    said = _tool_messages(server)[-1]
    assert "the buffer is read-only" in said
    assert "the file is unchanged" in said
    assert editor.buffers[str(app)] == BUFFER
    assert app.read_text(encoding="utf-8") == DISK
    failed = editor.calls_of("e1")[-1]
    assert "the buffer is read-only" in failed.content[0].content.text


async def test_an_editor_that_never_answers_is_ended_by_cancel(
    server: FakeServer, tmp_path: Path
) -> None:
    work, app = _workspace(tmp_path)
    reply_calls(server, ("r1", "read_file", {"path": "app.py"}))
    editor = BufferEditor({str(app): BUFFER})
    editor.stall = True
    async with running_agent(editor, work, server=server, capabilities=FS) as conn:
        session = await conn.new_session(cwd=str(work))
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=text("go"))
        )
        await editor.wait_for(lambda: editor.fs == [("read", str(app))])
        await conn.cancel(session_id=session.session_id)
        reply = await asyncio.wait_for(prompt, DEADLINE)
        assert reply.stop_reason == "cancelled"
        say(server, "Still here.")
        again = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("hi")), DEADLINE
        )
    assert again.stop_reason == "end_turn"


async def test_the_checkpoint_keeps_the_buffer_so_rewind_restores_it(
    server: FakeServer, tmp_path: Path
) -> None:
    work, app = _workspace(tmp_path)
    reply_calls(server, ("r1", "read_file", {"path": "app.py"}))
    reply_calls(
        server, ("e1", "edit_file", {"path": "app.py", "old_string": "b = 2", "new_string": "x"})
    )
    say(server, "Done.")
    editor = BufferEditor({str(app): BUFFER}, save=True)  # the editor saves what it is given
    async with running_agent(
        editor, work, "--allow", "edit_file", server=server, capabilities=FS
    ) as conn:
        sid, _ = await _prompt(conn, work)
    assert app.read_text(encoding="utf-8") == "a = 1\nx\n"
    store = SessionStore()
    session = store.find(sid)
    assert session is not None
    agent = make_agent(work, store, [], session=session)
    try:
        turn = agent.turns()[0]
        report = await agent.rewind(turn.id, "code")
    finally:
        await agent.close()
    assert report is not None
    assert app.read_text(encoding="utf-8") == BUFFER  # what the editor held, not the disk


async def test_write_file_replaces_the_buffer_and_creates_a_new_file_through_the_editor(
    server: FakeServer, tmp_path: Path
) -> None:
    work, app = _workspace(tmp_path)
    new = work / "pkg" / "new.py"
    reply_calls(
        server,
        ("w1", "write_file", {"path": "app.py", "content": "c = 3\n"}),
        ("w2", "write_file", {"path": "pkg/new.py", "content": "n = 1\n"}),
    )
    say(server, "Written.")
    editor = BufferEditor({str(app): BUFFER})
    async with running_agent(
        editor, work, "--allow", "write_file", server=server, capabilities=FS
    ) as conn:
        await _prompt(conn, work)
    assert editor.fs == [("read", str(app)), ("write", str(app)), ("write", str(new))]
    assert editor.buffers == {str(app): "c = 3\n", str(new): "n = 1\n"}
    assert app.read_text(encoding="utf-8") == DISK
    assert not new.exists()  # the editor holds it; it did not save
    diffs = {
        u.tool_call_id: (c.old_text, c.new_text)
        for u in editor.updates
        for c in (getattr(u, "content", None) or [])
        if isinstance(c, FileEditToolCallContent)
    }
    assert diffs == {"w1": (BUFFER, "c = 3\n"), "w2": (None, "n = 1\n")}
