"""The ``permissions`` of Claude Code's settings files, as our permission config.

Each file's ``allow`` / ``ask`` / ``deny`` strings go through ``core.claude.rules``;
``defaultMode`` maps where we have the mode (``default``, ``acceptEdits``, ``plan``,
``bypassPermissions``); ``additionalDirectories`` become ``read_file`` allow rules for those
directories. A project file (``.claude/settings.json``, ``.claude/settings.local.json``) is
gated like our own project files (``core.permissions.config.gate``): its allow rules and a
mode that asks less wait for the user's trust; its deny and ask rules apply at once.

``permission_config`` combines these with our own files, ours after Claude Code's: rules add
up (a deny anywhere wins) and a mode set in an ``.agent-tui`` file wins over one set in a
``.claude`` file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent_tui.core.claude import names
from agent_tui.core.claude.rules import Kind, translate
from agent_tui.core.claude.settings import ClaudeSettingsFile, claude_settings, unmapped
from agent_tui.core.permissions.config import PermissionConfig, gate, load_permission_config
from agent_tui.core.permissions.modes import Mode
from agent_tui.core.permissions.rules import Rule, RuleError, split_rule_list
from agent_tui.core.state.trust import ProjectTrust

MODES = {
    "default": Mode.DEFAULT,
    "acceptEdits": Mode.ACCEPT_EDITS,
    "plan": Mode.PLAN,
    "bypassPermissions": Mode.BYPASS,
}
"""Claude Code's permission modes that have one here (``dontAsk`` and ``auto`` do not)."""


def parse_claude_section(section: Any, source: Path, root: Path) -> PermissionConfig:
    """Our rules and mode for one Claude Code file's ``permissions``; what does not
    translate exactly is a problem line."""
    config = PermissionConfig()
    if section is None:
        return config
    if not isinstance(section, dict):
        config.problems.append(f"{source}: 'permissions' must be an object; ignored")
        return config
    for kind in ("allow", "ask", "deny"):
        entries = section.get(kind, [])
        if not isinstance(entries, list):
            config.problems.append(f"{source}: permissions.{kind} must be a list; ignored")
            continue
        for entry in entries:
            if not isinstance(entry, str):
                config.problems.append(f"{source}: permissions.{kind}: {entry!r} is not a string")
                continue
            done = translate(entry, kind, root=root, source=str(source))
            getattr(config.rules, kind).extend(done.rules)
            if done.note is not None:
                config.problems.append(f"{source}: permissions.{kind}: {done.note}")
    mode = section.get("defaultMode")
    if mode is not None:
        if isinstance(mode, str) and mode in MODES:
            config.mode = MODES[mode]
        else:
            config.problems.append(
                f"{source}: permissions.defaultMode {mode!r} has no equivalent here (known: "
                f"{', '.join(MODES)}); ignored"
            )
    directories = section.get("additionalDirectories", [])
    for directory in directories if isinstance(directories, list) else [directories]:
        rule = _directory_rule(directory, root, str(source))
        if rule is None:
            config.problems.append(
                f"{source}: permissions.additionalDirectories: {directory!r} is not a "
                "directory path; ignored"
            )
        else:
            config.rules.allow.append(rule)
    return config


def _directory_rule(directory: Any, root: Path, source: str) -> Rule | None:
    """``read_file(//abs/dir/**)`` for one additional directory (reads there run without
    asking, as in Claude Code; writes there still ask)."""
    if not isinstance(directory, str) or not directory.strip():
        return None
    path = os.path.normpath(root / os.path.expanduser(directory.strip()))
    if path == "/" or any(c in path for c in "*?[\\"):
        return None  # the whole disk, or a glob: never widened by a guess
    try:
        return Rule.parse(f"read_file(/{path}/**)", source=source)
    except RuleError:
        return None


def claude_configs(
    cwd: Path, trust: ProjectTrust, *, file_problems: bool = True
) -> list[PermissionConfig]:
    """One config per Claude Code settings file of ``cwd`` (least specific first), each
    project file's gated by ``trust``, with a line for every key nothing here reads."""
    configs = []
    for file in claude_settings(cwd):
        configs.append(_config_of(file, cwd, trust, file_problems))
    return configs


