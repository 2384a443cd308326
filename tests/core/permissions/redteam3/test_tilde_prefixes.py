"""Tilde prefixes that are directories (redteam3): bash expands ``~+`` to ``$PWD``, ``~-`` to
``$OLDPWD`` and ``~N`` / ``~+N`` / ``~-N`` to the directory stack; the word decoder knew only
``~`` and ``~/``, so ``~+/../home/.bashrc`` was the relative path ``./home/.bashrc`` to the
judge — inside the workspace — and the user's ``~/.bashrc`` to bash. Sandbox off,
accept-edits with ``run_shell(echo:*)``, bypass with no rule. These words are now known only at
run time (a write there asks in every mode)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import rules
from tests.core.permissions.redteam3.lab import Case, judged, prove
from tests.core.permissions.redteam3.test_cd_places import login_shell

CASES = {
    "~+/../home": "echo 'touch pwned' >> ~+/../home/.bashrc",
    "cd src; ~-/../home": "cd src && echo 'touch pwned' >> ~-/../home/.bashrc",
    "pushd src; ~1/../home": "pushd src >/dev/null && echo 'touch pwned' >> ~1/../home/.bashrc",
    "pushd src; ~+1/../home": "pushd src >/dev/null && echo 'touch pwned' >> ~+1/../home/.bashrc",
}
MODES = {
    "accept-edits+echo": (Mode.ACCEPT_EDITS, ("run_shell(echo:*)",)),
    "bypass": (Mode.BYPASS, ()),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(CASES))
async def test_a_directory_tilde_is_known_only_at_run_time(
    tmp_path: Path, name: str, mode: str
) -> None:
    which, allow = MODES[mode]
    await prove(tmp_path, Case(CASES[name], later=login_shell), rules(allow=allow, deny=()), which)


@pytest.mark.parametrize("command", ["echo ~+", "ls ~+", "echo x > '~+/notes.txt'", "ls ~-"])
def test_tilde_words_that_write_nothing_stay_allowed(tmp_path: Path, command: str) -> None:
    allow = rules(allow=("run_shell(echo:*)", "run_shell(ls:*)"), deny=())
    decision = judged(tmp_path, Case(command), allow, Mode.ACCEPT_EDITS)
    assert decision.kind == "allow", decision
