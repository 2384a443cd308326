"""Real crashes of agent-tui's own writers: a child process loads a session as ``--continue``
does and appends to it through ``SessionLog`` (or saves the trust store through
``ProjectTrust``), and dies at a chosen point of the real code path — killed by a ``SIGKILL``
it sends itself right before or after one real system call, or by the kernel itself when a
file size limit cuts its write short (``SIGXFSZ``, whose default action Python undoes and the
child restores). And ``strace``'s fault injection, which kills an unmodified ``agent-tui`` at
its Nth write of a file, for the runs of the real CLI."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from agent_tui.core.state.seals import Seal, read_seal, seal_name
from tests.core.agent_state.helpers import SRC

_SESSION_CHILD = r"""
import os, resource, signal, sys
from pathlib import Path

import agent_tui.core.conversation.session_seal as writer
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.transcript import Message

how, path, text, cut = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
session = SessionStore(path.parent).load(path)  # as --continue loads it
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
write_all, ftruncate = writer.write_all, os.ftruncate


def die():
    os.kill(os.getpid(), signal.SIGKILL)


def write_after_dying(fd, data):
    die()


def write_then_die(fd, data):
    write_all(fd, data)  # the lines land ...
    die()  # ... and the process is gone before it seals them


def cut_back_then_die(fd, size):
    ftruncate(fd, size)  # the failed write taken back off ...
    die()  # ... and the process is gone before it seals the file again


limit = (path.stat().st_size + cut, resource.RLIM_INFINITY)
if how == "before-write":
    writer.write_all = write_after_dying
elif how == "after-write":
    writer.write_all = write_then_die
elif how == "mid-write":  # the kernel cuts the write at the limit, then kills the writer
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_FSIZE, limit)
elif how == "after-cut-back":  # the write fails at the limit (EFBIG) and is cut back off
    resource.setrlimit(resource.RLIMIT_FSIZE, limit)
    os.ftruncate = cut_back_then_die
else:
    raise SystemExit(f"unknown crash {how}")
session.append(Message.user(text))
print("still alive")
"""

_TRUST_CHILD = r"""
import os, signal, sys
from pathlib import Path

from agent_tui.core.state.trust import ProjectTrust, TrustItem

how, workspace, name = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
replace = os.replace


def die():
    os.kill(os.getpid(), signal.SIGKILL)


def replace_then_die(*args, **kwargs):
    replace(*args, **kwargs)  # the new store is in place ...
    die()  # ... and the process is gone before it seals it


def die_before_replacing(*args, **kwargs):
    die()


os.replace = {"after-rename": replace_then_die, "before-rename": die_before_replacing}[how]
item = TrustItem("allow_rule", Path("settings.json"), name, name, name)  # a project rule
ProjectTrust(workspace).trust([item])
print("still alive")
"""


_CREATE_CHILD = r"""
import os, signal, sys
from pathlib import Path

import agent_tui.core.conversation.session_seal as writer
from agent_tui.core.conversation.session_store import SessionStore

write_all = writer.write_all


def write_then_die(fd, data):
    write_all(fd, data)  # the new session's first line lands ...
    os.kill(os.getpid(), signal.SIGKILL)  # ... and the process is gone before its seal


writer.write_all = write_then_die
SessionStore(Path(sys.argv[1])).new(Path(sys.argv[2]), "demo")
print("still alive")
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1"}


def crash_append(how: str, path: Path, text: str, cut: int = 0) -> int:
    """A child appends the user message ``text`` to the session ``path`` and dies ``how``:
    ``before-write`` / ``after-write`` (right before or after the write of the lines),
    ``mid-write`` (the kernel cuts the write ``cut`` bytes in and kills the child),
    ``after-cut-back`` (the write fails ``cut`` bytes in and is cut back off; killed before
    the seal follows). Returns the signal that ended the child."""
    done = subprocess.run(
        [sys.executable, "-c", _SESSION_CHILD, how, str(path), text, str(cut)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode < 0, (done.returncode, done.stdout, done.stderr)
    return -done.returncode


def crash_create(root: Path, cwd: Path) -> None:
    """A child starts a new session in ``root`` (for ``cwd``) and dies right after writing
    its first line, before sealing it."""
    done = subprocess.run(
        [sys.executable, "-c", _CREATE_CHILD, str(root), str(cwd)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stdout, done.stderr)


def crash_trust(how: str, workspace: Path, rule: str) -> None:
    """A child trusts the allow rule ``rule`` for ``workspace`` and dies right ``before`` or
    ``after`` the rename that puts the new trust store in place."""
    done = subprocess.run(
        [sys.executable, "-c", _TRUST_CHILD, how, str(workspace), rule],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stdout, done.stderr)


def seal_of(path: Path) -> Seal:
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return read_seal(fd, path.name)
    finally:
        os.close(fd)


def strace() -> str | None:
    """The ``strace`` that can kill a process at a chosen system call, or None."""
    return shutil.which("strace")


def killed_at_write(
    nth: int, of: Path, argv: list[str], *, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` under ``strace``, which sends it ``SIGKILL`` as it enters its ``nth``
    ``pwrite64`` to ``of`` (the write is not done): the unmodified program dies at that
    point of its real code path."""
    command = [
        strace() or "strace",
        "-f",
        "-qq",
        "-o",
        os.devnull,
        "-e",
        "trace=pwrite64",
        "-P",
        str(of),
        "-e",
        f"inject=pwrite64:signal=KILL:when={nth}",
        *argv,
    ]
    return subprocess.run(
        command,
        cwd=cwd,
        env=env if env is not None else _env(),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def agent_tui(*args: str) -> list[str]:
    return [sys.executable, "-m", "agent_tui", *args]


def seal_path(path: Path) -> Path:
    return path.with_name(seal_name(path.name))
