"""Outside the workspace is not the project: reads and writes there ask in every mode.

A list of protected paths can never be complete: ``~/.bashrc.d/x``, ``~/.bash_aliases``, a
``.pth`` in ``~/.local/lib/python3.X/site-packages``, ``~/.gradle/init.d/``,
``~/.cargo/config.toml``, IPython's startup, ``~/.vimrc``, ``~/.gdbinit``,
``~/.docker/config.json``… each runs code later, and there are always more. So the rule is by
place, not by name (``protected`` keeps its list for the paths *inside* the workspace):

- **a write** outside the workspace — by ``write_file``, ``edit_file`` or any other writing
  path tool, or a file a shell command is known to write (redirections, ``tee``, ``cp``
  targets…; relative paths after a ``cd`` are resolved against it) — asks in every mode,
  bypass and accept-edits included, unless an allow rule of that tool (``write_file`` for a
  command's writes) has a pattern that matches the path: ``write_file(//opt/data/**)``,
  ``write_file(~/notes/**)``. A bare ``write_file`` or ``write_file(**)`` (the workspace)
  does not name it;
- **a read** outside the workspace — ``read_file``, ``grep``, ``glob`` (its pattern's
  leading directories count), ``list_dir`` — asks the same way unless an allow rule of that
  tool or of ``read_file`` names the path (``read_file(//home/u/proj2/**)``). A walk of the
  workspace (``grep`` over ``.``) withholds what a symlink in it leads to outside
  (``OutsideGuard``). The home's key stores (``~/.ssh``, ``~/.aws``… — what the sandbox hides)
  count as outside even when the workspace holds the home. No other exception: the agent's
  spill files live in the workspace, and system files (``/etc``, ``/usr``) are read with a
  rule or a command;
- **the session's temp dir** (``sandbox.scratch``: private, made by the agent, ``TMPDIR`` of
  its commands) is free for both, and for commands that run sandboxed so are ``/tmp`` (private
  to each command there) and ``sandbox.allow_write`` (the user's own setting);
- **a command's reads** (``outside_shell``): in the sandbox the home is hidden, so nothing more
  is needed. Without it, a command that names a path under a home directory (literally, with
  ``~`` or ``$HOME``: ``cat ~/.ssh/id_rsa``, ``cat /root/.aws/credentials``), a secrets mount
  (``/run/secrets``) or a process's environment (``/proc/PID/environ``) asks in every mode.
  Everyday reads of system files (``/etc/os-release``, ``/usr/include/…``) do not: they are
  world-readable, the same inside the sandbox, and hold no one's keys.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.permissions.protected import names_explicitly
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.sandbox import SECRETS_IN_HOME, Hidden
from agent_tui.core.tools.base import Tool
from agent_tui.core.tools.reads import ReadGuard

if TYPE_CHECKING:
    from agent_tui.core.permissions.judging import Judging

READ_TOOL = "read_file"
WRITE_TOOL = "write_file"
DEVICES = re.compile(r"^/dev/(?:null|stdout|stderr|tty|fd/[0-9]+)$")
"""Write targets that are no file (a command's own output, the terminal)."""
MAX_DIRS = 4096
"""Directories a guard keeps resolved (``OutsideGuard._real``)."""
WITHHELD = (
    "the outside-the-workspace check (it lies outside the workspace or in the home's key "
    "stores, and no read_file rule names it)"
)


# -- places -------------------------------------------------------------------------------------


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def home() -> Path:
    return Path(os.path.realpath(os.path.expanduser("~")))


def temp_dir(p: Judging) -> Path | None:
    """The session's temp directory (made now if it was not yet), or None without a session."""
    return p.sandbox.temp_dir if p.sandbox is not None else None


def sandboxed(p: Judging) -> bool:
    """Do the session's commands run in the OS sandbox?"""
    return p.sandbox is not None and p.sandbox.state.shell is not None


def home_secret(path: Path) -> str | None:
    """``~/.ssh`` when ``path`` is in one of the home's key stores (what the sandbox hides
    even when the workspace holds the home), else None."""
    top = home()
    if top == Path("/") or not _within(path, top) or path == top:
        return None
    rel = path.relative_to(top).as_posix()
    for name in SECRETS_IN_HOME:
        if rel == name or rel.startswith(name + "/"):
            return f"~/{name}"
    return None


def free_to_write(p: Judging, path: Path, *, command: bool) -> bool:
    """A write needs no asking by place: the workspace, the session's temp dir, and for a
    command in the sandbox what the sandbox lets it write (``/tmp``, ``allow_write``)."""
    if p.inside_workspace(path):
        return True
    temp = temp_dir(p)
    if temp is not None and _within(path, temp):
        return True
    if command and p.sandbox is not None:
        shell = p.sandbox.state.shell
        if shell is not None and shell.writable(path):
            return True
    return False


def free_to_read(p: Judging, path: Path) -> bool:
    """A read needs no asking by place: the workspace (not the home's key stores in it) and
    the session's temp dir."""
    if p.inside_workspace(path):
        return home_secret(path) is None
    temp = temp_dir(p)
    return temp is not None and _within(path, temp)


def naming_rule(p: Judging, tools: Iterable[str], path: Path) -> Rule | None:
    """An allow rule of one of ``tools`` whose pattern matches ``path`` (a rule without a
    pattern names no path). ``DIR/**`` names the directory ``DIR`` too: it covers all that a
    walk of it (``grep``, ``list_dir``) can reach. A path in the home's key stores is named
    only by a rule that spells the store out (``read_file(~/.ssh/config)``, not ``**``). A
    command's grant names no place outside (``Judging.standing_allow_rules``)."""
    wanted = tuple(tools)
    secret = home_secret(path)  # ~/.ssh… : only a rule that spells it out (not ``**``)
    key = secret.removeprefix("~/") if secret is not None else None
    for rule in p.standing_allow_rules:
        if rule.pattern is None or not any(rule.names_tool(name) for name in wanted):
            continue
        if key is not None and not names_explicitly(rule.pattern, key):
            continue
        if rule.matches_path(path, p.workspace) or _whole_directory(rule, path, p.workspace):
            return rule
    return None


def _whole_directory(rule: Rule, path: Path, workspace: Path) -> bool:
    pattern = rule.pattern or ""
    if not pattern.endswith("/**"):
        return False
    head = pattern[:-3]
    if head in ("/", ""):  # //** : everything
        return pattern == "//**"
    if head == "~":
        return path == home()
    return Rule(rule.tool, head).matches_path(path, workspace)


def temp_hint(p: Judging, *, command: bool) -> str:
    """Where temporary files may go without asking, for the reason of an ask."""
    temp = temp_dir(p)
    places = []
    if temp is not None:
        places.append(f"the session's temp dir $TMPDIR ({temp})")
    if command and sandboxed(p):
        places.append("/tmp, which is private to each sandboxed command")
    if not places:
        return ""
    return " Temporary files need no asking in " + " or ".join(places) + "."


def _tool_names(tool: Tool[Any]) -> tuple[str, ...]:
    return (tool.name, *tool.aliases)


# -- file tools -------------------------------------------------------------------------------


def outside_path(p: Judging, tool: Tool[Any], path: Path) -> str | None:
    """Why a path tool's call on ``path`` asks in every mode (it is outside the workspace and
    no rule names it), or None."""
    shown = p.shown(path)
    if tool.meta.read_only:
        if free_to_read(p, path) or naming_rule(p, (*_tool_names(tool), READ_TOOL), path):
            return None
        secret = home_secret(path)
        if secret is not None:
            return (
                f"{shown} is in {secret}, which holds keys or tokens (the sandbox hides it from "
                f"commands); reading it asks in every mode unless a rule names it, e.g. "
                f"{READ_TOOL}(//{path.as_posix().lstrip('/')})"
            )
        return (
            f"{shown} is outside the workspace: what lies there (keys, tokens, other "
            "projects) is not the project's, so reading it asks in every mode unless an allow "
            f"rule names it, e.g. {READ_TOOL}(//{_dir_of(path).as_posix().lstrip('/')}/**)"
        )
    if free_to_write(p, path, command=False) or naming_rule(p, _tool_names(tool), path):
        return None
    return (
        f"{shown} is outside the workspace: a file there can run code later (shell startup, "
        "tool configuration, a Python .pth…), so a write asks in every mode unless an allow "
        f"rule names that path, e.g. {tool.name}(//{path.as_posix().lstrip('/')})."
        + temp_hint(p, command=False)
    )


def _dir_of(path: Path) -> Path:
    return path if path.is_dir() else path.parent


# -- walks: what a symlink leads to -------------------------------------------------------------


class OutsideGuard:
    """The read guard of the agent's file tools: withholds what resolves outside the places
    reads need no asking (the workspace but its home key stores, the session's temp dir), unless
    a ``read_file`` allow rule names it or it lies in the call's own judged path (a directory
    the user or a rule let it read); then ``inner`` (the read rules) decides. A symlink in the
    workspace that leads to ``~/.ssh/id_rsa`` is thus withheld from ``grep`` over ``.``.

    The places are taken once, when the guard is made (one per call): a walk judges each file
    by comparing paths, no system call but the one ``realpath``."""

    def __init__(
        self,
        inner: ReadGuard,
        free: tuple[Path, ...],
        secrets: tuple[Path, ...],
        named: Callable[[Path], bool],
        root: Path | None = None,
    ) -> None:
        self.inner = inner
        self.free = free
        """Where reads need no asking (the workspace, the temp dir)…"""
        self.secrets = secrets
        """…but for these (the home's key stores)."""
        self.named = named
        self.root = root
        # compared as strings: a walk asks about every file
        self._free = tuple(_prefix(place) for place in free)
        self._secrets = tuple(_prefix(secret) for secret in secrets)
        self._root = _prefix(root) if root is not None else None
        self._dirs: dict[str, str] = {}

    def withheld(self, path: Path) -> str | None:
        real = self._real(path)  # once more: a caller that forgot cannot walk out
        if not self._allowed(real):
            return WITHHELD
        return self.inner.withheld(path)

    def _real(self, path: Path) -> str:
        """``realpath``, with each directory resolved once per guard (a walk asks about many
        files of one directory): then one ``lstat`` a file."""
        head, name = os.path.split(os.fspath(path))
        if not head or name in ("", ".", ".."):
            return os.path.realpath(path)
        parent = self._dirs.get(head)
        if parent is None:
            if len(self._dirs) > MAX_DIRS:
                self._dirs.clear()
            parent = self._dirs[head] = os.path.realpath(head)
        full = os.path.join(parent, name)
        try:
            if not stat.S_ISLNK(os.lstat(full).st_mode):
                return full
        except OSError:
            pass
        return os.path.realpath(full)

    def _allowed(self, real: str) -> bool:
        text = real + "/"
        root = self._root
        secret = next((s for s in self._secrets if text.startswith(s)), None)
        if secret is not None:  # a key store: only a call judged inside it, or a rule naming it
            if root is not None and root.startswith(secret) and text.startswith(root):
                return True
            return self.named(Path(real))
        if root is not None and text.startswith(root):
            return True
        if any(text.startswith(place) for place in self._free):
            return True
        return self.named(Path(real))

    def hidden(self) -> Hidden:
        return self.inner.hidden()

    def scoped(self, root: Path | None) -> ReadGuard:
        """This guard for one call whose judged path is ``root`` (resolved)."""
        return OutsideGuard(self.inner, self.free, self.secrets, self.named, root)


def _prefix(path: Path) -> str:
    """``path`` as a prefix of the paths within it (``/`` itself: every path)."""
    return str(path).rstrip("/") + "/"


def outside_guard(p: Judging, inner: ReadGuard) -> OutsideGuard:
    top = home()
    temp = temp_dir(p)
    return OutsideGuard(
        inner,
        (p.workspace, *([temp] if temp is not None else [])),
        tuple(top / name for name in SECRETS_IN_HOME),
        lambda path: naming_rule(p, (READ_TOOL,), path) is not None,
    )
