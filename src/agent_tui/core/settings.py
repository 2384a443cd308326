"""Settings: the user's ``settings.json``, then the project's ``.agent-tui/settings.json``, then
the personal ``.agent-tui/settings.local.json``; a more specific file wins key by key.

The user file lives in the config dir (``paths.config_dir()``). Objects merge recursively, any
other value replaces. Each top-level key is a *section* with its own pydantic model, registered
in ``SECTIONS``; a later feature adds its section there (``disclosure``, …) and nothing else
changes. Sections in ``EXTERNAL`` are read by their own package (``permissions`` combines
rules across files, deny anywhere winning: ``core.permissions.config``; ``mcp`` holds the MCP
servers turned off in a project: ``core.mcp.client.disabled``; ``hooks`` add up across files,
each file's trusted on its own: ``core.hooks``) and only skipped here.

A broken file never stops the app: the problem is reported with the file name and what is
wrong, the broken part is ignored, and the rest (or the defaults) apply. ``load_settings``
returns the problems next to the settings so every front end can show them.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from agent_tui.core.budget.config import BudgetSettings
from agent_tui.core.empty import empty_list
from agent_tui.core.sandbox import SandboxSettings
from agent_tui.core.schema_errors import format_validation_error
from agent_tui.core.state.nofollow import LinkRefused, find_link, split_below, write_below
from agent_tui.core.state.paths import config_dir
from agent_tui.core.tools.config import ShellSettings

IGNORED_FILE = "the whole file is ignored: the other settings files or the defaults apply"
"""What loading does with a settings file it cannot read (after the reason)."""
SETTINGS_FILE = "settings.json"
LOCAL_SETTINGS_FILE = "settings.local.json"
PROJECT_DIR = ".agent-tui"


_DEFERRED = re.compile(r"^(off|auto:\d+)$")
DEFAULT_THRESHOLD = 10


class DisclosureSettings(BaseModel):
    """Which tools the model sees every turn (direct) and which it finds with search_tool."""

    model_config = ConfigDict(extra="forbid")

    deferred: str = Field(default=f"auto:{DEFAULT_THRESHOLD}")
    """``auto:N``: MCP tools are deferred when there are more than N tools in all (``auto:0``
    always defers them); ``off``: every tool is direct."""
    promote: list[str] = Field(default_factory=empty_list)
    """Tools (names or ``mcp__server__*``) that are direct from the first turn of a session."""
    always_load: list[str] = Field(default_factory=empty_list)
    """MCP servers whose tools are always direct."""
    defer_builtins: bool = True
    """While MCP tools are deferred, so are the built-ins most turns never call (``web_fetch``,
    ``task``, ``update_plan``); false keeps them direct (``promote`` keeps one direct)."""

    @field_validator("deferred")
    @classmethod
    def _check(cls, value: str) -> str:
        value = value.strip().lower()
        if not _DEFERRED.match(value):
            raise ValueError("use 'auto:N' (N a whole number, e.g. auto:10) or 'off'")
        return value

    @property
    def threshold(self) -> int | None:
        """None when disclosure is off."""
        return None if self.deferred == "off" else int(self.deferred.split(":", 1)[1])


class ExecutorSettings(BaseModel):
    """The tool executor (``core.executor``): how many concurrency-safe calls run at once."""

    model_config = ConfigDict(extra="forbid")

    max_parallel: int = Field(default=10, ge=1, le=100)
    """Largest parallel batch of consecutive concurrency-safe calls (read-only tools)."""


Notify = Literal["auto", "osc9", "osc777", "bell", "off"]


class UISettings(BaseModel):
    """The TUI: its theme, which tool cards open by themselves when their call finishes,
    when a message typed during a turn is sent, and how it calls you back to the terminal."""

    model_config = ConfigDict(extra="forbid")

    theme: str | None = None
    """The theme's name (shipped: agent-dark, agent-light, agent-contrast; or a user theme in
    ``<config dir>/themes/``). Chosen in the TUI, it is saved to the user settings."""
    auto_expand: Literal["never", "always", "failures", "success"] = "failures"
    """Cards that open when their call finishes: none, all, failed ones, successful ones."""
    type_ahead: Literal["after_turn", "next_tool_boundary"] = "after_turn"
    """A message sent while a turn runs is queued; ``after_turn`` sends it as the next turn
    when this one ends, ``next_tool_boundary`` adds it to this turn after the results of the
    calls in flight, before the next model request (``core.agent.inbox``)."""
    notify: Notify = "auto"
    """When a turn ends or a call waits for approval while the terminal is not focused: a
    desktop notification by OSC 9 or OSC 777, the bell, or nothing; ``auto`` picks by the
    terminal (the bell inside tmux, and where none is known). Needs focus reporting."""
    title: bool = True
    """Set the terminal's title (``agent-tui · project``), marked ``●`` while it waits."""


