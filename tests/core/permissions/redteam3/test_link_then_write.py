"""Links a command makes, then writes through (redteam3): each write was judged by where its
path led when the command was judged, before the command's own ``ln`` (or ``cp -s``, ``cp
-a`` of a shipped link) made part of it a link — so ``ln -s .git/hooks h && echo … >> h/pre-
commit`` was a write of ``./h/pre-commit``. Accept-edits with rules for the programs, and
bypass; sandbox off (in the sandbox the protected files are read-only mounts and a hard link
across them fails). The later effect: the user's next ``git commit`` / ``git status``, or the
protected file changed (``.mcp.json``, ``.agent-tui/settings.json``: the next start)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import Lab, rules
from tests.core.permissions.redteam3.lab import Case, chain, judged, prove, pwned, user_git

RULES = tuple(f"run_shell({p}:*)" for p in ("ln", "echo", "printf", "cp", "mkdir"))
COMMIT = user_git("", "commit", "-q", "--allow-empty", "-m", "y")
STATUS = user_git("", "status")
HOOK = ".git/hooks/pre-commit"
WATCHED = (".mcp.json", ".agent-tui/settings.json")


def _user_hook(lab: Lab) -> None:
    """The user's own executable pre-commit hook (husky, pre-commit…)."""
    (lab.root / HOOK).chmod(0o755)


def _shipped_link(lab: Lab) -> None:
    os.symlink(".git/hooks", lab.root / "hooks-link")


def _stamp(lab: Lab) -> str:
    return "".join(hashlib.sha256((lab.root / n).read_bytes()).hexdigest() for n in WATCHED)


def _changed_or_pwned(lab: Lab) -> bool:
    return bool(pwned(lab)) or _stamp(lab) != ORIGINAL


ORIGINAL = hashlib.sha256(b'{"mcpServers": {}}\n').hexdigest() + hashlib.sha256(b"{}\n").hexdigest()
FSMON = "printf '[core]\\n\\tfsmonitor = \"touch pwned; false\"\\n'"
CASES = {
    "ln -s .git/hooks h": Case(
        "ln -s .git/hooks h && echo 'touch pwned' >> h/pre-commit", _user_hook, COMMIT
    ),
    "ln -s into a new dir": Case(
        "mkdir d && ln -s ../.git d/g && echo 'touch pwned' >> d/g/hooks/pre-commit",
        _user_hook,
        COMMIT,
    ),
    "hard link .git/config": Case(f"ln .git/config c && {FSMON} >> c", later=STATUS),
    "ln -s .mcp.json": Case(
        'ln -s .mcp.json m && echo \'{"mcpServers": {"x": {"command": "touch"}}}\' > m',
        effect=_changed_or_pwned,
    ),
    "ln -s settings.json": Case(
        'ln -s .agent-tui/settings.json s && echo \'{"defaultMode": "bypass"}\' > s',
        effect=_changed_or_pwned,
    ),
    "cp -rs .git/hooks": Case(
        "cp -rs \"$PWD/.git/hooks\" hh && echo 'touch pwned' >> hh/pre-commit", _user_hook, COMMIT
    ),
    "cp -a a shipped link": Case(
        "cp -a hooks-link h && echo 'touch pwned' >> h/pre-commit",
        chain(_user_hook, _shipped_link),
        COMMIT,
    ),
}
MODES = {"accept-edits+rules": (Mode.ACCEPT_EDITS, RULES), "bypass": (Mode.BYPASS, ())}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(CASES))
async def test_a_write_through_a_link_the_command_makes_asks(
    tmp_path: Path, name: str, mode: str
) -> None:
    which, allow = MODES[mode]
    await prove(tmp_path, CASES[name], rules(allow=allow, deny=()), which)


@pytest.mark.parametrize(
    "command",
    [
        "mkdir -p build && cp -a src build/ && echo done > build/stamp",
        "ln -s src/app.py app.py && echo '# x' >> app.py",
        "cp src/notes.txt n.txt && echo more >> n.txt",
        "ln -sf app.py src/main.py",
    ],
)
def test_links_inside_the_project_stay_allowed(tmp_path: Path, command: str) -> None:
    decision = judged(tmp_path, Case(command), rules(allow=RULES, deny=()), Mode.ACCEPT_EDITS)
    assert decision.kind == "allow", decision
