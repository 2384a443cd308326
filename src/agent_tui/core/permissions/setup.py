"""Build the session's permission pipeline from settings files and command-line flags."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.permissions.config import (
    PermissionConfig,
    add_local_rules,
    load_permission_config,
    rule_item,
)
from agent_tui.core.permissions.modes import Mode, parse_mode
from agent_tui.core.permissions.pipeline import PermissionPipeline, RuleSet
from agent_tui.core.permissions.rules import Rule, RuleError, split_rule_list
from agent_tui.core.state.trust import ProjectTrust

log = logging.getLogger(__name__)


@dataclass
class PipelineSetup:
    pipeline: PermissionPipeline
    problems: list[str] = field(default_factory=list)
    """Settings problems (reported, never fatal)."""
    saved: list[str] = field(default_factory=list)
    """Where "always allow" rules were written, or why they could not be."""


def _cli_rules(values: Iterable[str], flag: str) -> list[Rule]:
    rules = []
    for value in values:
        for text in split_rule_list(value):
            try:
                rules.append(Rule.parse(text, source=flag))
            except RuleError as exc:
                raise ValueError(f"{flag}: {exc}") from None
    return rules


def build_pipeline(
    cwd: Path,
    *,
    mode: str | None = None,
    allow: Iterable[str] = (),
    deny: Iterable[str] = (),
    persist_always: bool = True,
    trust: ProjectTrust | None = None,
    config: PermissionConfig | None = None,
) -> PipelineSetup:
    """Rules from the three settings files plus ``--allow``/``--deny``; the mode from
    ``--permission-mode``, else the most specific settings file, else ``default``.

    A bad flag raises ``ValueError`` (the user typed it just now); a bad settings file is a
    problem in the result and the rest still applies. ``config``: the rules and mode of the
    settings files when the caller read them already (with Claude Code's:
    ``core.claude.permissions.permission_config``).
    """
    trust = trust if trust is not None else ProjectTrust(cwd)
    if config is None:  # broken files are reported elsewhere
        config = load_permission_config(cwd, file_problems=False, trust=trust)
    rules = RuleSet()
    rules.extend(config.rules)
    rules.allow.extend(_cli_rules(allow, "--allow"))
    rules.deny.extend(_cli_rules(deny, "--deny"))
    chosen = parse_mode(mode) if mode else (config.mode or Mode.DEFAULT)
    setup = PipelineSetup(PermissionPipeline(cwd, rules, chosen), list(config.problems))
    setup.pipeline.mode_chosen = bool(mode)
    if persist_always:

        def save(new_rules: list[Rule]) -> None:
            try:
                path = add_local_rules(cwd, new_rules)
            except (OSError, ValueError) as exc:
                log.warning("could not save %s: %s", new_rules, exc)
                setup.saved.append(f"not saved ({exc}); allowed for this session only")
            else:
                setup.saved.append(f"saved {', '.join(map(str, new_rules))} to {path}")
                try:  # the user's own choice: trusted where it is saved, so it lasts
                    trust.trust(rule_item(rule, path) for rule in new_rules)
                except OSError as exc:
                    log.warning("could not remember %s as trusted: %s", new_rules, exc)

        setup.pipeline.on_remember.append(save)
    return setup
