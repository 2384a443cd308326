"""What the rules of one call are matched against: a shell command's analysis, a resolved
path, or nothing (MCP tools: their rules match by tool name)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the shell analysis is imported by the first command judged (issue 45)
    from agent_tui.core.permissions.shell import ShellAnalysis
    from agent_tui.core.tools.base import Tool


class SubjectError(ValueError):
    """The argument cannot be judged (a path the OS cannot represent…)."""


@dataclass(frozen=True)
class Subject:
    kind: str  # "command", "path", "domain" or "none"
    command: str = ""
    analysis: ShellAnalysis | None = None
    path: Path | None = None
    host: str = ""
    """The host of a URL (``domain`` rules), normalised (``domains.normal_host``)."""
    named: Path | None = None
    """The path as written (absolute, links not followed): deny and ask rules match the names
    it goes by on the way to ``path`` too (``link_names``)."""


def resolve_path(raw: str, workspace: Path) -> Path:
    """``raw`` resolved as the file tools resolve it: ``~`` expanded, relative to the
    workspace, ``..`` and symlinks followed."""
    if "\0" in raw:
        raise SubjectError("the path contains a NUL byte")
    try:
        target = Path(raw).expanduser()
        if not target.is_absolute():
            target = workspace / target
        return Path(os.path.realpath(target))
    except (ValueError, OSError, RuntimeError) as exc:
        raise SubjectError(f"the path {raw[:200]!r} cannot be resolved ({exc})") from None


def _as_written(raw: str, workspace: Path) -> Path | None:
    try:
        target = Path(raw).expanduser()
    except RuntimeError:  # ~user that does not exist: resolve_path said so already
        return None
    return target if target.is_absolute() else workspace / target


def subject_of(tool: Tool[Any], arguments: dict[str, Any], workspace: Path) -> Subject:
    field_name = tool.meta.rule_subject
    value = arguments.get(field_name) if field_name else None
    if tool.meta.rule_kind == "command":
        if not isinstance(value, str):
            raise SubjectError(f"{field_name} must be a string to be judged")
        from agent_tui.core.permissions.shell import analyse

        return Subject("command", command=value, analysis=analyse(value))
    if tool.meta.rule_kind == "path":
        raw = value if isinstance(value, str) and value else "."
        if tool.meta.rule_path is not None:  # glob: its pattern's leading directories
            raw = tool.meta.rule_path(arguments) or raw
        return Subject("path", path=resolve_path(raw, workspace), named=_as_written(raw, workspace))
    if tool.meta.rule_kind == "domain":
        from agent_tui.core.permissions.domains import host_of

        if not isinstance(value, str):
            raise SubjectError(f"{field_name} must be a string to be judged")
        try:
            return Subject("domain", host=host_of(value))
        except ValueError as exc:
            raise SubjectError(str(exc)) from None
    return Subject("none")
