"""Project trust: what a repository's own files may turn on only after the user has seen it.

A repository can ship ``.mcp.json`` and ``.agent-tui/settings*.json``. Read blindly, cloning a
hostile repository and starting agent-tui in it would run the commands of its MCP servers at
once (``"command": "sh", "args": ["-c", "curl … | sh"]``), send the user's environment to a
server URL of its choosing (``"headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}``), allow
every command (``"allow": ["run_shell"]``) or switch prompts off (``"defaultMode": "bypass"``).

So those parts — each project MCP server, each project allow rule, a project default mode that
asks less (``accept-edits``, ``bypass``), a project settings file's hooks, each project skill,
each project command file's ``allowed-tools`` (``core.commands.grants``), the variables a
``.claude/settings*.json`` ``env`` sets for commands — are *trust items*. An item is used
only when the user trusted it, in this workspace, exactly as it is now: a server's key covers
its whole definition, so a changed command asks again. What tightens (deny and ask rules,
``plan``) never needs trust. The TUI asks at start-up (``ui/shell/trust_dialog.py``),
``agent-tui trust`` reviews them, and headless runs use only what is already trusted (the rest
is reported).

Trusted keys are kept per workspace in ``<data dir>/trust.json`` — outside every repository,
but not out of reach of one: with the workspace as the home directory the data directory is
inside it. So the store is written without following a link, mode 0600, and sealed; a store
that is not as agent-tui last wrote it (shipped, copied, changed by another program, writable
by another user: ``core.state.seals``) trusts nothing, and ``problem`` says why. Each save
writes a new file and renames it into place; before the rename the seal records it as pending
(its inode, size and hash), so a process killed between the rename and the new seal leaves a
store the next load still takes (``state_seal.verify``), and the next save clears the
temporary file a process killed before the rename left.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_tui.core.state.nofollow import replace_at
from agent_tui.core.state.paths import data_dir
from agent_tui.core.state.seals import (
    Doubted,
    Pending,
    Seal,
    State,
    open_parent,
    sha256,
    verified,
    write_seal,
)

FILE = "trust.json"
log = logging.getLogger(__name__)
ItemKind = Literal["mcp_server", "allow_rule", "mode", "hook_file", "skill", "command_grant", "env"]
_lock = threading.Lock()


@dataclass(frozen=True)
class TrustItem:
    """One thing a project file asks to turn on."""

    kind: ItemKind
    source: Path
    """The project file it comes from."""
    name: str
    """The server's name, the rule, or the mode."""
    detail: str = ""
    """What it does, for the prompt: the server's command line or URL (with its headers and
    environment named), or the rule."""
    definition: str = ""
    """Everything that defines it (a server's whole entry, as canonical JSON): part of the key."""

    @property
    def key(self) -> str:
        digest = hashlib.sha256(self.definition.encode("utf-8")).hexdigest()[:16]
        return f"{self.kind}|{self.source.name}|{self.name}|{digest}"

    def describe(self) -> str:
        """One line for lists and warnings."""
        if self.kind == "mcp_server":
            return f"start the MCP server {self.name}: {self.detail}"
        if self.kind == "allow_rule":
            return f"allow {self.name} without asking"
        if self.kind == "hook_file":
            return f"run the hooks of {self.source.name}: {self.detail}"
        if self.kind == "skill":
            return f"offer the model the skill {self.name} ({self.source})"
        if self.kind == "command_grant":
            return f"let {self.name} allow {self.detail} without asking, during its turn"
        if self.kind == "env":
            where = f"{self.source.parent.name}/{self.source.name}"
            return f"set for the agent's commands the env of {where}: {self.detail}"
        return f"start in {self.name} mode"


