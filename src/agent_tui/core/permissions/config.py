"""Rules from settings files, and "always allow" written back to the local project file.

Sections look like ``{"permissions": {"allow": [...], "ask": [...], "deny": [...],
"defaultMode": "default"}}``. Rules from every file are combined (a deny anywhere wins); the
mode comes from the most specific file that sets one: ``.agent-tui/settings.local.json``
(personal), then ``.agent-tui/settings.json`` (shared with the project), then the user's
``settings.json``.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.permissions.modes import Mode, parse_mode
from agent_tui.core.permissions.pipeline import RuleSet
from agent_tui.core.permissions.rules import Rule, RuleError
from agent_tui.core.sandbox.git_exclude import exclude
from agent_tui.core.settings import (
    LOCAL_SETTINGS_FILE,
    PROJECT_DIR,
    SettingsFileError,
    local_settings_path,
    project_settings_path,
    read_json_object,
    settings_paths,
    update_json_object,
)
from agent_tui.core.state.trust import ProjectTrust, TrustItem

log = logging.getLogger(__name__)
LOCAL_SETTINGS = Path(PROJECT_DIR) / LOCAL_SETTINGS_FILE
LOCAL_IGNORE = f"**/{PROJECT_DIR}/{LOCAL_SETTINGS_FILE}"
"""The git ignore pattern of the local settings file (wherever the workspace is in its
repository)."""


@dataclass
class PermissionConfig:
    rules: RuleSet = field(default_factory=RuleSet)
    mode: Mode | None = None
    problems: list[str] = field(default_factory=list)


def _line_of(text: str, needle: str) -> int | None:
    index = text.find(json.dumps(needle))
    return text.count("\n", 0, index) + 1 if index >= 0 else None


def parse_section(section: Any, source: Path, raw_text: str = "") -> PermissionConfig:
    """Rules and mode from one file's ``permissions`` object; bad entries become problems."""
    config = PermissionConfig()
    if section is None:
        return config
    if not isinstance(section, dict):
        config.problems.append(f"{source}: 'permissions' must be an object")
        return config
    for kind in ("allow", "ask", "deny"):
        entries = section.get(kind, [])
        if not isinstance(entries, list):
            config.problems.append(f"{source}: permissions.{kind} must be a list of rules")
            continue
        for entry in entries:
            if not isinstance(entry, str):
                config.problems.append(f"{source}: permissions.{kind}: {entry!r} is not a string")
                continue
            try:
                getattr(config.rules, kind).append(Rule.parse(entry, source=str(source)))
            except RuleError as exc:
                line = _line_of(raw_text, entry)
                where = f"{source}:{line}" if line else str(source)
                config.problems.append(f"{where}: {exc}")
    mode = section.get("defaultMode", section.get("default_mode"))
    if mode is not None:
        try:
            config.mode = parse_mode(str(mode))
        except ValueError as exc:
            line = _line_of(raw_text, str(mode))
            config.problems.append(f"{source}:{line or '?'}: {exc}")
    return config


def merge(configs: list[PermissionConfig]) -> PermissionConfig:
    """Combine configs from least to most specific."""
    out = PermissionConfig()
    for config in configs:
        out.rules.extend(config.rules)
        out.mode = config.mode or out.mode
        out.problems.extend(config.problems)
    return out


def read_json_file(path: Path) -> tuple[dict[str, Any] | None, str, str | None]:
    """(data, raw text, problem) — ``settings.read_json_object`` with the file name in front
    and what that means for the permissions."""
    data, text, problem = read_json_object(path)
    if problem is None:
        return data, text, None
    return data, text, f"{path}: {problem}; its permission rules and mode are ignored"


LOOSER_MODES = frozenset({Mode.ACCEPT_EDITS, Mode.BYPASS})
"""Default modes that ask less than ``default``: a project file sets them only when trusted."""


def rule_item(rule: Rule, source: Path) -> TrustItem:
    return TrustItem("allow_rule", source, str(rule), str(rule), str(rule))


def gate(config: PermissionConfig, source: Path, trust: ProjectTrust) -> PermissionConfig:
    """Keep of a project file's config what tightens, and what widens only when trusted: its
    allow rules and a default mode that asks less (``core.state.trust``)."""
    kept = [rule for rule in config.rules.allow if trust.allows(rule_item(rule, source))]
    config.rules.allow = kept
    if config.mode in LOOSER_MODES:
        mode = config.mode
        if not trust.allows(TrustItem("mode", source, mode.value, mode.value, mode.value)):
            config.mode = None
    return config


def load_permission_config(
    cwd: Path,
    *,
    file_problems: bool = True,
    trust: ProjectTrust | None = None,
    before: Sequence[PermissionConfig] = (),
) -> PermissionConfig:
    """Rules and mode from every settings file of ``cwd`` (``settings.settings_paths``); of the
    project's files only what ``trust`` allows widens (default: the user's trust store).

    ``file_problems=False`` leaves out unreadable/broken files, for callers that report
    those already through ``settings.load_settings``. ``before``: configs read elsewhere
    (Claude Code's files, ``core.claude.permissions``), merged first, so a mode of ours wins.
    """
    trust = trust if trust is not None else ProjectTrust(cwd)
    project = {project_settings_path(cwd), local_settings_path(cwd)}
    configs = list(before)
    for path in settings_paths(cwd):
        data, text, problem = read_json_file(path)
        if problem:
            if file_problems:
                configs.append(PermissionConfig(problems=[problem]))
        elif data:
            config = parse_section(data.get("permissions"), path, text)
            configs.append(gate(config, path, trust) if path in project else config)
    return merge(configs)


def add_local_rules(workspace: Path, rules: list[Rule]) -> Path:
    """Append allow rules to ``.agent-tui/settings.local.json`` (atomically; other keys kept).
    The write that creates the file also adds it to the repository's git ignore
    (``info/exclude``, ``core.sandbox.git_exclude``), as Claude Code does with its local
    settings: the user's own rules are never committed by mistake.

    A malformed local file is left untouched and raises ``ValueError`` saying so.
    """
    path = workspace / LOCAL_SETTINGS
    first = not os.path.lexists(path)

    def add(data: dict[str, Any]) -> bool:
        permissions = data.setdefault("permissions", {})
        allow = permissions.setdefault("allow", [])
        for rule in rules:
            if str(rule) not in allow:
                allow.append(str(rule))
        return True

    try:
        update_json_object(path, add, within=workspace)  # never through a planted link
    except SettingsFileError as exc:
        why = f"{path}: {exc.problem} — fix it by hand; the rule was not saved"
        raise ValueError(why) from None
    if first:
        problem = exclude(workspace, LOCAL_IGNORE)
        if problem is not None:
            log.warning("%s", problem)
    return path
