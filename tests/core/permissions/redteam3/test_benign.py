"""Everyday read-only commands stay allowed by the obvious rules while a read rule is in force
(redteam3): a ``read_file(.env)`` deny rule, a ``.env`` in the project. ``rg --files`` lists
the names it would search and reads none, like ``find . -type f``: it asked (fixed).
``rg PATTERN`` skips hidden files such as ``.env`` unless told otherwise: it still asks (xfail,
see the reason)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import decide, home_of, make_lab, pipeline, rules
from tests.core.permissions.red_team.test_everyday import OBVIOUS
from tests.core.permissions.red_team.test_everyday_options import MORE_RULES

EXTRA = tuple(f"run_shell({p}:*)" for p in ("rg", "jq", "find", "sed", "git log", "tree"))
ALLOWED = [
    "rg --files",
    "rg --files src",
    "rg --files -g '*.py'",
    "rg -n foo src",
    "git log -p",
    "git log -p -3 -- src",
    "find . -name '*.py'",
    "find . -type f -not -path './.git/*'",
    "sed -n 1,10p src/app.py",
    "ls -la",
    "python -m pytest -q",
    "tree -L 2",
]
STILL_ASKED = {
    "rg -n foo": "rg skips hidden files (.env) by default, but the judge walks them: model it "
    "only with no --hidden/-./-uu/--unrestricted, no -g/--glob/-t (globs override the hidden "
    "rule), no RIPGREP_CONFIG_PATH, and no ignore file (.ignore, .rgignore, .gitignore, above "
    "the root too) whitelisting a hidden name with '!' — rg is not installed here to test it "
    "against",
    "rg -l TODO": "the same: rg's hidden-file skipping",
}


def _judge(tmp_path: Path, command: str) -> str:
    lab = make_lab(tmp_path, "benign")
    allow = (*OBVIOUS, *MORE_RULES, *EXTRA)
    with home_of(lab):
        for mode in (Mode.DEFAULT, Mode.ACCEPT_EDITS):
            decision = decide(
                pipeline(lab, rules(allow=allow), mode), "run_shell", {"command": command}
            )
            if decision.kind != "allow":
                return f"{mode.value}: {decision.reason}"
    return "allow"


@pytest.mark.parametrize("command", ALLOWED)
def test_benign_commands_stay_allowed_with_a_read_rule(tmp_path: Path, command: str) -> None:
    assert _judge(tmp_path, command) == "allow"


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=why))
        for c, why in STILL_ASKED.items()
    ],
)
def test_rg_without_hidden_files_is_allowed(tmp_path: Path, command: str) -> None:
    assert _judge(tmp_path, command) == "allow"