def canonical(value: Any) -> str:
    """``value`` as JSON with sorted keys: the same definition gives the same key."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass
class ProjectTrust:
    """The trusted items of one workspace, and the untrusted ones met while loading."""

    workspace: Path
    path: Path | None = None
    """The store (default ``<data dir>/trust.json``)."""
    pending: list[TrustItem] = field(default_factory=list)
    """Items the loaders met and left off because they are not trusted (each once)."""
    problem: str | None = None
    """Why the store was not used (``core.state.seals``), for the front ends; None when it
    was (or there is none yet)."""

    def __post_init__(self) -> None:
        self.workspace = Path(os.path.realpath(self.workspace))
        self._keys: set[str] | None = None
        self._state: State | None = None
        """The store as last read and found agent-tui's (None: none, or doubted)."""

    @property
    def store(self) -> Path:
        return self.path or data_dir() / FILE

    def _read_all(self) -> dict[str, list[str]]:
        """Every workspace's trusted keys; nothing when the store cannot be taken as
        agent-tui wrote it (``core.state.seals``: shipped, copied, changed by another program,
        writable by another user) — then ``problem`` says why."""
        self._state = None
        try:
            fd = open_parent(self.store)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            return self._unreadable(exc)
        try:
            with verified(fd, self.store.name) as found:
                raw = json.loads(found.data)
                self._state = found.state
        except Doubted as doubted:
            self.problem = (
                f"the trust store {self.store} {doubted.why}: nothing in it is trusted, since "
                "a trust store put there by anything but agent-tui could turn on a project's "
                "MCP servers and rules. Review and trust the project's items again "
                "(`agent-tui trust`, or in the TUI); that writes a new store"
            )
            log.warning("%s", self.problem)
            return {}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            return self._unreadable(exc)
        finally:
            os.close(fd)
        workspaces = raw.get("workspaces") if isinstance(raw, dict) else None
        if not isinstance(workspaces, dict):
            return {}
        return {str(k): [str(x) for x in v] for k, v in workspaces.items() if isinstance(v, list)}

    def _unreadable(self, exc: Exception) -> dict[str, list[str]]:
        log.warning("the trust store %s cannot be read (%s): nothing is trusted", self.store, exc)
        return {}

    @property
    def keys(self) -> set[str]:
        if self._keys is None:
            self._keys = set(self._read_all().get(str(self.workspace), []))
        return self._keys

    def refresh(self) -> None:
        """Read the store again (another process or instance may have trusted more)."""
        kept = self._keys or set()
        self._keys = None
        self.keys.update(kept)

    def allows(self, item: TrustItem) -> bool:
        """Whether ``item`` is trusted; an untrusted one is remembered in ``pending``."""
        if item.key in self.keys:
            return True
        if all(p.key != item.key for p in self.pending):
            self.pending.append(item)
        return False

    def trust(self, items: Iterable[TrustItem]) -> None:
        """Trust ``items`` from now on (saved at once, sealed). ``OSError`` when the store
        cannot be written: then they are trusted for this run only."""
        new = {item.key for item in items}
        self.keys.update(new)
        self.pending = [p for p in self.pending if p.key not in new]
        with self._writing() as (fd, everything):
            everything[str(self.workspace)] = sorted(
                set(everything.get(str(self.workspace), [])) | self.keys
            )
            self._save(fd, everything)

    def forget(self) -> None:
        """Trust nothing of this workspace any more (``agent-tui trust --revoke``)."""
        self._keys = set()
        with self._writing() as (fd, everything):
            everything.pop(str(self.workspace), None)
            if os.path.lexists(self.store):
                self._save(fd, everything)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[tuple[int, dict[str, list[str]]]]:
        """The store's directory (made, 0700, when missing) locked against other agent-tui
        processes, with what the store holds now (nothing, when it is doubted)."""
        with _lock:
            fd = open_parent(self.store, create=True)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                _clear_temporaries(fd, self.store.name)
                yield fd, self._read_all()
            finally:
                os.close(fd)  # releases the lock

    def _save(self, fd: int, everything: dict[str, list[str]]) -> None:
        """Write the store (mode 0600, no link followed) and its seal: the new file as
        pending before it is renamed into place (the old one, if it was agent-tui's, still
        sealed as it is), then as it is."""
        data = {"version": 1, "workspaces": everything}
        text = (json.dumps(data, indent=1) + "\n").encode("utf-8")
        digest = sha256(text).hexdigest()
        name, before = self.store.name, self._state

        def pending(new: os.stat_result) -> None:
            # on disk before the rename can be (a power cut), then stamped again: the rename's
            # change time must fall within AFTER_NS of the stamp, whatever the sync took
            for durable in (True, False):
                record = Pending(new.st_ino, len(text), digest, time.time_ns())
                write_seal(fd, name, Seal(before, record), durable=durable)

        st = replace_at(fd, name, text, mode=0o600, before_rename=pending)
        self._state = State.of(st, digest)
        write_seal(fd, name, Seal(self._state), durable=True)
        self.problem = None


def _clear_temporaries(dir_fd: int, store: str) -> None:
    """Remove the temporary stores saves killed before their rename left (``.NAME.XXXXXXXX
    .tmp``, ``nofollow.replace_at``'s names), under the lock every save holds: none is in use."""
    temporary = re.compile(rf"\.{re.escape(store)}\.[0-9a-f]{{8}}\.tmp")
    try:
        names = os.listdir(dir_fd)
    except OSError:
        return
    for name in names:
        if temporary.fullmatch(name):
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=dir_fd)


def untrusted_warning(items: Iterable[TrustItem]) -> str:
    """What was left off because it is not trusted, and how to review it (headless runs)."""
    listed = "; ".join(item.describe() for item in items)
    return (
        f"not trusted, left off: {listed} — these come with the project; review and trust "
        "them with `agent-tui trust` (or in the TUI)"
    )
