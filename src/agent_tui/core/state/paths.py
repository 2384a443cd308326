"""Where agent-tui keeps things: user config and data dirs (overridable for tests)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP = "agent-tui"


_fallback: Path | None = None
"""Where this process keeps its data instead, the data dir being unwritable
(``ensure_data_dir``)."""


def data_dir() -> Path:
    """Sessions and other per-user data. ``AGENT_TUI_DATA_DIR`` overrides."""
    if _fallback is not None:
        return _fallback
    override = os.environ.get("AGENT_TUI_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir(APP))


def ensure_data_dir() -> str | None:
    """Check that the data dir can be written (made if missing). When it cannot, this process
    keeps its data (sessions, trust given now, the quarantine) in a private directory of the
    temporary dir instead, and the warning returned says which path failed, why, and where
    the data goes; None when all is well. When no place can be written, the data dir stays as
    it is: what cannot be saved is reported where it happens (the session says so)."""
    global _fallback
    wanted = data_dir()
    problem = _writable(wanted)
    if problem is None:
        return None
    import tempfile

    try:
        temporary = tempfile.gettempdir()  # one it can write in, or FileNotFoundError
    except OSError:
        temporary = None
    private = Path(temporary or "/nonexistent") / f"agent-tui-{os.getuid()}"
    instead = private / "data"
    if temporary is not None and _private_dir(private) and _writable(instead) is None:
        _fallback = instead
        return (
            f"the data dir {wanted} cannot be written ({problem}): this run keeps its session, "
            f"the trust you give and the quarantine in {instead} instead (resume the session "
            "from there with --resume PATH; set AGENT_TUI_DATA_DIR to choose the place)"
        )
    return (
        f"the data dir {wanted} cannot be written ({problem}), nor a place in the temporary "
        "directory: nothing of this run is saved (the session says what is lost when it ends)"
    )


def _writable(directory: Path) -> str | None:
    """None when files can be made in ``directory`` (made if missing), else why not."""
    import tempfile

    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".probe-", dir=directory)
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def _private_dir(path: Path) -> bool:
    """``path`` is (or is made) a real directory of this user, closed to others: a shared
    temporary dir must not hand our data to a directory another user planted."""
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return False
    import stat

    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def config_dir() -> Path:
    """User settings. ``AGENT_TUI_CONFIG_DIR`` overrides."""
    override = os.environ.get("AGENT_TUI_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir(APP))


def user_claude_dir() -> Path:
    """Claude Code's user directory (its ``settings.json``, ``CLAUDE.md``, commands, skills):
    ``$CLAUDE_CONFIG_DIR`` when set (Claude Code's own override), else ``~/.claude``."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return Path(os.path.expanduser(configured)) if configured else Path.home() / ".claude"


def claude_home(home: Path | None) -> Path | None:
    """Claude Code's user directory for a caller that was given ``home`` (None: no home):
    ``$CLAUDE_CONFIG_DIR`` when set, as Claude Code reads its commands, agents and skills
    there too; else ``home/.claude``."""
    if os.environ.get("CLAUDE_CONFIG_DIR", "").strip():
        return user_claude_dir()
    return home / ".claude" if home is not None else None


@dataclass(frozen=True)
class Location:
    """A folder of extension files (commands, skills) and where it comes from: ``project``
    (``.agent-tui/``), ``claude`` (``.claude/``), ``user`` (the config dir) or ``~/.claude``."""

    path: Path
    source: str


def extension_dirs(kind: str, cwd: Path, config: Path, home: Path | None) -> list[Location]:
    """The folders named ``kind`` (``commands``, ``skills``) of the project, the user and
    Claude Code's user directory (``claude_home``), strongest first."""
    found = [
        Location(cwd / ".agent-tui" / kind, "project"),
        Location(cwd / ".claude" / kind, "claude"),
        Location(config / kind, "user"),
    ]
    claude = claude_home(home)
    if claude is not None:
        found.append(Location(claude / kind, "~/.claude"))
    return found


def cache_dir() -> Path:
    """Things kept to go faster, rebuilt when lost (the MCP tool caches). ``AGENT_TUI_CACHE_DIR``
    overrides; else ``<data dir>/cache`` when ``AGENT_TUI_DATA_DIR`` is set (one override moves
    all of agent-tui's state: tests, portable installs), else the platform's user cache dir."""
    override = os.environ.get("AGENT_TUI_CACHE_DIR")
    if override:
        return Path(override)
    if os.environ.get("AGENT_TUI_DATA_DIR"):
        return data_dir() / "cache"
    return Path(platformdirs.user_cache_dir(APP))


def log_dir() -> Path:
    """The log file's directory (``core.state.logfile``). ``AGENT_TUI_LOG_DIR`` overrides; else
    ``<data dir>/log`` when ``AGENT_TUI_DATA_DIR`` is set (one override moves all of
    agent-tui's state), else the platform's user log dir (``~/.local/state/agent-tui/log``)."""
    override = os.environ.get("AGENT_TUI_LOG_DIR")
    if override:
        return Path(override)
    if os.environ.get("AGENT_TUI_DATA_DIR"):
        return data_dir() / "log"
    return Path(platformdirs.user_log_dir(APP))
