"""The spill browser's core: listing, refusing paths, windows identical to read_file's, lines
of bytes through the index, deleting only what no live message or saved session points to."""

from __future__ import annotations

import os
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.browse import (
    SpillRefused,
    column_of_byte,
    delete_spill,
    line_of_byte,
    line_start,
    list_spills,
    open_reader,
    parse_name,
    read_window,
    resolve_spill,
    why_not_delete,
    window_ending_at,
    window_of,
    window_text,
)
from agent_tui.core.budget.index import index_path
from agent_tui.core.budget.store import SpillStore
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import read_file
from agent_tui.core.transcript import Message, ToolCall
from tests.core.budget.helpers import call_read

WHEN = datetime(2026, 1, 5, 14, 22, 33, tzinfo=UTC)


def make_store(cwd: Path, step: int = 32_768) -> SpillStore:
    return SpillStore(Path(".agent-spill"), cwd, durable=False, step=step)


def numbered(count: int, width: int = 20) -> str:
    return "".join(f"line {n:06d} " + "x" * (n % width) + "\n" for n in range(1, count + 1))


# -- listing ------------------------------------------------------------------------------


def test_the_list_is_newest_first_with_producer_size_and_live_mark(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    old = store.write("a\nb\n", "run_shell", "call_1", datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
    new = store.write("é" * 10, "mcp__my-srv__fetch", "toolu_9", WHEN)
    (store.root / "notes.txt").write_text("not a spill")
    call = ToolCall(id="toolu_9", name="mcp__my-srv__fetch", arguments="{}")
    messages = [
        Message.user("go"),
        Message.assistant("", [call]),
        Message.tool(call, f"…excerpt… The full output is saved in {new.shown}."),
    ]
    entries = list_spills(store, messages)
    assert [e.path for e in entries] == [new.path, old.path]
    first, second = entries
    assert (first.tool, first.call_id, first.when) == ("mcp__my-srv__fetch", "toolu_9", WHEN)
    assert (first.chars, first.lines, first.bytes) == (10, 1, 20)
    assert first.referenced
    assert first.referenced_by == "the result of mcp__my-srv__fetch toolu_9"
    assert (second.tool, second.call_id, second.lines, second.chars) == (
        "run_shell",
        "call_1",
        2,
        4,
    )
    assert not second.referenced
    assert second.shown == old.shown


def test_without_a_live_message_the_name_tells_tool_and_call(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    record = store.write("x", "my-tool", "call_7", WHEN)
    assert parse_name(record.path.name) == (WHEN, "my-tool", "call_7")
    (entry,) = list_spills(store)
    assert (entry.tool, entry.call_id) == ("my-tool", "call_7")
    assert parse_name("notes.txt") is None


def test_a_spill_whose_index_is_gone_is_listed_without_a_size(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    record = store.write("abc\n", "grep", "c1", WHEN)
    index_path(record.path).unlink()
    (entry,) = list_spills(store)
    assert entry.chars is None
    assert entry.lines is None
    assert not entry.indexed
    assert entry.bytes == 4


def test_no_spill_directory_is_an_empty_list(tmp_path: Path) -> None:
    assert list_spills(make_store(tmp_path)) == []


# -- opening a pointer path ---------------------------------------------------------------


def refusal(store: SpillStore, path: str | Path) -> SpillRefused:
    with pytest.raises(SpillRefused) as caught:
        resolve_spill(store, path)
    return caught.value


def test_a_pointer_path_resolves_relative_absolute_and_dotted(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    record = store.write("x\n", "run_shell", "c", WHEN)
    assert resolve_spill(store, record.shown) == record.path
    assert resolve_spill(store, record.path) == record.path
    assert resolve_spill(store, f"./{record.shown}") == record.path
    assert resolve_spill(store, f".agent-spill/../{record.shown}") == record.path


def test_paths_outside_the_spill_directory_are_refused(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    record = store.write("x\n", "run_shell", "c", WHEN)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    copy = outside / record.path.name
    copy.write_bytes(record.path.read_bytes())
    for path in (
        f"elsewhere/{record.path.name}",
        f".agent-spill/../elsewhere/{record.path.name}",
        str(copy),
        "/etc/passwd",
    ):
        refused = refusal(store, path)
        assert refused.kind == "outside", path
        assert "outside the spill directory .agent-spill/" in refused.what
    link = store.root / "20260105T142233Z-run_shell-c-beef.txt"
    link.symlink_to(copy)
    refused = refusal(store, store.shown(link))
    assert refused.kind == "outside"
    assert "through a symlink" in refused.what


def test_files_in_the_directory_that_are_not_spills_are_refused(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    record = store.write("x\n", "run_shell", "c", WHEN)
    (store.root / "notes.txt").write_text("hi")
    (store.root / "20260105T142233Z-dir-c-abcd.txt").mkdir()
    idx = f".agent-spill/.index/{record.path.name}.idx"
    for path in (".agent-spill/.gitignore", ".agent-spill/notes.txt", idx):
        assert refusal(store, path).kind in {"not_spill", "outside"}, path
    assert refusal(store, ".agent-spill/notes.txt").kind == "not_spill"
    assert "named <UTC time>-<tool>-<call id>-<token>.txt" in str(
        refusal(store, ".agent-spill/notes.txt")
    )
    assert refusal(store, ".agent-spill/20260105T142233Z-dir-c-abcd.txt").kind == "not_spill"
    media = store.root / "mcp-media" / "20260105T142233Z-run_shell-c-abcd.txt"
    media.parent.mkdir()
    media.write_text("an MCP media file, not a spill")
    inside = refusal(store, store.shown(media))
    assert inside.kind == "not_spill"
    assert "directly in .agent-spill/" in inside.what
    assert refusal(store, "").kind == "empty"


def test_missing_and_unindexed_spills_are_refused_with_what_to_do(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    record = store.write("x\n", "run_shell", "c", WHEN)
    missing = refusal(store, ".agent-spill/20260101T000000Z-run_shell-c-0000.txt")
    assert missing.kind == "missing"
    assert "does not exist" in missing.what
    assert "re-run" in missing.hint
    with record.path.open("ab") as fh:  # changed after it was saved: the index is stale
        fh.write(b"more\n")
    stale = refusal(store, record.shown)
    assert stale.kind == "not_indexed"
    assert "no valid line index" in stale.what
    assert "read_file still reads it" in stale.hint
    index_path(record.path).unlink()
    assert refusal(store, record.shown).kind == "not_indexed"


# -- windows ------------------------------------------------------------------------------


async def read_file_output(cwd: Path, shown: str, offset: int, limit: int) -> str:
    out = await call_read(ToolContext(cwd=cwd), path=shown, offset=offset, limit=limit)
    return out.content


@pytest.fixture
def small_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small rows and windows, so short spills hit every cap of read_file."""
    monkeypatch.setattr(read_file, "MAX_LINE_CHARS", 12)
    monkeypatch.setattr(read_file, "MAX_WINDOW_CHARS", 200)
    monkeypatch.setattr(read_file, "MAX_LINES", 9)


_lines = st.lists(
    st.one_of(st.text(st.sampled_from("ab\té😀\r"), max_size=30), st.just("")), max_size=40
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=_lines, end=st.sampled_from(["", "\n"]), data=st.data())
async def test_every_window_is_what_read_file_returns(
    small_caps: None,
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    end: str,
    data: st.DataObject,
) -> None:
    cwd = tmp_path_factory.mktemp("spill")
    record = make_store(cwd).write("\n".join(lines) + end, "run_shell", "c", WHEN)
    total = record.lines
    offset = data.draw(st.integers(1, max(total, 1)))
    limit = data.draw(st.integers(1, 12))
    window = read_window(record.path, record.shown, offset, limit)
    expected = await read_file_output(cwd, record.shown, offset, limit)
    assert window.text() == expected
    if total:
        # the call the header shows returns exactly this window
        assert window.call.startswith(f'read_file(path="{record.shown}", offset={offset}')
        assert window.span == f"lines {offset:,}–{window.last:,} of {total:,}"
        if not window.at_end:  # PgDn goes on where read_file's footer says
            size = min(limit, read_file.MAX_LINES)
            more = f", limit={size}" if size != read_file.MAX_LINES else ""
            following = f'read_file(path="{record.shown}", offset={window.last + 1}{more})'
            assert f"next: {following}" in window.footer
        with open_reader(record.path, record.shown) as reader:
            end_line = data.draw(st.integers(1, total))
            start = window_ending_at(reader, end_line, min(limit, read_file.MAX_LINES))
            back = window_of(reader, record.shown, start, limit)
            assert back.offset <= end_line <= back.last  # it reaches end_line …
            if start > max(1, end_line - min(limit, read_file.MAX_LINES) + 1):
                wider = window_of(reader, record.shown, start - 1, limit)
                assert wider.last < end_line  # … and starts as early as it can


def test_the_header_call_names_a_limit_only_when_it_is_not_the_default(tmp_path: Path) -> None:
    record = make_store(tmp_path).write(numbered(5000), "run_shell", "c", WHEN)
    window = read_window(record.path, record.shown, 2001, 2000)
    assert window.call == f'read_file(path="{record.shown}", offset=2001)'
    assert window.span == "lines 2,001–4,000 of 5,000"
    small = read_window(record.path, record.shown, 10, 25)
    assert small.call == f'read_file(path="{record.shown}", offset=10, limit=25)'
    assert (small.offset, small.last) == (10, 34)


def test_the_window_is_clamped_into_the_file(tmp_path: Path) -> None:
    record = make_store(tmp_path).write(numbered(30), "run_shell", "c", WHEN)
    window = read_window(record.path, record.shown, 99, 10)
    assert (window.offset, window.last, window.at_end) == (30, 30, True)
    empty = make_store(tmp_path).write("", "run_shell", "e", WHEN)
    nothing = read_window(empty.path, empty.shown, 1, 2000)
    assert nothing.empty
    assert nothing.text() == "[empty file: 0 lines]"
    assert nothing.span == "empty file: 0 lines"


def test_the_last_window_ends_the_file_under_the_character_cap(tmp_path: Path) -> None:
    text = "".join(f"{n} " + "w" * 1500 + "\n" for n in range(1, 301))  # ~66 rows per window
    record = make_store(tmp_path).write(text, "run_shell", "c", WHEN)
    with open_reader(record.path, record.shown) as reader:
        start = window_ending_at(reader, 300, 2000)
        window = window_of(reader, record.shown, start, 2000)
    assert window.last == 300
    assert window.at_end
    assert window.capped is False
    assert len(window.text()) <= read_file.MAX_WINDOW_CHARS + 200
    assert 200 < start < 300


def test_a_window_of_a_vanished_spill_says_so(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    record = store.write("x\n", "run_shell", "c", WHEN)
    store.remove(record.path)
    with pytest.raises(SpillRefused) as caught:
        read_window(record.path, record.shown, 1, 10)
    assert caught.value.kind == "missing"
    assert "deleted" in caught.value.what


def test_the_text_of_a_window_is_its_lines_as_the_file_has_them(tmp_path: Path) -> None:
    lines = [
        f"{n}\té" + "x" * (4000 if n == 5 else n) + ("\r\n" if n % 2 else "\n")
        for n in range(1, 11)
    ]
    text = "".join(lines) + "tail"
    record = make_store(tmp_path).write(text, "run_shell", "c", WHEN)
    with open_reader(record.path, record.shown) as reader:
        window = window_of(reader, record.shown, 3, 4)
        assert window.cut  # line 5 is cut in read_file's rows …
        copied = window_text(reader, window)
        assert copied.complete
        assert copied.text == "".join(lines[2:6])  # … and whole here, with its CRLF
        end = window_of(reader, record.shown, 10, 5)
        assert window_text(reader, end).text == lines[9] + "tail"
        capped = window_text(reader, window, max_bytes=100)
        assert not capped.complete
        assert capped.text == "".join(lines[2:6])[: len(capped.text)]
        assert len(capped.text.encode()) <= 100


# -- lines of bytes -----------------------------------------------------------------------


def test_line_and_column_of_any_byte_match_a_plain_count(tmp_path: Path) -> None:
    rng = random.Random(5)
    parts = []
    for _ in range(300):
        parts.append("".join(rng.choice("aé😀\t") for _ in range(rng.randrange(0, 60))))
    parts.append("z" * 5000 + "é" * 3000)  # a long line, past several checkpoints
    text = "\n".join(parts) + "\nend"
    record = make_store(tmp_path, step=64).write(text, "run_shell", "c", WHEN)
    data = text.encode()
    with open_reader(record.path, record.shown) as reader:
        for byte in [*rng.sample(range(len(data)), 400), 0, len(data) - 1]:
            if data[byte] & 0xC0 == 0x80:
                continue  # not the start of a character
            line = data.count(b"\n", 0, byte) + 1
            start = data.rfind(b"\n", 0, byte) + 1
            assert line_of_byte(reader, byte) == line
            assert line_start(reader, line) == start
            column = len(data[start:byte].decode())
            assert column_of_byte(reader, line, byte) == column, byte


# -- deleting -----------------------------------------------------------------------------


def test_deleting_is_refused_while_a_live_message_points_to_the_spill(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    record = store.write("x\n", "run_shell", "call_3", WHEN)
    call = ToolCall(id="r", name="read_file", arguments=f'{{"path": "{record.shown}"}}')
    messages = [Message.assistant("", [call])]
    with pytest.raises(SpillRefused) as caught:
        delete_spill(store, record.path, messages)
    assert caught.value.kind == "referenced"
    assert "a message of the model" in caught.value.what
    assert record.path.exists()
    delete_spill(store, record.path, [Message.user("something else")])
    assert not record.path.exists()
    assert not index_path(record.path).exists()
    assert os.listdir(store.root / ".index") == []


def test_only_spill_files_can_be_deleted(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.write("x\n", "run_shell", "c", WHEN)
    victim = tmp_path / "20260105T142233Z-run_shell-c-abcd.txt"
    victim.write_text("mine")
    with pytest.raises(SpillRefused):
        delete_spill(store, victim, [])
    with pytest.raises(SpillRefused):
        delete_spill(store, store.root / ".gitignore", [])
    assert victim.exists()
    assert (store.root / ".gitignore").exists()


def test_the_list_says_what_the_call_was_from_the_index_or_the_live_call(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    shell = store.write("x\n", "run_shell", "call_92162_0", WHEN, summary="make -j8 test")
    old = store.write("y\n", "grep", "call_5", datetime(2026, 1, 4, tzinfo=UTC))  # no summary
    other = store.write("z\n", "glob", "call_6", datetime(2026, 1, 3, tzinfo=UTC))
    entries = {e.call_id: e for e in list_spills(store)}
    assert entries["call_92162_0"].summary == "make -j8 test"  # a later session: from the index
    assert entries["call_5"].summary == ""
    call = ToolCall(id="call_5", name="grep", arguments='{"pattern": "TODO", "path": "src"}')
    messages = [Message.assistant("", [call]), Message.tool(call, f"… in {old.shown}.")]
    entries = {e.call_id: e for e in list_spills(store, messages)}
    assert entries["call_5"].summary == "TODO in src"  # an old spill of the live transcript
    assert entries["call_6"].summary == ""
    assert (shell.summary, other.summary) == ("make -j8 test", "")


def saved_session(tmp_path: Path, *messages: Message) -> Path:
    sessions = SessionStore(tmp_path / "sessions")
    session = sessions.new(tmp_path, "demo")
    for message in messages:
        session.append(message)
    return session.path


def test_deleting_is_refused_while_a_saved_session_points_to_the_spill(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    record = store.write("x\n", "run_shell", "call_3", WHEN)
    call = ToolCall(id="call_3", name="run_shell", arguments='{"command": "make"}')
    unrelated = saved_session(tmp_path, Message.user("nothing here"))
    session = saved_session(tmp_path, Message.tool(call, f"… saved in {record.shown}."))
    refused = why_not_delete(store, record.path, [], [unrelated, session])
    assert refused is not None
    assert refused.kind == "saved"
    session_id = session.stem.rsplit("-", 1)[-1]
    assert f"the saved session {session_id}" in refused.what
    assert f"--resume {session_id}" in refused.what
    assert "Delete that session file first" in refused.hint
    with pytest.raises(SpillRefused):
        delete_spill(store, record.path, [], [session])
    assert record.path.exists()
    assert why_not_delete(store, record.path, [], [unrelated]) is None
    delete_spill(store, record.path, [], [unrelated])
    assert not record.path.exists()


def test_a_saved_session_that_cannot_be_read_may_point_to_the_spill(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    record = store.write("x\n", "run_shell", "call_3", WHEN)
    missing = tmp_path / "sessions" / "20260105T142233-deadbeef.jsonl"  # gone, say
    refused = why_not_delete(store, record.path, [], [missing])
    assert refused is not None
    assert refused.kind == "saved"
    assert "may be referred to by the saved session deadbeef" in refused.what
    assert record.path.exists()
