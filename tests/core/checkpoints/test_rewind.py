"""Rewind for real: files in a workspace, a session file on disk, the script provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.agent.agent import AgentBusy
from agent_tui.core.checkpoints.records import FileBefore, Rewound
from agent_tui.core.conversation.rewind import RewindError
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore

from .helpers import call, make_agent, run, turn

TWO_TURNS = [
    # turn 1: read then edit a.txt
    turn(call("read_file", path="a.txt")),
    turn(call("edit_file", path="a.txt", old_string="one", new_string="uno")),
    turn(text="edited"),
    # turn 2: create b/new.txt
    turn(call("write_file", path="b/new.txt", content="fresh\n")),
    turn(text="written"),
]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "a.txt").write_text("one\ntwo\n")
    return root


async def test_rewind_restores_two_files_across_two_turns_and_the_conversation(
    work: Path, store: SessionStore
) -> None:
    agent = make_agent(work, store, TWO_TURNS)
    await run(agent, "edit a")
    await run(agent, "create b")
    assert (work / "a.txt").read_text() == "uno\ntwo\n"
    assert (work / "b/new.txt").read_text() == "fresh\n"

    turns = agent.turns()
    assert [t.prompt for t in turns] == ["edit a", "create b"]
    assert [t.files for t in turns] == [("a.txt",), ("b/new.txt",)]
    assert all(t.checkpointed and t.at for t in turns)

    preview = await agent.preview_rewind(turns[0].id)
    assert [(f.shown, f.action, f.added, f.removed) for f in preview.files] == [
        ("a.txt", "restore", 1, 1),
        ("b/new.txt", "delete", 0, 1),
    ]
    assert not preview.conflicts
    assert preview.messages_dropped == len(agent.messages)

    report = await agent.rewind(turns[0].id, "both")
    assert report.files is not None
    assert report.files.restored == ["a.txt"]
    assert report.files.deleted == ["b/new.txt"]
    assert report.prompt == "edit a"
    assert (work / "a.txt").read_text() == "one\ntwo\n"
    assert not (work / "b").exists()  # the directory the write made goes too
    assert agent.messages == []
    assert agent.turns() == []


async def test_rewind_to_the_second_turn_keeps_the_first(work: Path, store: SessionStore) -> None:
    agent = make_agent(work, store, TWO_TURNS)
    await run(agent, "edit a")
    await run(agent, "create b")
    second = agent.turns()[1]
    report = await agent.rewind(second.id, "code")
    assert report.files is not None
    assert report.files.deleted == ["b/new.txt"]
    assert (work / "a.txt").read_text() == "uno\ntwo\n"
    assert [t.prompt for t in agent.turns()] == ["edit a", "create b"]  # conversation kept


async def test_conversation_only_keeps_the_files(work: Path, store: SessionStore) -> None:
    agent = make_agent(work, store, TWO_TURNS)
    await run(agent, "edit a")
    await run(agent, "create b")
    report = await agent.rewind(agent.turns()[1].id, "conversation")
    assert report.files is None
    assert (work / "b/new.txt").exists()
    assert [t.prompt for t in agent.turns()] == ["edit a"]
    # a code rewind to the first turn still finds what the rewound-away turn changed
    await agent.rewind(agent.turns()[0].id, "code")
    assert (work / "a.txt").read_text() == "one\ntwo\n"
    assert not (work / "b/new.txt").exists()


async def test_a_file_changed_by_run_shell_is_restored_like_the_agents_own(
    work: Path, store: SessionStore
) -> None:
    agent = make_agent(
        work,
        store,
        [
            turn(call("run_shell", command="echo made > made.txt && echo more >> a.txt")),
            turn(call("write_file", path="agent.txt", content="mine\n")),
            turn(text="done"),
        ],
    )
    await run(agent, "build")
    (first,) = agent.turns()
    assert first.files == ("a.txt", "made.txt", "agent.txt")
    assert first.outside == 0
    preview = await agent.preview_rewind(first.id)
    assert preview.outside.changes == []
    assert [(f.shown, f.action) for f in preview.files] == [
        ("a.txt", "restore"),
        ("made.txt", "delete"),
        ("agent.txt", "delete"),
    ]
    report = await agent.rewind(first.id, "code")
    assert report.files is not None
    assert report.files.deleted == ["made.txt", "agent.txt"]
    assert report.files.restored == ["a.txt"]
    assert not (work / "made.txt").exists()
    assert (work / "a.txt").read_text() == "one\ntwo\n"


async def test_the_agents_own_writes_are_not_counted_as_shell_changes(
    work: Path, store: SessionStore
) -> None:
    agent = make_agent(
        work,
        store,
        [
            turn(call("run_shell", command="true")),
            turn(call("write_file", path="x.txt", content="x\n")),
            turn(call("run_shell", command="echo y > y.txt")),
            turn(text="done"),
        ],
    )
    await run(agent, "go")
    preview = await agent.preview_rewind(agent.turns()[0].id)
    assert preview.outside.changes == []
    assert [f.shown for f in preview.files] == ["x.txt", "y.txt"]
    assert agent.session is not None
    kept = [e.path for e in agent.session.entries if isinstance(e, FileBefore)]
    assert [Path(p).name for p in kept] == ["x.txt", "y.txt"]  # x.txt once: by write_file


async def test_a_file_edited_by_the_user_since_is_flagged_not_clobbered(
    work: Path, store: SessionStore
) -> None:
    agent = make_agent(work, store, TWO_TURNS[:3])
    await run(agent, "edit a")
    (work / "a.txt").write_text("the user's own text\n")
    first = agent.turns()[0]
    preview = await agent.preview_rewind(first.id)
    (flagged,) = preview.conflicts
    assert flagged.shown == "a.txt"
    assert flagged.changed_since

    report = await agent.rewind(first.id, "code")
    assert report.files is not None
    assert report.files.kept_changed == ["a.txt"]
    assert report.files.restored == []
    assert (work / "a.txt").read_text() == "the user's own text\n"

    # asked for by name, it is restored, and what it overwrote is kept: the rewind undoes
    report = await agent.rewind(first.id, "code", overwrite=["a.txt"])
    assert report.files is not None
    assert report.files.restored == ["a.txt"]
    assert (work / "a.txt").read_text() == "one\ntwo\n"
    undo = agent.undoable_rewind()
    assert undo is not None
    assert undo.files == ("a.txt",)
    await agent.rewind(undo.id, "code")
    assert (work / "a.txt").read_text() == "the user's own text\n"


async def test_no_undo_once_a_turn_changed_files_after_the_rewind(
    work: Path, store: SessionStore
) -> None:
    agent = make_agent(work, store, TWO_TURNS)
    await run(agent, "edit a")
    await agent.rewind(agent.turns()[0].id, "code")
    assert agent.undoable_rewind() is not None
    await run(agent, "create b")  # the script's next turns: write b/new.txt
    assert (work / "b/new.txt").exists()
    assert agent.undoable_rewind() is None


async def test_rewind_survives_resume(work: Path, store: SessionStore) -> None:
    agent = make_agent(work, store, TWO_TURNS)
    await run(agent, "edit a")
    await run(agent, "create b")
    assert agent.session is not None
    path = agent.session.path
    await agent.rewind(agent.turns()[1].id, "both")
    kept = [m.model_dump() for m in agent.messages]

    resumed = SessionLog.load(path)
    assert [m.model_dump() for m in resumed.messages] == kept
    assert any(isinstance(e, Rewound) for e in resumed.entries)
    # the file keeps the whole history: the rewound-away turn is still in it
    assert "create b" in path.read_text()

    again = make_agent(work, store, [turn(text="hello again")], session=resumed)
    assert [t.prompt for t in again.turns()] == ["edit a"]
    await run(again, "after the rewind")
    assert [t.prompt for t in again.turns()] == ["edit a", "after the rewind"]
    reloaded = SessionLog.load(path)
    assert [m.content for m in reloaded.messages if m.role == "user"] == [
        "edit a",
        "after the rewind",
    ]
    # and the checkpoints came back with it: the first turn's code can still be rewound
    await again.rewind(again.turns()[0].id, "code")
    assert (work / "a.txt").read_text() == "one\ntwo\n"


async def test_fork_gives_a_new_session_with_the_same_messages(
    work: Path, store: SessionStore
) -> None:
    agent = make_agent(work, store, TWO_TURNS)
    await run(agent, "edit a")
    await run(agent, "create b")
    original = agent.session
    assert original is not None
    messages = [m.model_dump() for m in agent.messages]
    start = await agent.fork()
    assert agent.session is not None
    assert start.session_id == agent.session.id != original.id
    assert start.forked_from == original.id
    assert [m.model_dump() for m in agent.messages] == messages
    assert [m.model_dump() for m in SessionLog.load(agent.session.path).messages] == messages
    # the fork's checkpoints are its own copy
    report = await agent.rewind(agent.turns()[0].id, "both")
    assert report.files is not None
    assert report.files.restored == ["a.txt"]
    assert (work / "a.txt").read_text() == "one\ntwo\n"
    assert len(SessionLog.load(original.path).messages) == len(messages)


async def test_a_turn_without_changes_rewinds_the_conversation_only(
    work: Path, store: SessionStore
) -> None:
    agent = make_agent(work, store, [turn(text="just talk")])
    await run(agent, "hello")
    (only,) = agent.turns()
    assert only.files == ()
    assert only.checkpointed
    preview = await agent.preview_rewind(only.id)
    assert preview.files == ()
    assert preview.messages_dropped == 2
    report = await agent.rewind(only.id, "both")
    assert report.files is not None
    assert report.files.changed == 0
    assert agent.messages == []


async def test_unknown_turns_and_old_transcripts(work: Path, store: SessionStore) -> None:
    from agent_tui.core.transcript import Message

    session = store.new(work, "script")
    session.append(Message.user("from before checkpoints"))
    session.append(Message.assistant("ok"))
    agent = make_agent(work, store, [], session=SessionLog.load(session.path))
    (old,) = agent.turns()
    assert old.id == "msg-0"
    assert not old.checkpointed
    assert old.at is None
    with pytest.raises(RewindError, match="no checkpoint"):
        await agent.rewind(old.id, "code")
    await agent.rewind(old.id, "conversation")
    assert agent.messages == []
    with pytest.raises(RewindError, match="No turn"):
        await agent.preview_rewind("nope")


async def test_no_rewind_during_a_turn(work: Path, store: SessionStore) -> None:
    agent = make_agent(work, store, [turn(text="hi")])
    await run(agent, "hello")
    agent.running = True
    with pytest.raises(AgentBusy):
        await agent.rewind(agent.turns()[0].id)
    agent.running = False


async def test_the_old_content_is_kept_before_the_first_change_only(
    work: Path, store: SessionStore
) -> None:
    agent = make_agent(
        work,
        store,
        [
            turn(call("read_file", path="a.txt")),
            turn(call("edit_file", path="a.txt", old_string="one", new_string="1")),
            turn(call("edit_file", path="a.txt", old_string="two", new_string="2")),
            turn(text="done"),
        ],
    )
    await run(agent, "edit twice")
    assert agent.session is not None
    befores = [e for e in agent.session.entries if isinstance(e, FileBefore)]
    assert len(befores) == 1
    assert befores[0].exists
    assert agent.session.blobs.get(befores[0].blob or "") == b"one\ntwo\n"
    await agent.rewind(agent.turns()[0].id, "code")
    assert (work / "a.txt").read_text() == "one\ntwo\n"


async def test_what_an_interrupted_command_changed_is_still_found(
    work: Path, store: SessionStore
) -> None:
    import asyncio

    agent = make_agent(
        work, store, [turn(call("run_shell", command="echo half > half.txt && sleep 30"))]
    )
    events = agent.run("start something long")

    async def drive() -> None:
        async for _ in events:
            pass

    task = asyncio.ensure_future(drive())
    for _ in range(500):  # the command has written its file
        if (work / "half.txt").exists():
            break
        await asyncio.sleep(0.02)
    agent.interrupt()
    await asyncio.wait_for(task, 20)
    preview = await agent.preview_rewind(agent.turns()[0].id)
    assert [(f.shown, f.action) for f in preview.files] == [("half.txt", "delete")]
