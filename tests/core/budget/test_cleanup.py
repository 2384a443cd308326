"""Spill cleanup: delete only what no live message and no saved session refers to."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from agent_tui.core.budget import SpillStore, collect_spills
from agent_tui.core.budget.index import index_path
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.transcript import Message, ToolCall

LONG_AGO = time.time() - 100 * 86_400


def spills(tmp_path: Path, count: int) -> tuple[SpillStore, list[Path]]:
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    paths = [store.write(f"output {n}\n", "run_shell", f"call_{n}").path for n in range(count)]
    for path in paths:  # old files: only references may keep them
        os.utime(path, (LONG_AGO, LONG_AGO))
    return store, paths


def pointer(path: Path) -> Message:
    call = ToolCall(id="c", name="run_shell")
    return Message.tool(
        call, f"…\n[Output too large … saved byte for byte in .agent-spill/{path.name}.]"
    )


def test_only_unreferenced_files_go_never_by_age(tmp_path: Path) -> None:
    store, (live, quoted, asked, orphan) = spills(tmp_path, 4)
    messages = [
        pointer(live),
        Message.assistant(f"The log in .agent-spill/{quoted.name} shows the failure."),
        Message.assistant("", [ToolCall(id="r", name="read_file", arguments=json.dumps(
            {"path": f".agent-spill/{asked.name}", "offset": 40}))]),
    ]  # fmt: skip
    report = collect_spills(store, messages, grace=0)
    assert report.deleted == [orphan]
    assert not orphan.exists()
    assert not index_path(orphan).exists()
    assert all(p.exists() for p in (live, quoted, asked))


def test_a_saved_session_keeps_its_spills(tmp_path: Path) -> None:
    store, (resumable, forgotten) = spills(tmp_path, 2)
    sessions = SessionStore(tmp_path / "sessions")
    session = sessions.new(tmp_path, "demo")
    session.append(pointer(resumable))
    report = collect_spills(store, [], sessions.all(), grace=0)
    assert report.deleted == [forgotten]
    assert resumable.exists()
    session.path.unlink()  # the session is deleted: now nothing refers to the file
    assert collect_spills(store, [], sessions.all(), grace=0).deleted == [resumable]


def test_an_unreadable_session_keeps_everything(tmp_path: Path) -> None:
    store, paths = spills(tmp_path, 2)
    missing = tmp_path / "sessions" / "gone.jsonl"  # listed, then vanished or unreadable
    (tmp_path / "sessions").mkdir()
    missing.mkdir()  # a directory: opening it fails
    report = collect_spills(store, [], [missing], grace=0)
    assert report.deleted == []
    assert all(p.exists() for p in paths)


def test_young_files_wait_for_the_grace_period(tmp_path: Path) -> None:
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    fresh = store.write("x\n", "run_shell", "c").path
    report = collect_spills(store, [], grace=3600)
    assert report.young == [fresh]
    assert fresh.exists()
    assert collect_spills(store, [], grace=3600, now=time.time() + 7200).deleted == [fresh]


def test_leftovers_of_broken_writes_are_removed(tmp_path: Path) -> None:
    store, [kept] = spills(tmp_path, 1)
    stale = store.root / ".tmp-dead-x.txt"
    stale.write_text("half")
    os.utime(stale, (LONG_AGO, LONG_AGO))
    writing = store.root / ".tmp-live-y.txt"
    writing.write_text("in progress")
    orphan = store.root / ".index" / "20260101T000000Z-run_shell-c-abcd.txt.idx"
    orphan.write_bytes(b"x")
    collect_spills(store, [pointer(kept)], grace=600)
    assert not stale.exists()
    assert not orphan.exists()
    assert writing.exists()
    assert kept.exists()
    assert index_path(kept).exists()


def test_files_it_did_not_write_are_never_touched(tmp_path: Path) -> None:
    store = SpillStore(Path("."), tmp_path, durable=False)  # a spill_dir shared with the user
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    os.utime(notes, (LONG_AGO, LONG_AGO))
    spill = store.write("x\n", "run_shell", "c").path
    os.utime(spill, (LONG_AGO, LONG_AGO))
    assert collect_spills(store, [], grace=0).deleted == [spill]
    assert notes.read_text() == "mine"


def test_mcp_media_files_follow_the_same_rule(tmp_path: Path) -> None:
    from agent_tui.core.mcp.client.adapter import MediaStore

    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    media = MediaStore(store.root / "mcp-media", tmp_path)
    shown = [
        media.save(b"\x89PNG" + bytes([n]), "image/png", "mcp__e__img", f"c{n}") for n in range(3)
    ]
    live, in_session, forgotten = (tmp_path / s for s in shown)
    for path in (live, in_session, forgotten):
        os.utime(path, (LONG_AGO, LONG_AGO))
    young = tmp_path / media.save(b"RIFF", "audio/wav", "mcp__e__snd", "c9")
    sessions = SessionStore(tmp_path / "sessions")
    session = sessions.new(tmp_path, "demo")
    call = ToolCall(id="c", name="mcp__e__img")
    session.append(Message.tool(call, f"[image/png saved to {shown[1]}]"))
    messages = [Message.tool(call, f"[image/png saved to {shown[0]}]")]
    report = collect_spills(store, messages, sessions.all(), grace=3600)
    assert report.deleted == [forgotten]
    assert young in report.young
    assert all(p.exists() for p in (live, in_session, young))
    assert not forgotten.exists()
    assert (store.root / "mcp-media" / ".gitignore").exists()  # not a media file: left alone
