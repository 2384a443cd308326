"""Options from the environment (redteam3): the option tables judge a program's words, but
``tar`` takes its archive from ``TAPE``, ``zip`` its options from ``ZIPOPT`` (``-TT`` runs a
program), ``man`` passes ``MANROFFOPT`` to groff (``-U``: a page's ``.sy`` request runs a
command). These names were not among the dangerous variables, so ``TAPE=… tar c x`` under
``run_shell(tar:*)`` overwrote the user's executable ``.git/hooks/pre-commit`` (run by their
next ``git commit``) — in bypass mode too, as no write was seen —, and ``MANROFFOPT=-U man -l
evil.1`` ran the shipped page's command. Sandbox off."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import Lab, rules
from tests.core.permissions.redteam3.lab import Case, prove, user_git


def _hook_and_member(lab: Lab) -> None:
    """The user's own executable pre-commit hook, and a file whose text is a command."""
    hook = lab.root / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    (lab.root / "x").write_text("\ntouch pwned\n")


def _page(lab: Lab) -> None:
    (lab.root / "evil.1").write_text(f".TH EVIL 1\n.SH NAME\nevil\n.sy touch {lab.root}/pwned\n")


COMMIT = user_git("", "commit", "-q", "--allow-empty", "-m", "y")
TAR = ("run_shell(tar:*)",)
CASES = {
    "TAPE=hook tar c": (Case("TAPE=.git/hooks/pre-commit tar c x", _hook_and_member, COMMIT), TAR),
    "TAPE=hook tar --create": (
        Case("TAPE=.git/hooks/pre-commit tar --create x", _hook_and_member, COMMIT),
        TAR,
    ),
    "env TAPE=hook tar -c": (
        Case("env TAPE=.git/hooks/pre-commit tar -c x", _hook_and_member, COMMIT),
        (*TAR, "run_shell(env:*)"),
    ),
    "ZIPOPT=-TT": (
        Case('ZIPOPT="-T -TT ./evil.sh" zip a.zip src/app.py'),
        ("run_shell(zip:*)",),
    ),
    "MANROFFOPT=-U man -l": (Case("MANROFFOPT=-U man -l evil.1", _page), ("run_shell(man:*)",)),
}
MODES = {"default": Mode.DEFAULT, "accept-edits": Mode.ACCEPT_EDITS, "bypass": Mode.BYPASS}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(CASES))
async def test_options_from_the_environment_ask(tmp_path: Path, name: str, mode: str) -> None:
    case, allow = CASES[name]
    program = "man" if "man" in name else "zip" if "ZIP" in name else "tar"
    if shutil.which(program) is None:
        pytest.skip(f"needs {program}")
    if MODES[mode] is Mode.BYPASS:
        if not name.startswith(("TAPE", "env TAPE")):
            pytest.skip("bypass mode runs the programs a command names: only writes ask")
        allow = ()
    await prove(tmp_path, case, rules(allow=allow, deny=()), MODES[mode])
