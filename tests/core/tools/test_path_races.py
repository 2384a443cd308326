"""No check-then-use gap in the file tools: a symlink swapped in after the path was resolved and
judged never redirects a read or a write.

Real files in tmp_path, a real adversary: a thread flips the file system between the judged
state and an attacker's state (a link pointed at a canary outside the workspace, the file itself
replaced by a symlink, its directory exchanged for a symlink to an outside directory) while the
calls run. Assertions are on outcomes only: every call returns the judged file's content or
refuses with ``path_changed``, and the canary's content, mtime and directory never change.
"""

from __future__ import annotations

import ctypes
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.core.tools.builtin import edit_file, read_file, write_file
from agent_tui.core.tools.builtin.atomic import atomic_write
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.files.safe_open import (
    PATH_CHANGED,
    NotRegularFile,
    open_dir,
    open_file,
    open_regular,
    replace_file,
    resolve_target,
    same_file,
)

SWAPS = 300
ALLOWED = "allowed TOKEN\n"
SECRET = "SECRET TOKEN\n"

Outcome = ToolOutput | ToolFailure
Flip = Callable[[bool], None]
"""Put the file system in the attacker's state (True) or back in the judged state (False)."""


# -- the adversary ------------------------------------------------------------------------------


def _renameat2() -> Callable[..., int] | None:
    try:
        return getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    except OSError:
        return None


_RENAMEAT2 = _renameat2()
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


def exchange(a: Path, b: Path) -> None:
    """Swap two directory entries atomically (Linux ``renameat2(RENAME_EXCHANGE)``): a real
    directory and a symlink trade places with no moment where the name is missing."""
    assert _RENAMEAT2 is not None
    if _RENAMEAT2(_AT_FDCWD, bytes(a), _AT_FDCWD, bytes(b), _RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(a))


def point(link: Path, target: Path) -> None:
    """Make ``link`` a symlink to ``target`` atomically (replacing what is there)."""
    temp = link.with_name(f".{link.name}.new")
    temp.unlink(missing_ok=True)
    temp.symlink_to(target)
    os.replace(temp, link)


class Swapper:
    """Flips the file system SWAPS times in a thread, one flip per finished call, so flips land
    while the next call resolves, opens and writes. It ends in the judged state."""

    def __init__(self, flip: Flip) -> None:
        self._flip = flip
        self._called = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.error: BaseException | None = None

    def _run(self) -> None:
        try:
            for i in range(SWAPS):
                if self._stop.is_set():
                    return
                self._flip(i % 2 == 0)
                self._called.wait(timeout=5)
                self._called.clear()
        except BaseException as exc:  # reported by join()
            self.error = exc

    async def race(self, call: Callable[[], Any]) -> list[Outcome]:
        """Run ``call`` over and over while the flips happen; every outcome, in order."""
        outcomes: list[Outcome] = []
        self._thread.start()
        try:
            while self._thread.is_alive():
                try:
                    outcomes.append(await call())
                except ToolFailure as failure:
                    outcomes.append(failure)
                self._called.set()
        finally:
            self._stop.set()
            self._called.set()
            self._thread.join()
        if self.error is not None:
            raise self.error
        assert outcomes
        return outcomes


# -- the world: a workspace, an outside directory with a canary ---------------------------------


@dataclass
class World:
    ws: Path
    outside: Path
    canary: Path
    arg: str
    judged: Path
    flip: Flip

    def ctx(self, *, judged: bool = True) -> ToolContext:
        return ToolContext(cwd=self.ws, judged_path=self.judged if judged else None)

    def canary_state(self) -> tuple[bytes, int, list[str]]:
        st = os.lstat(self.canary)
        return self.canary.read_bytes(), st.st_mtime_ns, sorted(os.listdir(self.outside))


def _base(tmp_path: Path) -> tuple[Path, Path, Path]:
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside").mkdir()
    ws, outside = (
        Path(os.path.realpath(tmp_path / "ws")),
        Path(os.path.realpath(tmp_path / "outside")),
    )
    canary = outside / "f.txt"
    canary.write_text(SECRET)
    return ws, outside, canary


def link_world(tmp_path: Path) -> World:
    """``link`` flips between ``f.txt`` in the workspace and the canary outside."""
    ws, outside, canary = _base(tmp_path)
    allowed = ws / "f.txt"
    allowed.write_text(ALLOWED)
    link = ws / "link"
    link.symlink_to(allowed)
    flip: Flip = lambda attack: point(link, canary if attack else allowed)  # noqa: E731
    return World(ws, outside, canary, "link", allowed, flip)


