"""Moving what a command planted out of the workspace: kept when that is safe, always said.

A planted file is hostile in its shape as well as its content: a FIFO blocks whoever opens it,
a 2 GB sparse file takes 2 GB once copied, a device, a socket or a symbolic link is not a file
to copy at all. So a victim is first *renamed* into the quarantine directory (atomic, and what
it is does not matter); only when the quarantine is on another filesystem (``EXDEV``) is it
copied, and then never a FIFO, socket or device (not opened: ``O_NONBLOCK``, checked with
``fstat``), never a file over ``FILE_CAP`` or past ``TOTAL_CAP`` a command, never into less
than ``MARGIN`` of free space; links are copied as links. What is not kept is removed, and the
result says which and why (``Moved.how`` and ``Moved.note``); what cannot be removed either is
reported as left where it is. Nothing here raises: the after-check must never stop a command's
result, nor leave a state that fails the next start.

``restore`` puts a changed file's earlier bytes back (a revert) after its new version is
moved aside, through directory descriptors opened without following links, so a command that
swapped a directory for a link cannot make the revert write elsewhere.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.state.nofollow import LinkRefused, open_below
from agent_tui.core.state.paths import data_dir

log = logging.getLogger(__name__)

FILE_CAP = 1 << 20
"""Bytes of one file copied to another filesystem (1 MiB): configs and hooks are small."""
TOTAL_CAP = 16 << 20
"""Bytes copied to another filesystem for one command (16 MiB)."""
MARGIN = 64 << 20
"""Free space the quarantine's filesystem keeps after a copy (64 MiB)."""
MAX_ENTRIES = 10_000
"""Entries of one planted directory copied across filesystems (the rest are removed)."""


@dataclass(frozen=True)
class Moved:
    path: Path
    """Where the command created (or changed) it."""
    to: Path
    """Where it is now: in the quarantine, or ``path`` when it was removed or left."""
    box: Path
    """The quarantine directory of this command (the workspace's layout below it)."""
    how: str = "moved"
    """``moved`` (kept in the quarantine, whole or in part — see ``note``), ``reverted`` (the
    earlier content is back, the command's version kept), ``removed`` (not kept), ``left``
    (still there: it could not be removed)."""
    note: str = ""
    """What was not kept, or why it is left."""


@dataclass
class _Budget:
    copied: int = 0
    entries: int = 0
    dropped: list[str] = field(default_factory=list)


def new_box() -> Path:
    """A fresh quarantine directory's path (made on first use)."""
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns() % 10**6:06d}"
    return data_dir() / "quarantine" / stamp


def _relative(victim: Path, workspace: Path) -> Path:
    try:
        return victim.relative_to(workspace)
    except ValueError:
        return Path(*victim.parts[1:])


def move(victims: list[Path], workspace: Path, box: Path | None = None) -> list[Moved]:
    """Move ``victims`` into one quarantine directory, keeping their place below the
    workspace; each gets a ``Moved`` saying what became of it. Blocking; never raises."""
    box = box or new_box()
    budget = _Budget()
    out: list[Moved] = []
    for victim in victims:
        if not os.path.lexists(victim):
            continue
        target = box / _relative(victim, workspace)
        try:
            out.append(_move_one(victim, target, box, budget))
        except Exception as exc:  # the after-check reports, it never fails the command
            log.exception("quarantining %s failed", victim)
            out.append(Moved(victim, victim, box, "left", f"could not be moved: {exc}"))
    return out


def _move_one(victim: Path, target: Path, box: Path, budget: _Budget) -> Moved:
    try:
        made = _made(box, target.relative_to(box).parts[:-1])
    except OSError as exc:  # no quarantine: not kept, but not left to run either
        return _remove_instead(victim, box, f"could not be kept ({exc.strerror})")
    if made != box:  # a link on the way into the data dir: a private directory instead
        target, box = made / target.relative_to(box), made
    if os.path.lexists(target):
        target = target.with_name(f"{target.name}.{time.monotonic_ns() % 10**9}")
    try:
        os.rename(victim, target)
        return Moved(victim, target, box)
    except OSError:
        pass  # another filesystem (EXDEV), or a rename refused: a bounded copy, then removal
    budget.dropped = []
    _copy(victim, target, budget)
    removed = _remove(victim)
    note = "; ".join(budget.dropped[:3]) + (" …" if len(budget.dropped) > 3 else "")
    if removed is not None:
        return Moved(victim, victim, box, "left", f"not removed: {removed}")
    if not os.path.lexists(target):
        return Moved(victim, victim, box, "removed", note or "not kept")
    return Moved(victim, target, box, "moved", note)


def _made(box: Path, parts: tuple[str, ...]) -> Path:
    """``box`` with ``parts`` below it made as real directories (0700), no link followed —
    the data directory may be in the workspace (the workspace as the home directory), and a
    ``quarantine`` link there would send what is quarantined wherever it points. A link on
    the way: the box moves to a private temporary directory instead (returned)."""
    base = data_dir()
    if box.is_relative_to(base):
        anchor, rel = base, box.relative_to(base).parts
        anchor.mkdir(mode=0o700, parents=True, exist_ok=True)
    else:  # a private directory already
        anchor, rel = box, ()
    try:
        os.close(open_below(anchor, (*rel, *parts), create=True, mode=0o700))
        return box
    except LinkRefused as link:
        log.warning("%s is a symbolic link: quarantining in a private directory instead", link)
    private = Path(tempfile.mkdtemp(prefix="agent-tui-quarantine-"))
    os.close(open_below(private, parts, create=True, mode=0o700))
    return private


