"""The tool lists of lazy MCP servers, kept from their last successful connect.

A lazy server (``"start": "lazy"``: ``core.mcp.client.start_mode``) is not started at launch
when its cached tool list is known and all its tools are deferred; that list is registered
instead, so ``search_tool`` finds its tools, and the server starts on the first call of one. The
list is kept per *config hash*: the SHA-256 of what defines the server — transport, command,
args, env, working directory (the project's, for a stdio server without its own ``cwd``:
relative arguments resolve from it), URL and headers. A change to any of them is a cache miss:
the server starts at launch as an eager one does and its list is saved again.

One file per hash, ``<cache dir>/mcp-tools/<hash>.json`` (``paths.cache_dir``), written
atomically (a temporary file in the same directory, then ``os.replace``) with mode 0600: env
values and headers are not in it, but the tool list of a private server may say something of
it. A file that cannot be read or is not what this module writes is ignored (``CacheProblem``:
the caller warns and starts the server, which rewrites it).

Nothing here imports the SDK: a cached tool is read back as a ``CachedTool``, which has the
attributes ``adapter.build_tool`` reads of an ``mcp.types.Tool``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agent_tui.core.mcp.config.spec import ServerSpec
from agent_tui.core.state.nofollow import write_state
from agent_tui.core.state.paths import cache_dir

VERSION = 1
FOLDER = "mcp-tools"
MAX_BYTES = 8 * 1024 * 1024
"""A cache file larger than this is not read (a real tool list is a few hundred kB at most)."""


def config_hash(spec: ServerSpec, cwd: Path) -> str:
    """What defines ``spec``'s server, hashed: the same hash means the same tools."""
    if spec.transport == "http":
        what: dict[str, Any] = {"transport": "http", "url": spec.url, "headers": spec.headers}
    else:
        what = {
            "transport": "stdio",
            "command": spec.command,
            "args": spec.args,
            "env": spec.env,
            "cwd": spec.cwd or str(cwd),
        }
    text = json.dumps(what, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_root() -> Path:
    return cache_dir() / FOLDER


@dataclass(frozen=True)
class CachedTool:
    """A tool as the server listed it (its ``tools/list`` entry, by the wire's names), with the
    attributes of an ``mcp.types.Tool`` that the adapter reads."""

    raw: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.raw["name"])

    @property
    def title(self) -> str | None:
        value = self.raw.get("title")
        return value if isinstance(value, str) else None

    @property
    def description(self) -> str | None:
        value = self.raw.get("description")
        return value if isinstance(value, str) else None

    @property
    def input_schema(self) -> Any:
        return self.raw.get("inputSchema")

    @property
    def annotations(self) -> Any:
        notes = self.raw.get("annotations")
        if not isinstance(notes, dict):
            return None
        return SimpleNamespace(
            read_only_hint=notes.get("readOnlyHint"),
            destructive_hint=notes.get("destructiveHint"),
            title=notes.get("title"),
        )

    @property
    def execution(self) -> Any:
        execution = self.raw.get("execution")
        if not isinstance(execution, dict):
            return None
        return SimpleNamespace(task_support=execution.get("taskSupport"))

    def model_dump_json(self) -> str:
        """What identifies this version of the tool (the manager's change key)."""
        return json.dumps(self.raw, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class CachedServer:
    """What was kept of a server at its last successful connect."""

    tools: tuple[CachedTool, ...]
    resources: bool = False
    """It had the resources capability (an ``@server:`` mention may start it)."""
    saved_at: str = ""


@dataclass(frozen=True)
class CacheProblem:
    """A cache file that exists but cannot be used (it is ignored)."""

    path: Path
    reason: str


@dataclass
class ToolCache:
    root: Path = field(default_factory=cache_root)

    def path(self, digest: str) -> Path:
        return self.root / f"{digest}.json"

    def load(self, digest: str) -> CachedServer | CacheProblem | None:
        """The cached server of ``digest``; None when there is none (a miss), a
        ``CacheProblem`` when its file is unreadable or not a cache file. Blocking (small)."""
        path = self.path(digest)
        try:
            with path.open("rb") as file:
                data = file.read(MAX_BYTES + 1)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return CacheProblem(path, f"cannot be read ({exc.strerror or exc})")
        if len(data) > MAX_BYTES:
            return CacheProblem(path, f"is larger than {MAX_BYTES // (1024 * 1024)} MB")
        try:
            raw = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return CacheProblem(path, f"is not valid JSON ({exc})")
        return _parse(path, raw, digest)

    def save(self, digest: str, server: str, tools: list[Any], *, resources: bool) -> Path:
        """Write the tool list of ``server`` (``mcp.types.Tool`` or ``CachedTool`` objects)
        atomically, mode 0600. Blocking: call it from a thread. ``OSError`` on failure (the
        old file, if any, stays whole)."""
        payload = {
            "version": VERSION,
            "hash": digest,
            "server": server,
            "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "resources": resources,
            "tools": [wire_form(tool) for tool in tools],
        }
        data = json.dumps(payload, ensure_ascii=False, indent=1).encode("utf-8")
        path = self.path(digest)
        write_state(path, cache_dir(), data)  # 0600, no link below the cache dir followed
        return path


def wire_form(tool: Any) -> dict[str, Any]:
    """A tool's ``tools/list`` entry (camelCase, no nulls)."""
    if isinstance(tool, CachedTool):
        return dict(tool.raw)
    dumped: dict[str, Any] = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def same_tools(cached: CachedServer, tools: list[Any], resources: bool) -> bool:
    """Whether saving ``tools`` would change nothing (then the file is not rewritten)."""
    return cached.resources == resources and [t.raw for t in cached.tools] == [
        wire_form(t) for t in tools
    ]


def _parse(path: Path, raw: Any, digest: str) -> CachedServer | CacheProblem:
    if not isinstance(raw, dict):
        return CacheProblem(path, "does not hold a JSON object")
    if raw.get("version") != VERSION:
        return CacheProblem(path, f"has version {raw.get('version')!r}, not {VERSION}")
    if raw.get("hash") != digest:
        return CacheProblem(path, "is for another configuration (its hash differs)")
    tools = raw.get("tools")
    if not isinstance(tools, list):
        return CacheProblem(path, '"tools" is not a list')
    found: list[CachedTool] = []
    for i, entry in enumerate(tools):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            return CacheProblem(path, f"tool {i} has no name")
        if not entry["name"]:
            return CacheProblem(path, f"tool {i} has an empty name")
        found.append(CachedTool(entry))
    saved = raw.get("saved_at")
    return CachedServer(
        tuple(found), bool(raw.get("resources")), saved if isinstance(saved, str) else ""
    )


__all__ = [
    "CacheProblem",
    "CachedServer",
    "CachedTool",
    "ToolCache",
    "config_hash",
    "same_tools",
]