def name_flip(target: Path, canary: Path, ws: Path) -> Flip:
    """Flip ``target`` between itself (kept as a hard link) and a symlink to ``canary``."""
    keep = ws / "keep"
    os.link(target, keep)

    def flip(attack: bool) -> None:
        if attack:
            point(target, canary)
        else:
            temp = ws / "restore"
            temp.unlink(missing_ok=True)
            os.link(keep, temp)
            os.replace(temp, target)

    return flip


def name_world(tmp_path: Path) -> World:
    """The judged file itself flips between the regular file and a symlink to the canary."""
    ws, outside, canary = _base(tmp_path)
    allowed = ws / "f.txt"
    allowed.write_text(ALLOWED)
    return World(ws, outside, canary, "f.txt", allowed, name_flip(allowed, canary, ws))


def spill_world(tmp_path: Path) -> World:
    """A spill file flips with a symlink to a canary of the same size and mtime, so that its
    index matches the canary too and SpillReader (which opens by name) would read it."""
    ws, outside, canary = _base(tmp_path)
    record = SpillStore(Path(".agent-spill"), ws, durable=False).write(ALLOWED * 50, "t", "c")
    spill = Path(os.path.realpath(record.path))
    canary.write_text(SECRET.ljust(len(ALLOWED)) * 50)
    st = os.stat(spill)
    os.utime(canary, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(canary).st_size == st.st_size
    return World(ws, outside, canary, record.shown, spill, name_flip(spill, canary, ws))


def parent_world(tmp_path: Path) -> World:
    """The judged file's directory flips with a symlink to the outside directory."""
    if _RENAMEAT2 is None:
        pytest.skip("needs renameat2(RENAME_EXCHANGE)")
    ws, outside, canary = _base(tmp_path)
    (ws / "d").mkdir()
    (ws / "d" / "f.txt").write_text(ALLOWED)
    decoy = ws / "d.swap"
    decoy.symlink_to(outside)
    try:
        exchange(ws / "d", decoy)
        exchange(ws / "d", decoy)
    except OSError as exc:
        pytest.skip(f"this file system cannot exchange entries: {exc}")
    return World(
        ws, outside, canary, "d/f.txt", ws / "d" / "f.txt", lambda _: exchange(ws / "d", decoy)
    )


WORLDS = {"link": link_world, "name": name_world, "parent": parent_world}


@pytest.fixture(params=sorted(WORLDS))
def world(request: pytest.FixtureRequest, tmp_path: Path) -> World:
    return WORLDS[request.param](tmp_path)


async def run(tool: Tool[Any], ctx: ToolContext, **arguments: Any) -> ToolOutput:
    return await tool.call(tool.input_model.model_validate(arguments), ctx)


def code(outcome: Outcome) -> str:
    return outcome.info.code if isinstance(outcome, ToolFailure) else "ok"


# -- races with a judged path -------------------------------------------------------------------


async def test_read_never_returns_the_canary(world: World) -> None:
    ctx = world.ctx()
    outcomes = await Swapper(world.flip).race(lambda: run(read_file.TOOL, ctx, path=world.arg))
    for outcome in outcomes:
        if isinstance(outcome, ToolOutput):
            assert "allowed TOKEN" in outcome.content
            assert "SECRET" not in outcome.content
        else:
            assert outcome.info.code == PATH_CHANGED, outcome.info
    final = await run(read_file.TOOL, ctx, path=world.arg)
    assert "allowed TOKEN" in final.content


async def test_write_never_touches_the_canary(world: World) -> None:
    before = world.canary_state()
    ctx = world.ctx()
    outcomes = await Swapper(world.flip).race(
        lambda: run(write_file.TOOL, ctx, path=world.arg, content="written\n")
    )
    assert {code(o) for o in outcomes} <= {"ok", PATH_CHANGED}
    assert world.canary_state() == before
    await run(write_file.TOOL, ctx, path=world.arg, content="final\n")
    assert world.judged.read_text() == "final\n"
    assert world.canary_state() == before


async def test_edit_never_touches_the_canary(world: World) -> None:
    before = world.canary_state()
    ctx = world.ctx()
    await run(read_file.TOOL, ctx, path=world.arg)

    async def edit() -> ToolOutput:
        try:
            return await run(
                edit_file.TOOL, ctx, path=world.arg, old_string="TOKEN", new_string="TOKEN!"
            )
        except ToolFailure as failure:
            if failure.info.code in ("stale_file", "not_read"):  # the swapper restored f.txt
                try:
                    await run(read_file.TOOL, ctx, path=world.arg)
                except ToolFailure:
                    pass
            raise

    outcomes = await Swapper(world.flip).race(edit)
    assert {code(o) for o in outcomes} <= {"ok", PATH_CHANGED, "stale_file", "not_read"}
    assert world.canary_state() == before
    await run(read_file.TOOL, ctx, path=world.arg)
    await run(edit_file.TOOL, ctx, path=world.arg, old_string="TOKEN", new_string="TOKEN!")
    assert "TOKEN!" in world.judged.read_text()
    assert world.canary_state() == before


async def test_spill_read_never_returns_a_file_swapped_in_under_its_name(
    tmp_path: Path,
) -> None:
    world = spill_world(tmp_path)
    ctx = world.ctx()
    outcomes = await Swapper(world.flip).race(lambda: run(read_file.TOOL, ctx, path=world.arg))
    for outcome in outcomes:
        if isinstance(outcome, ToolOutput):
            assert outcome.data.get("spill") is True
            assert "SECRET" not in outcome.content
        else:
            assert outcome.info.code == PATH_CHANGED, outcome.info
    final = await run(read_file.TOOL, ctx, path=world.arg)
    assert final.data.get("spill") is True


async def test_a_path_resolving_elsewhere_than_judged_is_refused(tmp_path: Path) -> None:
    world = link_world(tmp_path)
    world.flip(True)
    with pytest.raises(ToolFailure) as failure:
        await run(read_file.TOOL, world.ctx(), path="link")
    info = failure.value.info
    assert info.code == PATH_CHANGED
    assert "link now resolves to" in info.message
    assert "but the permission check judged f.txt" in info.message
    assert "call again" in info.next_step


# -- plain calls (no decision): a swap after the tool's own resolve is not followed -------------


class SwapWhenAsked:
    """A read guard that lets everything through but moves the attacker in when consulted,
    i.e. after read_file resolved its path and before it opens it."""

    def __init__(self, world: World) -> None:
        self.world = world

    def withheld(self, path: Path) -> str | None:
        self.world.flip(True)
        return None


class SwapAfterCheck(FileStateCache):
    """A file-state cache that moves the attacker in right after edit_file's staleness check,
    i.e. after it resolved its path and before it reads the file."""

    def __init__(self, world: World) -> None:
        super().__init__()
        self.world = world
        self.armed = False

    def changed_since_read(self, path: Path, content: bytes | None = None) -> bool | None:
        result = super().changed_since_read(path, content)
        if self.armed:
            self.armed = False
            self.world.flip(True)
        return result


async def test_plain_read_does_not_follow_a_directory_swapped_in_after_resolving(
    tmp_path: Path,
) -> None:
    world = parent_world(tmp_path)
    ctx = ToolContext(cwd=world.ws, reads=SwapWhenAsked(world))
    with pytest.raises(ToolFailure) as failure:
        await run(read_file.TOOL, ctx, path=world.arg)
    assert failure.value.info.code == PATH_CHANGED
    assert "d is now a symbolic link" in failure.value.info.message


async def test_plain_edit_does_not_follow_a_directory_swapped_in_after_resolving(
    tmp_path: Path,
) -> None:
    world = parent_world(tmp_path)
    before = world.canary_state()
    state = SwapAfterCheck(world)
    ctx = ToolContext(cwd=world.ws, file_state=state)
    await run(read_file.TOOL, ctx, path=world.arg)
    state.armed = True
    with pytest.raises(ToolFailure) as failure:
        await run(edit_file.TOOL, ctx, path=world.arg, old_string="TOKEN", new_string="X")
    assert failure.value.info.code == PATH_CHANGED
    assert world.canary_state() == before


def test_plain_write_does_not_follow_a_directory_swapped_in_after_resolving(
    tmp_path: Path,
) -> None:
    """What write_file does between its resolve and its write, with the swap in between."""
    world = parent_world(tmp_path)
    before = world.canary_state()
    target = resolve_target(world.arg, world.ctx(judged=False))
    world.flip(True)
    with pytest.raises(ToolFailure) as failure:
        atomic_write(target, b"written\n", resolved=True)
    assert failure.value.info.code == PATH_CHANGED
    assert world.canary_state() == before


# -- read-deny ----------------------------------------------------------------------------------


class DenyDotEnv:
    def withheld(self, path: Path) -> str | None:
        return "the rule read_file(.env)" if path.name == ".env" else None


async def test_read_refuses_a_withheld_file_also_through_a_symlink(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("API_KEY=hunter2\n")
    (tmp_path / "alias").symlink_to(tmp_path / ".env")
    ctx = ToolContext(cwd=tmp_path, reads=DenyDotEnv())
    for name in (".env", "alias"):
        with pytest.raises(ToolFailure) as failure:
            await run(read_file.TOOL, ctx, path=name)
        info = failure.value.info
        assert info.code == "withheld"
        assert info.message == (
            f"{name} is withheld by the rule read_file(.env): its content cannot be read."
        )
        assert "hunter2" not in info.to_model_text()
        assert "Do not try to read it another way" in info.next_step
    (tmp_path / "ok.txt").write_text("fine\n")
    assert "fine" in (await run(read_file.TOOL, ctx, path="ok.txt")).content


# -- the helpers --------------------------------------------------------------------------------


@pytest.fixture
def outside_link(tmp_path: Path) -> tuple[Path, Path]:
    """``tmp/ws/d`` is a symlink to ``tmp/outside`` holding ``secret``."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text(SECRET)
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "d").symlink_to(tmp_path / "outside")
    return Path(os.path.realpath(tmp_path / "ws")), Path(os.path.realpath(tmp_path / "outside"))


def test_open_file_refuses_a_symlinked_directory_on_the_way(
    outside_link: tuple[Path, Path],
) -> None:
    ws, _ = outside_link
    for opener in (open_file, open_regular, lambda p: open_dir(p.parent)):
        with pytest.raises(ToolFailure) as failure:
            opener(ws / "d" / "secret")
        assert failure.value.info.code == PATH_CHANGED
        message = failure.value.info.message
        assert str(ws / "d") in message
        assert "is now a symbolic link" in message


def test_open_file_refuses_a_symlink_as_the_last_component(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text(SECRET)
    (tmp_path / "link").symlink_to(tmp_path / "secret")
    link = Path(os.path.realpath(tmp_path)) / "link"
    for opener in (open_file, open_regular):
        with pytest.raises(ToolFailure) as failure:
            opener(link)
        assert failure.value.info.code == PATH_CHANGED


def test_root_and_files_open(tmp_path: Path) -> None:
    root = open_dir(Path("/"))
    try:
        assert os.path.samestat(os.fstat(root), os.stat("/"))
    finally:
        os.close(root)
    fd = open_file(Path("/"))
    os.close(fd)
    (tmp_path / "a.txt").write_text("a")
    a = Path(os.path.realpath(tmp_path / "a.txt"))
    fd, other = open_regular(a), open_file(a)
    try:
        assert same_file(fd, other)
        assert os.read(fd, 10) == b"a"
    finally:
        os.close(fd)
        os.close(other)


def test_missing_parents_are_not_found_when_reading_and_made_when_writing(tmp_path: Path) -> None:
    target = Path(os.path.realpath(tmp_path)) / "x" / "y" / "z.txt"
    with pytest.raises(FileNotFoundError):
        open_file(target)
    with pytest.raises(FileNotFoundError):
        open_dir(target.parent)
    assert replace_file(target, b"new\n") is True
    assert target.read_bytes() == b"new\n"
    assert replace_file(target, b"again\n") is False
    assert os.listdir(target.parent) == ["z.txt"]


def test_replace_keeps_the_mode_of_an_existing_file(tmp_path: Path) -> None:
    script = Path(os.path.realpath(tmp_path)) / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o750)
    replace_file(script, b"#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750


def test_a_failed_replace_leaves_no_temporary_file(tmp_path: Path) -> None:
    """The final name is a directory: the rename fails (for root too) after the temp exists."""
    base = Path(os.path.realpath(tmp_path))
    (base / "dir").mkdir()
    (base / "dir" / "inside").write_text("x")
    with pytest.raises(IsADirectoryError):
        replace_file(base / "dir", b"data")
    assert os.listdir(base) == ["dir"]
    assert os.listdir(base / "dir") == ["inside"]


def test_replace_refuses_a_symlink_at_the_name_and_leaves_no_temporary_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "secret").write_text(SECRET)
    (tmp_path / "link").symlink_to(tmp_path / "secret")
    base = Path(os.path.realpath(tmp_path))
    with pytest.raises(ToolFailure) as failure:
        replace_file(base / "link", b"overwritten")
    assert failure.value.info.code == PATH_CHANGED
    assert (base / "secret").read_text() == SECRET
    assert sorted(os.listdir(base)) == ["link", "secret"]


def test_replace_refuses_a_symlinked_parent_and_creates_nothing_outside(
    outside_link: tuple[Path, Path],
) -> None:
    ws, outside = outside_link
    for target in (ws / "d" / "secret", ws / "d" / "new" / "file.txt"):
        with pytest.raises(ToolFailure) as failure:
            replace_file(target, b"overwritten")
        assert failure.value.info.code == PATH_CHANGED
    assert os.listdir(outside) == ["secret"]
    assert (outside / "secret").read_text() == SECRET


def test_open_regular_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    fifo = Path(os.path.realpath(tmp_path)) / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile):
        open_regular(fifo)
    with pytest.raises(NotRegularFile):
        open_regular(Path("/"))


def test_an_unresolved_path_is_a_programming_error(tmp_path: Path) -> None:
    for bad in (Path("relative.txt"), tmp_path / ".." / "x"):
        with pytest.raises(ValueError, match="expected a resolved absolute path"):
            open_file(bad)
