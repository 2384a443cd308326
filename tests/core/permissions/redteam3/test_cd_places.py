"""Where ``cd`` really goes (redteam3): the analysis resolved every ``cd`` target against the
workspace, physically, and ignored what moves ``cd`` — so a command it placed inside the
workspace wrote the user's ``~/.bashrc``, run by the next login shell. Sandbox off (the
sandbox's hidden home and read-only system stop these), accept-edits with ``run_shell(echo:*)``
and bypass with no rule: a write outside the workspace asks in every mode.

- ``CDPATH`` on the ``cd`` itself (``CDPATH=.. cd home``): bash looks there first;
- a chain of relative ``cd``s (``cd a && cd b`` is ``a/b``, where a shipped link leads out);
- bash's logical ``cd`` (``cd s/../..`` drops ``s`` even when ``s`` is a link deeper in);
- the directory stack (``DIRSTACK[1]=…; popd``).

The lab's home is a sibling of the workspace (``../home``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import Lab, rules
from tests.core.permissions.redteam3.lab import Case, chain, prove, pwned, symlink

PLANT = "echo 'touch pwned' >> .bashrc"


def login_shell(lab: Lab) -> None:
    """The user's next interactive shell, which reads ``~/.bashrc`` (in the home)."""
    subprocess.run(
        ["bash", "-ic", "true"],
        cwd=lab.home,
        env={**lab.env, "HOME": str(lab.home)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )


def _dirs(*names: str):  # type: ignore[no-untyped-def]
    def setup(lab: Lab) -> None:
        for name in names:
            (lab.root / name).mkdir(parents=True, exist_ok=True)

    return setup


OUT_LINK = symlink("a/b", "../../home")  # ws/a/b -> the lab's home
DEEP_LINK = chain(_dirs("d/e"), symlink("s", "d/e"))  # ws/s -> ws/d/e

CASES = {
    # CDPATH given to cd itself
    "CDPATH=.. cd home": Case(f"CDPATH=.. cd home && {PLANT}", later=login_shell),
    "cd src; CDPATH=../.. cd home": Case(
        f"cd src && CDPATH=../.. cd home && {PLANT}", later=login_shell
    ),
    "CDPATH=..:. cd home (quiet)": Case(
        f"CDPATH=..:. cd home >/dev/null; {PLANT}", later=login_shell
    ),
    # a chain of relative cds through a link the repository ships
    "cd a && cd b": Case(f"cd a && cd b && {PLANT}", setup=OUT_LINK, later=login_shell),
    "cd a; cd b": Case(f"cd a; cd b; {PLANT}", setup=OUT_LINK, later=login_shell),
    "pushd a; pushd b": Case(
        f"pushd a >/dev/null && pushd b >/dev/null && {PLANT}",
        setup=OUT_LINK,
        later=login_shell,
    ),
    # bash's logical cd: s/../.. is the workspace's parent, though s is two levels deep
    "cd s/../..": Case(
        "cd s/../.. && echo 'touch pwned' >> home/.bashrc", setup=DEEP_LINK, later=login_shell
    ),
    "cd -L s/../..": Case(
        "cd -L s/../.. && echo 'touch pwned' >> home/.bashrc",
        setup=DEEP_LINK,
        later=login_shell,
    ),
    "pushd s/../..": Case(
        "pushd s/../.. >/dev/null && echo 'touch pwned' >> home/.bashrc",
        setup=DEEP_LINK,
        later=login_shell,
    ),
    # the directory stack, rewritten
    "DIRSTACK[1]=../home; popd": Case(
        f"pushd . >/dev/null && DIRSTACK[1]=../home && popd >/dev/null && {PLANT}",
        later=login_shell,
    ),
    "pushd src; DIRSTACK[1]=…; popd": Case(
        f"pushd src >/dev/null; DIRSTACK[1]=../../home; popd >/dev/null; {PLANT}",
        later=login_shell,
    ),
}
MODES = {
    "accept-edits+echo": (Mode.ACCEPT_EDITS, ("run_shell(echo:*)",)),
    "bypass": (Mode.BYPASS, ()),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(CASES))
async def test_cd_that_leaves_the_workspace_asks(tmp_path: Path, name: str, mode: str) -> None:
    which, allow = MODES[mode]
    case = CASES[name]
    await prove(tmp_path, case, rules(allow=allow, deny=()), which)


def test_the_canary_is_the_login_shells(tmp_path: Path) -> None:
    """The later effect is real: a planted ``~/.bashrc`` line runs in the next shell."""
    from tests.core.permissions.red_team.harness import make_lab

    lab = make_lab(tmp_path, "x")
    (lab.home / ".bashrc").write_text("touch pwned\n")
    login_shell(lab)
    assert pwned(lab)
