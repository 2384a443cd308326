"""A crash never costs the user their own session or trust store: a writer killed anywhere in
an append (before the lines, after them, in their middle, after a failed write was cut back)
or in a trust-store save (before or after its rename) leaves files the next load takes
without asking, and seals again. Real child processes, really killed (``crashes``), real
files. What the crash tolerance must not let in is in ``test_seal_crash_forgeries``."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from agent_tui.core.conversation.session import SessionDoubted, SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.state.seals import doubt_file
from agent_tui.core.state.trust import ProjectTrust, TrustItem
from agent_tui.core.transcript import Message
from tests.core.agent_state.crashes import crash_append, crash_create, crash_trust, seal_of

pytestmark = pytest.mark.real_trust
LONG = "please keep this whole sentence " * 8


def saved(root: Path, cwd: Path, *texts: str) -> SessionLog:
    session = SessionStore(root).new(cwd, "demo")
    for text in texts:
        session.append(Message.user(text))
    session.sync()
    return session


def _contents(root: Path, cwd: Path) -> list[str]:
    loaded = SessionStore(root).latest(cwd)  # SessionDoubted if it were not taken
    assert loaded is not None
    return [m.content for m in loaded.messages]


@pytest.mark.parametrize(
    ("how", "kept"),
    [
        ("before-write", ["one", "two"]),
        ("after-write", ["one", "two", LONG]),
        ("mid-write", ["one", "two"]),  # the cut line is skipped, and said to be
        ("after-cut-back", ["one", "two"]),
    ],
)
def test_a_writer_killed_in_an_append_leaves_a_session_that_loads(
    tmp_path: Path, how: str, kept: list[str]
) -> None:
    root = tmp_path / "s"
    path = saved(root, tmp_path, "one", "two").path
    before = path.read_bytes()
    died_of = crash_append(how, path, LONG, cut=40)
    assert died_of == (signal.SIGXFSZ if how == "mid-write" else signal.SIGKILL)
    seal, st, now = seal_of(path), os.stat(path), path.read_bytes()
    # the crash landed where it was meant to: the seal announces the append, not its end
    assert seal.pending is not None
    assert seal.state is not None
    assert seal.state.size == len(before) < seal.pending.size
    if how in ("before-write", "after-cut-back"):
        assert now == before  # cut back: the same bytes, but a new change time
    elif how == "after-write":
        assert st.st_size == seal.pending.size
        assert LONG.encode() in now
    else:
        assert len(before) + 40 == st.st_size < seal.pending.size  # torn 40 bytes in
    # an exact seal alone (inode, size, change time) would refuse all but the first …
    assert seal.state.describes(st) == (how == "before-write")
    assert _contents(root, tmp_path) == kept  # … but each is taken: no acceptance asked
    after = seal_of(path)
    assert after.pending is None or how == "before-write"
    assert after.state is not None
    assert after.state.describes(os.stat(path))
    if how == "mid-write":
        loaded = SessionStore(root).latest(tmp_path)
        assert loaded is not None
        assert loaded.torn_tail == 40
        assert any("its last line was cut off" in p for p in loaded.problems())
    session = SessionStore(root).latest(tmp_path)
    assert session is not None
    session.append(Message.user("three"))  # the next append is sealed as usual
    session.sync()
    assert session.take_problem() is None
    assert doubt_file(path) is None
    assert _contents(root, tmp_path) == [*kept, "three"]


def test_a_writer_killed_as_it_starts_a_session_leaves_one_that_loads(tmp_path: Path) -> None:
    root = tmp_path / "s"
    crash_create(root, tmp_path)
    (path,) = root.glob("*.jsonl")
    seal = seal_of(path)
    assert seal.state is None  # a new file: only its first write, pending
    assert seal.pending is not None
    assert seal.pending.size == os.stat(path).st_size
    loaded = SessionStore(root).latest(tmp_path)
    assert loaded is not None
    assert loaded.messages == []
    assert doubt_file(path) is None  # sealed again


def test_two_crashes_in_a_row_still_load(tmp_path: Path) -> None:
    root = tmp_path / "s"
    path = saved(root, tmp_path, "one").path
    assert crash_append("after-write", path, "two") == signal.SIGKILL
    assert crash_append("mid-write", path, LONG, cut=25) == signal.SIGXFSZ  # loads it first
    assert crash_append("after-write", path, "three") == signal.SIGKILL
    assert _contents(root, tmp_path) == ["one", "two", "three"]


def test_a_fork_of_a_crashed_session_is_sealed(tmp_path: Path) -> None:
    root = tmp_path / "s"
    path = saved(root, tmp_path, "one").path
    crash_append("after-write", path, "two")
    store = SessionStore(root)
    original = store.load(path)
    fork = store.fork(original)
    assert doubt_file(fork.path) is None
    assert [m.content for m in store.load(fork.path).messages] == ["one", "two"]


ITEM_A = TrustItem("allow_rule", Path("settings.json"), "run_shell(ls *)", "a", "a")
RULE_B = "run_shell(git status)"
ITEM_B = TrustItem("allow_rule", Path("settings.json"), RULE_B, RULE_B, RULE_B)


def test_a_trust_save_killed_after_its_rename_still_trusts(tmp_path: Path) -> None:
    ProjectTrust(tmp_path).trust([ITEM_A])
    store = ProjectTrust(tmp_path).store
    old_inode = os.stat(store).st_ino
    crash_trust("after-rename", tmp_path, RULE_B)
    seal = seal_of(store)
    assert os.stat(store).st_ino != old_inode  # the new store is in place …
    assert seal.pending is not None
    assert seal.pending.inode == os.stat(store).st_ino
    assert seal.state is not None
    assert seal.state.inode == old_inode
    trust = ProjectTrust(tmp_path)
    assert trust.allows(ITEM_A)
    assert trust.allows(ITEM_B)
    assert trust.problem is None
    trust.trust([])  # the next save seals it as usual
    assert seal_of(store).pending is None
    assert ProjectTrust(tmp_path).allows(ITEM_B)


def test_the_first_trust_save_killed_after_its_rename_still_trusts(tmp_path: Path) -> None:
    crash_trust("after-rename", tmp_path, RULE_B)
    assert seal_of(ProjectTrust(tmp_path).store).state is None  # a new store: nothing before
    trust = ProjectTrust(tmp_path)
    assert trust.allows(ITEM_B)
    assert trust.problem is None


def test_a_trust_save_killed_before_its_rename_keeps_the_old_store(tmp_path: Path) -> None:
    ProjectTrust(tmp_path).trust([ITEM_A])
    store = ProjectTrust(tmp_path).store
    crash_trust("before-rename", tmp_path, RULE_B)
    left = [p for p in store.parent.iterdir() if p.name.endswith(".tmp")]
    assert len(left) == 1  # the new store, written, never put in place
    trust = ProjectTrust(tmp_path)
    assert trust.allows(ITEM_A)  # the old store, still sealed as it is
    assert not trust.allows(ITEM_B)  # the save did not happen (nobody was told it did)
    assert trust.problem is None
    trust.trust([ITEM_B])
    assert not [p for p in store.parent.iterdir() if p.name.endswith(".tmp")]  # cleared
    assert ProjectTrust(tmp_path).allows(ITEM_B)


def test_a_seal_swapped_for_a_link_mid_session_loses_nothing(tmp_path: Path) -> None:
    root = tmp_path / "s"
    session = saved(root, tmp_path, "one")
    canary = tmp_path / "bashrc"
    canary.write_text("# mine\n")
    seal = session.path.with_name(session.path.name + ".seal")
    seal.unlink()
    seal.symlink_to(canary)  # a command plants a link where the seal is rewritten
    session.append(Message.user("two"))
    session.sync()
    assert canary.read_text() == "# mine\n"  # nothing written through the link
    assert b'"content": "two"' in session.path.read_bytes()  # the line saved all the same
    problem = session.take_problem()
    assert problem is not None
    assert "no longer vouches for it" in problem
    with pytest.raises(SessionDoubted):
        SessionStore(root).latest(tmp_path)
