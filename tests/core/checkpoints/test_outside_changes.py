"""What a command changes outside the workspace, in a directory ``sandbox.allow_write`` names,
is listed in the rewind preview as not restorable (``why="outside"``) and left as it is by a
rewind (issue 44). Real commands run by ``run_shell``, sandboxed (bubblewrap) and not."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.checkpoints.outside import OutsideWatch
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.ui.rewind.words import WHY_WORDS

from .helpers import call, make_agent, run, turn


def _dirs(tmp_path: Path) -> tuple[Path, Path]:
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    (work / "a.txt").write_text("one\n")
    cache.mkdir()
    (cache / "old.bin").write_text("old\n")
    (cache / "gone.bin").write_text("gone\n")
    return work, cache


async def test_changes_in_an_allow_write_dir_are_listed_not_restored(
    tmp_path: Path, sandbox: str
) -> None:
    work, cache = _dirs(tmp_path)
    store = SessionStore(tmp_path / "data" / "sessions")
    command = (
        f"echo new > {cache}/new.bin && echo more >> {cache}/old.bin && rm {cache}/gone.bin "
        "&& echo uno > a.txt"
    )
    agent = make_agent(
        work,
        store,
        [turn(call("run_shell", command=command)), turn(text="done")],
        sandbox=sandbox,
        allow_write=[str(cache)],
    )
    await run(agent, "write the cache")
    await agent.settle()
    assert (cache / "new.bin").read_text() == "new\n"  # the command did write there
    (first,) = agent.turns()
    preview = await agent.preview_rewind(first.id)
    assert [(f.shown, f.action) for f in preview.files] == [("a.txt", "restore")]
    listed = [(n.path, n.change, n.why) for n in preview.outside.changes]
    assert listed == [
        (str(cache / "gone.bin"), "deleted", "outside"),
        (str(cache / "new.bin"), "created", "outside"),
        (str(cache / "old.bin"), "modified", "outside"),
    ]
    assert "outside" in WHY_WORDS
    await agent.rewind(first.id, "code")
    assert (work / "a.txt").read_text() == "one\n"
    assert (cache / "new.bin").read_text() == "new\n"  # seen, never rewound
    assert (cache / "old.bin").read_text() == "old\nmore\n"
    await agent.close()


async def test_without_allow_write_nothing_outside_is_watched(tmp_path: Path) -> None:
    work, cache = _dirs(tmp_path)
    store = SessionStore(tmp_path / "data" / "sessions")
    agent = make_agent(
        work,
        store,
        [turn(call("run_shell", command=f"echo new > {cache}/new.bin")), turn(text="done")],
    )
    await run(agent, "write elsewhere")  # unsandboxed: it can, and it is not seen
    await agent.settle()
    assert (cache / "new.bin").exists()
    (first,) = agent.turns()
    preview = await agent.preview_rewind(first.id)
    assert not preview.outside.changes
    await agent.close()


def test_a_dir_inside_the_workspace_is_left_to_its_scan_and_one_holding_it_skips_it(
    tmp_path: Path,
) -> None:
    work, cache = _dirs(tmp_path)
    (work / "build").mkdir()
    watch = OutsideWatch([str(work / "build"), str(tmp_path)], str(work))
    assert watch.roots == (str(tmp_path),)
    assert watch.changes() == []  # the first scan: the baseline
    (work / "a.txt").write_text("uno\n")  # the workspace's own scan sees this one
    (cache / "new.bin").write_text("new\n")
    assert [(c.path, c.change, c.why) for c in watch.changes()] == [
        (str(cache / "new.bin"), "created", "outside")
    ]
    assert watch.changes() == []