def _config_of(
    file: ClaudeSettingsFile, cwd: Path, trust: ProjectTrust, file_problems: bool
) -> PermissionConfig:
    if file.problem is not None or file.data is None:
        why = f"{file.path}: {file.problem}; its permission rules and mode are ignored"
        return PermissionConfig(problems=[why] if file_problems else [])
    config = parse_claude_section(file.data.get("permissions"), file.path, cwd)
    config.problems.extend(unmapped(file))
    return gate(config, file.path, trust) if file.project else config


def permission_config(
    cwd: Path, *, file_problems: bool = True, trust: ProjectTrust | None = None
) -> PermissionConfig:
    """Rules and mode of every settings file of ``cwd``, Claude Code's and ours (ours win).
    ``file_problems=False`` leaves out our own broken files (``settings.load_settings``
    reports those); a broken Claude Code file is always said (nothing else reads it)."""
    trust = trust if trust is not None else ProjectTrust(cwd)
    before = claude_configs(cwd, trust)
    config = load_permission_config(cwd, file_problems=file_problems, trust=trust, before=before)
    rename_claude_tools(config, cwd)
    return config


def claude_named(rule: Rule) -> bool:
    """Does ``rule`` name a tool by its Claude Code name (``Bash(git log:*)`` in our file)?"""
    ours = names.ours(rule.tool)
    return not names.is_mcp(rule.tool) and (
        rule.tool in names.UNMAPPED or ours not in (None, rule.tool)
    )


def rename_claude_tools(config: PermissionConfig, root: Path) -> None:
    """Rules of our files written with Claude Code's tool names (``Bash(git log:*)``) mean
    what they mean in Claude Code, said once each, instead of naming a tool that is not here."""
    for kind in ("allow", "ask", "deny"):
        rules: list[Rule] = getattr(config.rules, kind)
        kept: list[Rule] = []
        for rule in rules:
            if not claude_named(rule):
                kept.append(rule)
                continue
            done = translate(str(rule), kind, root=root, source=rule.source)
            kept.extend(done.rules)
            shown = ", ".join(map(str, done.rules)) or "nothing"
            where = f"{rule.source}: " if rule.source else ""
            config.problems.append(
                f"{where}permissions.{kind}: {str(rule)!r} uses Claude Code's tool name; read "
                f"as {shown}" + (f" ({done.note})" if done.note else "")
            )
        setattr(config.rules, kind, kept)


def command_line_rule(
    text: str, kind: Kind, root: Path, source: str
) -> tuple[list[Rule], str | None]:
    """Our rules for one rule typed on the command line (``--allow``, ``--deny``,
    ``permissions check RULE``) and, for one in Claude Code's names, the translation to show.
    A string that is no rule, or an allow that cannot be translated exactly, raises
    ``RuleError`` (the user typed it just now)."""
    rule = Rule.parse(text, source=source)
    if not claude_named(rule):
        return [rule], None
    done = translate(text, kind, root=root, source=source)
    if not done.rules and kind == "allow":
        raise RuleError(done.note or f"{text!r} cannot be translated")
    ours = ", ".join(map(str, done.rules)) or "nothing"
    shown = f"Claude Code rule {text!r} ({kind}) = {ours}"
    return list(done.rules), shown + (f" — {done.note}" if done.note else "")


def command_line_texts(
    values: Iterable[str], kind: Kind, root: Path, source: str
) -> tuple[list[str], list[str]]:
    """``--allow``/``--deny`` values with Claude Code's rule strings in ours, and the lines
    that say so. A string that does not parse is kept as typed (its error is said later); a
    Claude Code allow that cannot be translated exactly raises ``RuleError``."""
    texts: list[str] = []
    said: list[str] = []
    for value in values:
        for text in split_rule_list(value):
            try:
                Rule.parse(text)
            except RuleError:
                texts.append(text)
                continue
            rules, shown = command_line_rule(text, kind, root, source)
            texts.extend(str(rule) for rule in rules)
            if shown is not None:
                said.append(shown)
    return texts, said
