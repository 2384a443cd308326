"""Read guards: which resolved paths the file tools must withhold (``read_file`` rules, a root)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Rule, RuleSet
from agent_tui.core.permissions.read_guard import RootGuard, RuleReadGuard
from agent_tui.core.tools.reads import NO_GUARD


def _guard(
    workspace: Path,
    *,
    deny: tuple[str, ...] = (),
    ask: tuple[str, ...] = (),
    allow: tuple[str, ...] = (),
) -> RuleReadGuard:
    source = str(workspace / ".agent-tui" / "settings.json")
    rules = RuleSet(
        allow=[Rule.parse(r, source=source) for r in allow],
        ask=[Rule.parse(r, source=source) for r in ask],
        deny=[Rule.parse(r, source=source) for r in deny],
    )
    return RuleReadGuard(rules, workspace)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "config").mkdir(parents=True)
    (root / "deep" / "er").mkdir(parents=True)
    return root.resolve()


def test_a_bare_name_matches_at_any_depth_and_only_that_name(ws: Path) -> None:
    guard = _guard(ws, deny=("read_file(.env)",))
    reason = guard.withheld(ws / ".env")
    assert reason == f"the rule read_file(.env) (from {ws / '.agent-tui' / 'settings.json'})"
    assert guard.withheld(ws / "deep" / "er" / ".env") is not None
    assert guard.withheld(ws / ".env.local") is None
    assert guard.withheld(ws / "deep" / "not.env") is None
    assert guard.withheld(ws / "README.md") is None


def test_a_star_in_the_pattern_covers_both(ws: Path) -> None:
    guard = _guard(ws, deny=("read_file(.env*)",))
    assert guard.withheld(ws / ".env") is not None
    assert guard.withheld(ws / ".env.local") is not None
    assert guard.withheld(ws / "deep" / ".env.production") is not None
    assert guard.withheld(ws / "env") is None


def test_an_anchored_pattern_matches_only_from_the_workspace_root(ws: Path) -> None:
    guard = _guard(ws, deny=("read_file(/config/.env)",))
    assert guard.withheld(ws / "config" / ".env") is not None
    assert guard.withheld(ws / ".env") is None
    assert guard.withheld(ws / "deep" / "config" / ".env") is None


def test_a_directory_pattern_withholds_what_is_inside(ws: Path) -> None:
    guard = _guard(ws, deny=("read_file(secrets/**)",))
    assert guard.withheld(ws / "secrets" / "a" / "key.pem") is not None
    assert guard.withheld(ws / "src" / "secrets.py") is None


def test_ask_rules_withhold_too_and_allow_rules_do_not(ws: Path) -> None:
    asked = _guard(ws, ask=("read_file(*.pem)",))
    assert asked.withheld(ws / "deep" / "key.pem") == (
        f"the rule read_file(*.pem) (from {ws / '.agent-tui' / 'settings.json'})"
    )
    allowed = _guard(ws, allow=("read_file(.env)", "read_file", "*"))
    assert allowed.withheld(ws / ".env") is None


def test_deny_is_reported_before_ask(ws: Path) -> None:
    guard = _guard(ws, ask=("read_file(.env)",), deny=("read_file(**/.env)",))
    assert "read_file(**/.env)" in (guard.withheld(ws / ".env") or "")


def test_a_rule_without_pattern_or_for_every_tool_withholds_everything(ws: Path) -> None:
    for rules in ({"deny": ("read_file",)}, {"deny": ("*",)}):
        guard = _guard(ws, **rules)
        assert guard.withheld(ws / "README.md") is not None, rules
        assert guard.withheld(Path("/etc/hostname")) is not None, rules


def test_an_ask_rule_without_pattern_withholds_only_where_nobody_can_be_asked(ws: Path) -> None:
    """``ask: [read_file]`` asks before each read_file call (the agent's prompt); it does not
    hide files from other tools. ``mcp serve`` can ask nobody, so there it withholds all."""
    rules = RuleSet(ask=[Rule.parse("read_file"), Rule.parse("*")])
    assert RuleReadGuard(rules, ws).withheld(ws / "README.md") is None
    served = RuleReadGuard(rules, ws, nobody_to_ask=True)
    assert served.withheld(ws / "README.md") is not None


def test_only_rules_for_read_file_count(ws: Path) -> None:
    guard = _guard(
        ws,
        deny=("grep(.env)", "read_file_x(.env)", "mcp__fs__read_file(.env)", "edit_file"),
        ask=("glob",),
    )
    assert guard.withheld(ws / ".env") is None


def test_paths_are_matched_after_resolving_symlinks(ws: Path) -> None:
    (ws / ".env").write_text("SECRET=1\n")
    (ws / "innocent.txt").symlink_to(ws / ".env")
    guard = _guard(ws, deny=("read_file(.env)",))
    assert guard.withheld(ws / "innocent.txt") is not None
    assert guard.withheld(ws / "deep" / ".." / ".env") is not None


def test_a_workspace_given_through_a_symlink_still_matches(tmp_path: Path, ws: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(ws)
    guard = _guard(alias, deny=("read_file(/config/.env)",))
    assert guard.withheld(ws / "config" / ".env") is not None


def test_the_root_guard_withholds_everything_outside(tmp_path: Path, ws: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.txt").write_text("canary\n")
    (ws / "link").symlink_to(outside / "canary.txt")
    (ws / "dirlink").symlink_to(outside)
    guard = RootGuard(ws)
    why = f"outside the directory this server serves ({ws})"
    assert guard.withheld(outside / "canary.txt") == why
    assert guard.withheld(ws / "link") == why
    assert guard.withheld(ws / "dirlink" / "canary.txt") == why
    assert guard.withheld(ws / ".." / "outside") == why
    assert guard.withheld(Path("/etc/hostname")) == why
    assert guard.withheld(ws) is None
    assert guard.withheld(ws / "config" / "anything") is None


def test_the_root_guard_defers_to_its_inner_guard_inside(tmp_path: Path, ws: Path) -> None:
    guard = RootGuard(ws, _guard(ws, deny=("read_file(.env)",)))
    assert "read_file(.env)" in (guard.withheld(ws / ".env") or "")
    assert guard.withheld(ws / "README.md") is None
    assert "outside" in (guard.withheld(tmp_path / ".env") or "")
    assert RootGuard(ws, NO_GUARD).withheld(ws / ".env") is None
