"""MCP server configuration: ``.mcp.json`` files, merged, checked, with ``${VAR}`` expansion.

The format is the common one (Claude Code, Cursor, …)::

    {"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",
                  "."], "env": {"DEBUG": "${DEBUG:-0}"}, "cwd": "tools"},
        "remote": {"type": "http", "url": "https://example.com/mcp",
                   "headers": {"Authorization": "Bearer ${TOKEN}"}}}}

Files, least specific first: the user's ``mcp.json`` in the config dir, then the project's
``.mcp.json``. Names are settled once both are read (``server_names``): servers whose names
give the same tool prefix (``ev.1`` and ``ev_1``: ``mcp__ev_1__``) are refused, and a project
server cannot take the name (or the prefix) of one of the user's own. Per server:
``disabled``, ``timeout`` (seconds per call, default 60), ``startup_timeout`` (seconds to
connect and list tools, default 15) and ``start`` (``eager`` or ``lazy``: ``client.start_mode``).
``${VAR}`` and ``${VAR:-default}`` are expanded in every string. A broken file or entry is
reported (file, server, reason) and the rest still loads; a broken entry stays in the list as
a server that cannot start, so it shows up where servers do.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_tui.core.empty import empty_list
from agent_tui.core.mcp.config.files import config_paths as config_paths
from agent_tui.core.mcp.config.files import project_config_path as project_config_path
from agent_tui.core.mcp.config.files import user_config_path as user_config_path
from agent_tui.core.mcp.config.oauth_entry import OAuthEntry, secret_warning
from agent_tui.core.mcp.config.server_names import Entry, refuse, settle
from agent_tui.core.mcp.config.spec import (
    DEFAULT_MAX_TOTAL_TIMEOUT,
    DEFAULT_STARTUP_TIMEOUT,
    DEFAULT_TIMEOUT,
    PROJECT_FILE,
    ConfigProblem,
    McpConfig,
    ServerSpec,
)
from agent_tui.core.permissions.mcp_names import name_problem
from agent_tui.core.schema_errors import format_validation_error
from agent_tui.core.state.trust import ProjectTrust, TrustItem, canonical

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_HTTP_TYPES = ("http", "streamable-http", "streamableHttp", "streamable_http")


class _Common(BaseModel):
    # built by the first configured server's validation, not at import (issue 45: the TUI
    # imports this module at every start, most sessions configure no server)
    model_config = ConfigDict(extra="ignore", defer_build=True)

    disabled: bool = False
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0, le=86_400)
    max_total_timeout: float = Field(default=DEFAULT_MAX_TOTAL_TIMEOUT, gt=0, le=86_400)
    startup_timeout: float = Field(default=DEFAULT_STARTUP_TIMEOUT, gt=0, le=3_600)
    roots: bool | None = None
    start: Literal["eager", "lazy"] | None = None


class _StdioEntry(_Common):
    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=empty_list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None


class _HttpEntry(_Common):
    type: str = "http"
    url: str = Field(min_length=1)
    headers: dict[str, str] = Field(default_factory=dict)
    oauth: OAuthEntry | Literal[False] | None = None


def load_config(
    cwd: Path,
    *,
    paths: list[Path] | None = None,
    environ: Mapping[str, str] | None = None,
    previous: McpConfig | None = None,
    trust: ProjectTrust | None = None,
) -> McpConfig:
    """Read and merge the configuration files, then settle the names (``server_names``: names
    that would share a tool prefix are refused; a project server cannot take the name of one
    of the user's own). A later file of the same origin replaces an entry whole.

    ``previous`` (a reload): a file that cannot be used now keeps the servers it had in
    ``previous`` as they were — a typo mid-edit must not stop them — and its problem says so
    (``kept``); fixing the file applies the change."""
    env = os.environ if environ is None else environ
    config = McpConfig(paths=list(paths if paths is not None else config_paths(cwd)))
    project_file = project_config_path(cwd)
    read: list[Entry] = []
    raws: dict[tuple[bool, str], Any] = {}  # valid entries just read (kept ones: none)
    usable: set[str] = set()
    for path in config.paths:
        entries, problem = _read_servers(path)
        project = path == project_file
        if problem is not None:
            old = previous.servers.items() if previous is not None else ()
            kept = {name: spec for name, spec in old if spec.source == path}
            for name, spec in kept.items():
                read.append(Entry(spec, name, path, project))
                usable.add(name)
            config.problems.append(unread_problem(path, problem, tuple(sorted(kept))))
            continue
        for name, raw in entries.items():
            spec = parse_entry(name, raw, path, env, base=cwd)
            why = name_problem(name) if name.strip() else spec.error
            if why is None:
                usable.add(name)  # its name can clash (a broken entry's too: it may be fixed)
            elif not spec.error:
                spec.error = why
            if spec.error:
                config.problems.append(ConfigProblem(path, spec.error, name))
            else:
                raws[(project, name)] = raw
            read.append(Entry(spec, name, path, project))
    chosen, refusals = settle(read, usable)
    merged = {entry.name: entry.spec for entry in chosen}
    for refusal in refusals:
        config.problems.append(
            ConfigProblem(refusal.source or project_file, refusal.message, refusal.name)
        )
        if refusal.listed and refusal.name in merged:
            merged[refusal.name] = refuse(merged[refusal.name], refusal.message)
    for entry in chosen:
        spec, raw = merged[entry.name], raws.get((entry.project, entry.name))
        if entry.project and raw is not None and not spec.error:
            gate = trust if trust is not None else ProjectTrust(cwd)
            spec.untrusted = not gate.allows(trust_item(spec, raw, entry.source or project_file))
    config.servers = dict(sorted(merged.items()))
    return config


def trust_item(spec: ServerSpec, raw: Any, path: Path) -> TrustItem:
    """What trusting this project server means: its command (or URL), and which of the user's
    environment variables it is given."""
    detail = shlex.join([spec.command, *spec.args]) if spec.transport == "stdio" else spec.url
    named = sorted(spec.env) if spec.transport == "stdio" else sorted(spec.headers)
    if named:
        detail += f" (with {'env' if spec.transport == 'stdio' else 'headers'} {', '.join(named)})"
    return TrustItem("mcp_server", path, spec.name, detail, canonical(raw))


def unread_problem(path: Path, problem: str, kept: tuple[str, ...] = ()) -> ConfigProblem:
    """The problem of a file that cannot be used, saying what became of its servers."""
    if kept:
        names = ", ".join(kept)
        what = (
            f"{'its server' if len(kept) == 1 else 'its servers'} ({names}) "
            f"{'stays' if len(kept) == 1 else 'stay'} as before this change (running or not, "
            "with the configuration they had); the change applies once the file is fixed"
        )
    else:
        what = "no server of this file is loaded"
    return ConfigProblem(path, f"{problem}; {what}", unread=True, kept=kept)


def read_file(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(the whole JSON object, problem). A missing or empty file is ``{}`` without problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return None, f"cannot be read ({reason})"
    if not text.strip():
        return {}, None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    if not isinstance(raw, dict):
        return None, f'must hold a JSON object like {{"mcpServers": {{...}}}}, not {_kind(raw)}'
    return raw, None


def _read_servers(path: Path) -> tuple[dict[str, Any], str | None]:
    """The ``mcpServers`` entries of one file, or what keeps the whole file from being used."""
    raw, problem = read_file(path)
    if problem is not None or raw is None:
        return {}, problem or "cannot be read"
    servers = raw.get("mcpServers", {})
    if not isinstance(servers, dict):
        return {}, f'"mcpServers" must be an object of servers, not {_kind(servers)}'
    return servers, None


def parse_entry(
    name: str, raw: Any, path: Path, environ: Mapping[str, str], *, base: Path
) -> ServerSpec:
    """One ``mcpServers`` entry as a ``ServerSpec`` (with ``error`` set when it is broken)."""
    spec = ServerSpec(name=name, source=path)
    if not name.strip():
        spec.error = "a server needs a non-empty name"
        return spec
    if not isinstance(raw, dict):
        spec.error = f"the entry must be an object, not {_kind(raw)}"
        return spec
    kind = raw.get("type")
    if kind in _HTTP_TYPES or (kind is None and "url" in raw):
        spec.transport = "http"  # said by ``mcp list`` and the panel, broken or not
    missing: list[str] = []
    expanded = _expand(raw, environ, missing)
    if missing:
        names = ", ".join(sorted(set(missing)))
        spec.error = (
            f"uses environment variable(s) {names}, which are not set "
            "(set them, or give a default: ${VAR:-default})"
        )
        return spec
    kind = expanded.get("type")
    is_http = kind in _HTTP_TYPES or (kind is None and "url" in expanded)
    if kind is not None and kind not in ("stdio", *_HTTP_TYPES):
        spec.error = (
            f"unsupported type {kind!r}: use 'stdio' (command, args) or 'http' (url; "
            "streamable HTTP)"
        )
        return spec
    model: type[_Common] = _HttpEntry if is_http else _StdioEntry
    try:
        entry = model.model_validate(expanded)
    except ValidationError as exc:
        spec.error = "invalid entry:\n" + format_validation_error(exc)
        return spec
    known = set(model.model_fields)
    spec.warnings = [f"unknown key {k!r} ignored" for k in sorted(expanded) if k not in known]
    spec.disabled, spec.timeout = entry.disabled, entry.timeout
    spec.max_total_timeout = entry.max_total_timeout
    spec.startup_timeout, spec.roots = entry.startup_timeout, entry.roots
    spec.start = entry.start
    if isinstance(entry, _HttpEntry):
        spec.transport, spec.url, spec.headers = "http", entry.url, dict(entry.headers)
        own_header = any(k.lower() == "authorization" for k in entry.headers)
        if entry.oauth is not False and not own_header:
            spec.oauth = entry.oauth or OAuthEntry()
        if entry.oauth and path.name == PROJECT_FILE and (warning := secret_warning(raw)):
            spec.warnings.append(warning)
    elif isinstance(entry, _StdioEntry):
        spec.command, spec.args, spec.env = entry.command, list(entry.args), dict(entry.env)
        if entry.cwd:
            cwd = Path(entry.cwd).expanduser()
            spec.cwd = str(cwd if cwd.is_absolute() else base / cwd)
    return spec


def _expand(value: Any, environ: Mapping[str, str], missing: list[str]) -> Any:
    """``${VAR}`` / ``${VAR:-default}`` in every string of ``value`` (keys included)."""
    if isinstance(value, str):

        def substitute(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            found = environ.get(name)
            if found is not None and (found or default is None):
                return found
            if default is not None:
                return default
            missing.append(name)
            return ""

        return _VAR.sub(substitute, value)
    if isinstance(value, list):
        return [_expand(item, environ, missing) for item in value]
    if isinstance(value, dict):
        return {
            _expand(k, environ, missing): _expand(v, environ, missing) for k, v in value.items()
        }
    return value


def _kind(value: Any) -> str:
    names: dict[type, str] = {dict: "an object", list: "an array", str: "a string"}
    return names.get(type(value), type(value).__name__)