def _remove_instead(victim: Path, box: Path, why: str) -> Moved:
    failed = _remove(victim)
    if failed is not None:
        return Moved(victim, victim, box, "left", f"{why}, and not removed: {failed}")
    return Moved(victim, victim, box, "removed", why)


def _remove(path: Path) -> str | None:
    """Remove ``path`` (a tree without following links; a FIFO is unlinked, never opened);
    None, or why it could not be."""
    failures: list[str] = []

    def failed(_function: object, where: str, info: BaseException) -> None:
        failures.append(f"{where}: {getattr(info, 'strerror', None) or info}")

    try:
        if os.path.isdir(path) and not os.path.islink(path):
            if sys.version_info >= (3, 12):
                shutil.rmtree(path, onexc=failed)
            else:
                shutil.rmtree(path, onerror=lambda f, p, e: failed(f, p, e[1]))
        else:
            os.unlink(path)
    except OSError as exc:
        failures.append(exc.strerror or str(exc))
    if failures or os.path.lexists(path):
        return failures[0] if failures else "still there"
    return None


def _kind(mode: int) -> str | None:
    """What a special file is (never to be opened), or None for a file, dir or link."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return None


def _copy(source: Path, target: Path, budget: _Budget) -> None:
    """Copy what may be kept of ``source`` to ``target`` (another filesystem), within the
    budget; what is not kept is listed in ``budget.dropped``."""
    budget.entries += 1
    if budget.entries > MAX_ENTRIES:
        budget.dropped.append(f"{source.name}: over {MAX_ENTRIES:,} entries")
        return
    try:
        info = os.lstat(source)
    except OSError:
        return
    special = _kind(info.st_mode)
    if special is not None:
        budget.dropped.append(f"{source.name}: {special}, not opened, not kept")
        return
    try:
        if stat.S_ISLNK(info.st_mode):
            os.symlink(os.readlink(source), target)
        elif stat.S_ISDIR(info.st_mode):
            target.mkdir(mode=0o700)
            for name in sorted(os.listdir(source)):
                _copy(source / name, target / name, budget)
        elif stat.S_ISREG(info.st_mode):
            _copy_file(source, target, info, budget)
    except OSError as exc:
        budget.dropped.append(f"{source.name}: {exc.strerror or exc}")


def _copy_file(source: Path, target: Path, info: os.stat_result, budget: _Budget) -> None:
    size = info.st_size
    if size > FILE_CAP:
        budget.dropped.append(f"{source.name}: {_size(size)}, over the {_size(FILE_CAP)} kept")
        return
    if budget.copied + size > TOTAL_CAP:
        budget.dropped.append(f"{source.name}: past the {_size(TOTAL_CAP)} kept a command")
        return
    free = shutil.disk_usage(target.parent).free
    if free < size + MARGIN:
        budget.dropped.append(f"{source.name}: not enough free space ({_size(free)})")
        return
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY
    fd = os.open(source, flags)
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or opened.st_ino != info.st_ino:
            budget.dropped.append(f"{source.name}: changed while it was copied")
            return
        data = os.read(fd, FILE_CAP + 1)
    finally:
        os.close(fd)
    if len(data) > FILE_CAP:
        budget.dropped.append(f"{source.name}: grew past {_size(FILE_CAP)} while copied")
        return
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(out, data)
    except OSError:
        os.close(out)
        with contextlib.suppress(OSError):
            os.unlink(target)
        raise
    os.close(out)
    budget.copied += len(data)


def _size(count: int) -> str:
    for unit, shift in (("GB", 30), ("MB", 20), ("KB", 10)):
        if count >= 1 << shift:
            return f"{count / (1 << shift):.1f} {unit}"
    return f"{count} bytes"


def _open_dir(path: Path) -> int:
    """A descriptor of directory ``path``, opened one component at a time without following
    a link anywhere (``ELOOP``/``ENOTDIR`` when a component is a link)."""
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in path.parts[1:]:
            nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except OSError:
        os.close(fd)
        raise
    return fd


def restore(path: Path, content: bytes, mode: int) -> str | None:
    """Write ``content`` back at ``path`` (whose new version was moved aside): a temporary
    file in the same directory, renamed over. None, or why it could not be."""
    try:
        directory = _open_dir(path.parent)
    except OSError as exc:
        return f"its directory is not where it was ({exc.strerror})"
    temp = f".{path.name}.agent-tui-restore-{os.getpid()}"
    try:
        fd = os.open(
            temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=directory
        )
        try:
            os.write(fd, content)
            os.fchmod(fd, stat.S_IMODE(mode) or 0o644)
        finally:
            os.close(fd)
        os.rename(temp, path.name, src_dir_fd=directory, dst_dir_fd=directory)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=directory)
        return exc.strerror or str(exc)
    finally:
        os.close(directory)
    return None


def revert(path: Path, content: bytes | None, mode: int, workspace: Path, box: Path) -> list[Moved]:
    """The command's version of ``path`` moved into ``box``, and ``content`` (what it held
    before, None when that is not known) written back. Blocking; never raises."""
    moved = move([path], workspace, box)
    if content is None:
        return moved
    failed = restore(path, content, mode)
    if failed is not None:
        note = "; not restored: " + failed
        return [Moved(m.path, m.to, m.box, m.how, (m.note + note).strip("; ")) for m in moved]
    return [Moved(m.path, m.to, m.box, "reverted", m.note) for m in moved]
