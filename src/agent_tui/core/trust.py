"""Project trust: what a repository's own files may turn on only after the user has seen it.

A repository can ship ``.mcp.json`` and ``.agent-tui/settings*.json``. Read blindly, cloning a
hostile repository and starting agent-tui in it would run the commands of its MCP servers at
once (``"command": "sh", "args": ["-c", "curl … | sh"]``), send the user's environment to a
server URL of its choosing (``"headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}``), allow
every command (``"allow": ["run_shell"]``) or switch prompts off (``"defaultMode": "bypass"``).

So those parts — each project MCP server, each project allow rule, a project default mode that
asks less (``accept-edits``, ``bypass``) — are *trust items*. An item is used only when the
user trusted it, in this workspace, exactly as it is now: a server's key covers its whole
definition, so a changed command asks again. What tightens (deny and ask rules, ``plan``) never
needs trust. The TUI asks at start-up (``ui/shell/trust_dialog.py``), ``agent-tui trust``
reviews them, and headless runs use only what is already trusted (the rest is reported).

Trusted keys are kept per workspace in ``<data dir>/trust.json`` — outside every repository.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_tui.core.paths import data_dir

FILE = "trust.json"
log = logging.getLogger(__name__)
ItemKind = Literal["mcp_server", "allow_rule", "mode", "hook_file"]
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

    def __post_init__(self) -> None:
        self.workspace = Path(os.path.realpath(self.workspace))
        self._keys: set[str] | None = None

    @property
    def store(self) -> Path:
        return self.path or data_dir() / FILE

    def _read_all(self) -> dict[str, list[str]]:
        try:
            raw = json.loads(self.store.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning(
                "the trust store %s cannot be read (%s): nothing is trusted", self.store, exc
            )
            return {}
        workspaces = raw.get("workspaces") if isinstance(raw, dict) else None
        if not isinstance(workspaces, dict):
            return {}
        return {str(k): [str(x) for x in v] for k, v in workspaces.items() if isinstance(v, list)}

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
        """Trust ``items`` from now on (saved at once). ``OSError`` when the store cannot be
        written: then they are trusted for this run only."""
        new = {item.key for item in items}
        self.keys.update(new)
        self.pending = [p for p in self.pending if p.key not in new]
        from agent_tui.core.tools.builtin.atomic import atomic_write

        with _lock:
            everything = self._read_all()
            everything[str(self.workspace)] = sorted(
                set(everything.get(str(self.workspace), [])) | self.keys
            )
            self.store.parent.mkdir(parents=True, exist_ok=True)
            data = {"version": 1, "workspaces": everything}
            atomic_write(self.store, (json.dumps(data, indent=1) + "\n").encode("utf-8"))

    def forget(self) -> None:
        """Trust nothing of this workspace any more (``agent-tui trust --revoke``)."""
        from agent_tui.core.tools.builtin.atomic import atomic_write

        self._keys = set()
        with _lock:
            everything = self._read_all()
            everything.pop(str(self.workspace), None)
            if self.store.exists():
                data = {"version": 1, "workspaces": everything}
                atomic_write(self.store, (json.dumps(data, indent=1) + "\n").encode("utf-8"))


def untrusted_warning(items: Iterable[TrustItem]) -> str:
    """What was left off because it is not trusted, and how to review it (headless runs)."""
    listed = "; ".join(item.describe() for item in items)
    return (
        f"not trusted, left off: {listed} — these come with the project; review and trust "
        "them with `agent-tui trust` (or in the TUI)"
    )
