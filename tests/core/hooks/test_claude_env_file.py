"""``CLAUDE_ENV_FILE``: a user's SessionStart hook sets variables for the session's later
commands (through the sandbox's allow-list); a project's hook sets nothing (fail closed)."""

from __future__ import annotations

import pytest

from agent_tui.core.hooks.envfile import parse
from tests.core.helpers import of_type
from tests.core.hooks.lab import MODES, Lab, script, shell_call
from tests.core.hooks.test_claude_code_hooks import _one

WRITES = """\
echo 'export GREETING_FROM_HOOK="hello there"' >> "$CLAUDE_ENV_FILE"
echo 'export CI=from-hook' >> "$CLAUDE_ENV_FILE"
"""
SHOW = 'printf "%s|%s\\n" "$GREETING_FROM_HOOK" "$CI" > seen.txt'


@pytest.mark.parametrize("mode", MODES)
async def test_a_user_session_start_hook_sets_the_commands_environment(lab: Lab, mode: str) -> None:
    hook = script(lab.home / ".claude" / "hooks" / "env.sh", WRITES)
    hooks = lab.hooks({"SessionStart": _one("startup", str(hook))})
    events = await lab.run(shell_call(SHOW), hooks, mode)
    seen = (lab.work / "seen.txt").read_text(encoding="utf-8")
    (shown,) = [e for e in of_type(events, "hook") if e.event == "SessionStart"]
    assert shown.outcome == "ok"
    assert "set for the session's commands: CI, GREETING_FROM_HOOK" in shown.message
    if mode == "off":
        assert seen == "hello there|from-hook\n"
    else:  # CI is allow-listed; the other name is not, and the user is told so
        assert seen == "|from-hook\n"
        assert "allow-list: GREETING_FROM_HOOK" in shown.message


@pytest.mark.parametrize("mode", MODES)
async def test_a_project_session_start_hook_sets_nothing(lab: Lab, mode: str) -> None:
    hook = script(lab.work / ".claude" / "hooks" / "env.sh", WRITES)
    hooks = lab.hooks({"SessionStart": _one("", str(hook))}, "project")
    events = await lab.run(shell_call(SHOW), hooks, mode)
    (shown,) = [e for e in of_type(events, "hook") if e.event == "SessionStart"]
    assert shown.outcome == "ok"  # it could write its file: it did not fail
    assert "are not applied" in shown.message
    ci = "from-hook"
    assert ci not in (lab.work / "seen.txt").read_text(encoding="utf-8")
    assert (lab.work / "seen.txt").read_text(encoding="utf-8").startswith("|")


def test_env_file_lines_are_read_as_claude_code_writes_them() -> None:
    found, problems = parse(
        "export A=1\n"
        'export B="two words"\n'
        "C='single'\n"
        "# a comment\n"
        "unset D\n"
        "export E=$'\\x41'\n"
        "export A=again\n"
    )
    assert found == {"A": "again", "B": "two words", "C": "single"}
    assert [p.split(" line ")[1][:1] for p in problems] == ["5", "6"]
