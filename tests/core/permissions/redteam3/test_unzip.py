"""``unzip`` writes what the archive names (redteam3): it had no option table, so a rule
``run_shell(unzip:*)`` was judged by its words alone — ``unzip -o shipped.zip`` overwrote the
user's ``.git/hooks/pre-commit`` (run by their next ``git commit``) in default and accept-edits
mode, and in bypass mode too (no write was seen); ``unzip -: shipped.zip`` keeps ``../`` in
names and wrote ``../home/.bashrc``. Sandbox off. Now a table (``tables/unzip.py``): the
extraction is a write of its directory, through links; ``-:`` anywhere."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import Lab, rules
from tests.core.permissions.redteam3.lab import Case, judged, prove, user_git
from tests.core.permissions.redteam3.test_cd_places import login_shell

pytestmark = pytest.mark.skipif(shutil.which("unzip") is None, reason="needs unzip")
COMMIT = user_git("", "commit", "-q", "--allow-empty", "-m", "y")


def _zip(name: str, members: dict[str, str]) -> object:
    def setup(lab: Lab) -> None:
        with zipfile.ZipFile(lab.root / name, "w") as archive:
            for member, text in members.items():
                info = zipfile.ZipInfo(member)
                info.external_attr = 0o100755 << 16
                archive.writestr(info, text)

    return setup


HOOK = _zip("shipped.zip", {".git/hooks/pre-commit": "#!/bin/sh\ntouch pwned\n"})
UP = _zip("up.zip", {"../home/.bashrc": "touch pwned\n"})
CASES = {
    "unzip -o: hooks": Case("unzip -o shipped.zip", HOOK, COMMIT),  # type: ignore[arg-type]
    "unzip -qo -d .": Case("unzip -qo shipped.zip -d .", HOOK, COMMIT),  # type: ignore[arg-type]
    "unzip -: ../home": Case("unzip -o -: up.zip", UP, login_shell),  # type: ignore[arg-type]
}
MODES = {
    "default+unzip": (Mode.DEFAULT, ("run_shell(unzip:*)",)),
    "accept-edits+unzip": (Mode.ACCEPT_EDITS, ("run_shell(unzip:*)",)),
    "bypass": (Mode.BYPASS, ()),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(CASES))
async def test_unzip_extraction_is_judged_as_its_writes(
    tmp_path: Path, name: str, mode: str
) -> None:
    which, allow = MODES[mode]
    await prove(tmp_path, CASES[name], rules(allow=allow, deny=()), which)


@pytest.mark.parametrize(
    "command",
    [
        "unzip -l shipped.zip",
        "unzip -p shipped.zip a | head",
        "unzip -t shipped.zip",
        "unzip -qo shipped.zip -d build",
        "unzip shipped.zip -x '*.md' -d build",
    ],
)
def test_everyday_unzip_runs_in_accept_edits(tmp_path: Path, command: str) -> None:
    allow = rules(allow=("run_shell(unzip:*)", "run_shell(head:*)"), deny=())
    decision = judged(tmp_path, Case(command, HOOK), allow, Mode.ACCEPT_EDITS)  # type: ignore[arg-type]
    assert decision.kind == "allow", decision