class ModelSettings(BaseModel):
    """What the model can take, when the built-in table (``core.conversation.model_limits``) is
    wrong or does not know it (a local server with its own ``num_ctx``)."""

    model_config = ConfigDict(extra="forbid")

    context_window: int | None = Field(default=None, ge=1_024, le=100_000_000)
    """Tokens of context the model has (input and output)."""
    max_output_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    """The most tokens one response may produce."""
    vision: bool | None = None
    """The model takes images (None: as its family is known, ``core.images.vision``)."""
    idle_timeout: float = Field(default=300.0, gt=0, le=86_400)
    """Seconds a response may go without content (text or a tool call) before it is given up:
    a server that sends only keep-alives cannot hold a turn forever."""
    max_retry_wait: float = Field(default=300.0, ge=0, le=86_400)
    """The longest ``Retry-After`` a request waits for before its retry (a countdown shows it;
    Esc stops it); a server asking for more ends the request with an error that says so."""
    aliases: dict[str, str] = Field(default_factory=dict)
    """Model names a subagent or command file may give, and the provider spec each runs on:
    Claude Code's ``sonnet``, ``opus``, ``haiku`` (``{"haiku": "anthropic:claude-haiku-4-5"}``).
    Unmapped, such an agent (or a command's turn) runs on the session's model, said."""

    @field_validator("aliases")
    @classmethod
    def _specs(cls, value: dict[str, str]) -> dict[str, str]:
        for name, spec in value.items():
            kind = spec.strip().partition(":")[0].strip().lower()
            if kind == "script":
                raise ValueError(
                    f"aliases.{name}: {spec!r} names a script, which an alias may not (a "
                    "settings file would decide every answer of the agents naming it)"
                )
            if ":" not in spec and kind != "demo":
                raise ValueError(
                    f"aliases.{name}: {spec!r} is not a provider spec (openai:MODEL, "
                    "anthropic:MODEL)"
                )
        return {name.strip().lower(): spec.strip() for name, spec in value.items()}

    @model_validator(mode="after")
    def _fits(self) -> ModelSettings:
        window, output = self.context_window, self.max_output_tokens
        if window is not None and output is not None and output >= window:
            raise ValueError(
                f"max_output_tokens ({output}) must be smaller than context_window ({window})"
            )
        return self


class CompactionSettings(BaseModel):
    """When the conversation is folded into a summary by itself
    (``core.conversation.compaction``)."""

    model_config = ConfigDict(extra="forbid")

    threshold: float | Literal["off"] = 0.8
    """The share of the context window at which a turn compacts before its next request
    (0.5–0.95), or ``"off"``: only ``/compact`` and an overflow error compact."""
    keep_turns: int = Field(default=2, ge=1, le=20)
    """Turns kept word for word after the summary."""

    @field_validator("threshold")
    @classmethod
    def _share(cls, value: float | str) -> float | str:
        if isinstance(value, float | int) and not 0.5 <= value <= 0.95:
            raise ValueError(
                f'threshold must be between 0.5 and 0.95 of the window, or "off" (got {value})'
            )
        return value


class Settings(BaseModel):
    """All settings. Every section has defaults, so an empty file is a valid file."""

    model_config = ConfigDict(extra="forbid")

    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    executor: ExecutorSettings = Field(default_factory=ExecutorSettings)
    ui: UISettings = Field(default_factory=UISettings)
    disclosure: DisclosureSettings = Field(default_factory=DisclosureSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    shell: ShellSettings = Field(default_factory=ShellSettings)
    model: ModelSettings = Field(default_factory=ModelSettings)
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)


SECTIONS: dict[str, type[BaseModel]] = {
    "disclosure": DisclosureSettings,
    "budget": BudgetSettings,
    "executor": ExecutorSettings,
    "ui": UISettings,
    "sandbox": SandboxSettings,
    "shell": ShellSettings,
    "model": ModelSettings,
    "compaction": CompactionSettings,
}
"""Top-level keys and their models. Keys starting with ``$`` (``$schema``) are ignored."""
USER_ONLY: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "sandbox": SandboxSettings.loosening,
    "shell": ShellSettings.user_only,
    "budget": BudgetSettings.escaping,
}
"""Sections with values only the user's own settings file may set (a repository ships its
project files): for each, the keys of a section object that it may not set elsewhere."""
USER_ONLY_WHY: dict[str, str] = {
    "budget": "may only name a spill directory inside the workspace (no absolute path, ~ or "
    "'..': the agent would write there) and may only keep spills longer than the defaults",
}
"""Why a project may not set them, by section (default: it may only make it stricter)."""
FAIL_CLOSED: dict[str, dict[str, Any]] = {"sandbox": {"mode": "required"}}
"""What a section becomes when it is invalid, for the sections whose defaults are looser than
what the user may have meant: a mistyped ``"mode": "requird"`` must not leave commands
unconfined on a machine without the sandbox (the default ``auto`` would run them so)."""
EXTERNAL = frozenset({"permissions", "mcp", "hooks"})
"""Sections another package reads from the same files (not validated or merged here)."""


