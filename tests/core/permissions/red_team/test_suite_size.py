"""The suite's own promise: at least 300 attack cases across the categories, and 40 everyday
commands that stay allowed (each category's list is counted where it is defined)."""

from __future__ import annotations

from tests.core.permissions.red_team import (
    test_deny_dodging,
    test_everyday,
    test_protected_paths,
    test_read_deny,
    test_smuggling,
    test_writes_and_env,
)


def test_at_least_300_attack_cases() -> None:
    cases = {
        "smuggling under allow rules": len(test_smuggling.SMUGGLED),
        "deny dodging (default and bypass)": 2 * len(test_deny_dodging.DODGES),
        "writes through redirections": len(test_writes_and_env.REDIRECT_WRITES),
        "environment prefixes (default and bypass)": 2 * len(test_writes_and_env.ENV_ATTACKS),
        "protected paths (accept-edits and bypass)": 2
        * (len(test_protected_paths.FILES) + 3 + len(test_protected_paths.SHELL_WRITES)),
        "read-deny through every tool (default and bypass)": 2
        * (
            len(test_read_deny.SHELL_READS)
            + len(test_read_deny.PATH_CALLS)
            + len(test_read_deny.WALKS)
        ),
    }
    assert sum(cases.values()) >= 300, cases
    assert all(count >= 20 for count in cases.values()), cases


def test_at_least_40_everyday_commands() -> None:
    assert len(test_everyday.EVERYDAY) >= 40