@dataclass(frozen=True)
class SettingsProblem:
    """Something wrong in a settings file; ``level="error"`` means a part was ignored."""

    path: Path
    message: str
    level: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass
class LoadedSettings:
    settings: Settings
    sources: list[Path] = field(default_factory=list)
    problems: list[SettingsProblem] = field(default_factory=list)

    def messages(self) -> list[str]:
        """One line per problem, ready to print or show."""
        return [f"settings {p.level}: {p}" for p in self.problems]


def user_settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


def project_settings_path(cwd: Path) -> Path:
    return cwd / PROJECT_DIR / SETTINGS_FILE


def local_settings_path(cwd: Path) -> Path:
    return cwd / PROJECT_DIR / LOCAL_SETTINGS_FILE


def settings_paths(cwd: Path) -> list[Path]:
    """The settings files of ``cwd``, least specific first."""
    return [user_settings_path(), project_settings_path(cwd), local_settings_path(cwd)]


def load_settings(cwd: Path, *, paths: list[Path] | None = None) -> LoadedSettings:
    """Read, check and merge the settings files (``settings_paths``; later ones win)."""
    problems: list[SettingsProblem] = []
    sources: list[Path] = []
    merged: dict[str, Any] = {}
    origin: dict[str, list[Path]] = {}
    for path in paths if paths is not None else settings_paths(cwd):
        sections = _read_file(path, problems)
        if sections is None:
            continue
        sources.append(path)
        if path != user_settings_path():
            _drop_user_only(path, sections, problems)
        for name, value in sections.items():
            merged[name] = _merge(merged.get(name), value)
            origin.setdefault(name, []).append(path)
    values: dict[str, Any] = {}
    for name, value in merged.items():
        try:
            values[name] = SECTIONS[name].model_validate(value)
        except ValidationError as exc:  # each file was valid alone; together they are not
            files = " and ".join(str(p) for p in origin[name])
            instead = _instead(name)
            problems.append(
                SettingsProblem(
                    origin[name][-1],
                    f"the {name!r} settings of {files} are invalid together; using "
                    f"{instead}:\n{format_validation_error(exc, (name,))}",
                )
            )
            if name in FAIL_CLOSED:
                values[name] = SECTIONS[name].model_validate(FAIL_CLOSED[name])
    return LoadedSettings(Settings(**values), sources, problems)


def read_json_object(path: Path) -> tuple[dict[str, Any] | None, str, str | None]:
    """(object, raw text, problem) of one settings file. A missing file is no problem (None,
    "", None); an unreadable or broken one returns None and says what is wrong with it, with
    line and column (``is not valid JSON: … at line 3 column 5``) — not what follows from that:
    each caller says what it does instead."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, "", None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return None, "", f"cannot be read ({reason})"
    if not text.strip():
        return {}, text, None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, text, f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    if not isinstance(raw, dict):
        return (
            None,
            text,
            f'must hold a JSON object like {{"budget": {{...}}}}, not {type(raw).__name__}',
        )
    return raw, text, None


class SettingsFileError(ValueError):
    """A settings file that cannot be changed safely (unreadable, or not a JSON object): it is
    left as it is. ``problem`` says what is wrong with it (``is not valid JSON: … at line 1
    column 8``), without the file name."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path} {problem}")
        self.path = path
        self.problem = problem


def update_json_object(
    path: Path, change: Callable[[dict[str, Any]], bool], *, within: Path | None = None
) -> bool:
    """Change one settings file in place: read it (missing: ``{}``), let ``change`` edit the
    object and say whether it changed anything, then write it back atomically with every other
    key kept. Returns True when the file was written. A file that cannot be read or is not a
    JSON object is never overwritten (``SettingsFileError``); a failed write raises
    ``OSError`` and leaves the old file. ``within``: a project file (``path`` inside that
    directory), which a repository or a command can make a symlink — a link on the way below
    ``within`` is refused (``SettingsFileError``), never written through. Blocking."""
    if within is not None:
        return _update_within(path, change, within)
    # Imported here: importing the tools package loads every built-in tool.
    from agent_tui.core.tools.builtin.atomic import atomic_write

    data, _, problem = read_json_object(path)
    if problem is not None:
        raise SettingsFileError(path, problem)
    data = dict(data or {})
    if not change(data):
        return False
    atomic_write(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return True


def _update_within(path: Path, change: Callable[[dict[str, Any]], bool], within: Path) -> bool:
    """``update_json_object`` for a file below ``within``, nothing below it followed."""
    anchor, parts = split_below(path, within)
    if anchor != Path(os.path.normpath(within)) or not parts:
        raise SettingsFileError(path, f"is not inside {within}")
    link = find_link(anchor, parts)
    if link is not None:
        raise SettingsFileError(path, _through_link(link))
    data, _, problem = read_json_object(path)
    if problem is not None:
        raise SettingsFileError(path, problem)
    data = dict(data or {})
    if not change(data):
        return False
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        write_below(anchor, Path(*parts), text.encode("utf-8"), mode=0o666, keep_mode=True)
    except LinkRefused as swapped:  # a link swapped in since the check
        raise SettingsFileError(path, _through_link(swapped)) from None
    return True


def _through_link(link: LinkRefused) -> str:
    return (
        f"is reached through a symbolic link ({link.link} -> {link.target}): agent-tui does "
        "not write a project's files through a link, which could point anywhere (at a file "
        f"your shell runs, say); it was not changed. Remove the link (rm {link.link}) and "
        "try again"
    )


def _read_file(path: Path, problems: list[SettingsProblem]) -> dict[str, Any] | None:
    """The valid sections of one file; problems are appended. None when nothing applies."""
    raw, _, problem = read_json_object(path)
    if problem is not None:
        problems.append(SettingsProblem(path, f"{problem}; {IGNORED_FILE}"))
    if raw is None:
        return None
    sections: dict[str, Any] = {}
    for name, value in raw.items():
        if name.startswith("$") or name in EXTERNAL:
            continue
        model = SECTIONS.get(name)
        if model is None:
            known = ", ".join(sorted({*SECTIONS, *EXTERNAL}))
            problems.append(
                SettingsProblem(
                    path, f"unknown section {name!r} is ignored (known: {known})", "warning"
                )
            )
            continue
        try:
            model.model_validate(value)
        except ValidationError as exc:
            problems.append(SettingsProblem(path, _ignored_section(name, value, exc)))
            if name in FAIL_CLOSED:
                sections[name] = dict(FAIL_CLOSED[name])
            continue
        sections[name] = value
    return sections


def _drop_user_only(path: Path, sections: dict[str, Any], problems: list[SettingsProblem]) -> None:
    """Remove what only the user's settings file may set from a project file's sections."""
    for name, keys_of in USER_ONLY.items():
        value = sections.get(name)
        if not isinstance(value, dict):
            continue
        keys = keys_of(value)
        if not keys:
            continue
        sections[name] = {k: v for k, v in value.items() if k not in keys}
        shown = ", ".join(f"{name}.{k}" for k in keys)
        problems.append(
            SettingsProblem(
                path,
                f"{shown} ignored: a project's settings (which a repository can ship) "
                f"{USER_ONLY_WHY.get(name, f'may only make the {name} stricter')}; set "
                f"{'it' if len(keys) == 1 else 'them'} in your user settings "
                f"({user_settings_path()}) to {'loosen it' if name == 'sandbox' else 'do so'}",
                "warning",
            )
        )


def _ignored_section(name: str, value: Any, error: ValidationError) -> str:
    """What is wrong with section ``name`` of a file, field by field (``$.ui.auto_expand``),
    and what is used instead — naming the keys that were fine but are ignored with it."""
    wrong = {str(e["loc"][0]) for e in error.errors() if e.get("loc")}
    kept = sorted(k for k in value if k not in wrong) if isinstance(value, dict) else []
    lost = f", its valid keys too ({', '.join(kept)})" if kept else ""
    if name in FAIL_CLOSED:
        return (
            f"invalid {name!r} section, ignored{lost}: {_instead(name)} until it is "
            f"fixed:\n" + format_validation_error(error, (name,))
        )
    return (
        f"invalid {name!r} section, ignored{lost}: the other settings files or the defaults "
        f"apply for {name!r}:\n" + format_validation_error(error, (name,))
    )


def _instead(name: str) -> str:
    """What an invalid section ``name`` is replaced with, in words."""
    strict = FAIL_CLOSED.get(name)
    if strict is None:
        return f"the defaults for {name!r}"
    said = ", ".join(f"{name}.{k} = {v!r}" for k, v in strict.items())
    return f"{said} (a broken {name} setting never loosens it)"


def _merge(base: Any, override: Any) -> Any:
    """``override`` on top of ``base``: objects merge key by key, anything else replaces."""
    if isinstance(base, dict) and isinstance(override, dict):
        out = dict(base)
        for key, value in override.items():
            out[key] = _merge(base.get(key), value)
        return out
    return override
