"""``tar -x`` writes what the archive names (redteam3): the tar table judged the archive it
reads and nothing it extracts, so ``run_shell(tar:*)`` let ``tar xf shipped.tar`` overwrite
``.git/hooks/pre-commit`` (run by the user's next ``git commit``) and ``.mcp.json``, and
extract through a link the repository ships (``build/sub -> ../../home``) into ``~/.bashrc``,
or anywhere with ``-P``. Sandbox off; default and accept-edits with the rule, bypass without.
Extraction is now a write of the whole directory, through the links already below it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import Lab, decide, home_of, make_lab, pipeline, rules
from tests.core.permissions.redteam3.lab import Case, chain, prove, symlink, user_git
from tests.core.permissions.redteam3.test_cd_places import login_shell


def _archive(name: str, members: dict[str, str], absolute: bool = False) -> object:
    """Ship ``name``: a tar of ``members`` (path → text; hooks executable); with
    ``absolute``, member paths are ``{home}/…`` of the lab, stored with ``-P``."""

    def setup(lab: Lab) -> None:
        stage = lab.root.parent / "stage"
        names = []
        for rel, text in members.items():
            rel = rel.replace("{home}", str(lab.home))
            path = Path(rel) if absolute else stage / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if absolute and path.exists():
                continue  # the lab's own file: the archive takes it as is, changed below
            path.write_text(text)
            if "hooks/" in rel:
                path.chmod(0o755)
            names.append(rel)
        flags = "-cPf" if absolute else "-cf"
        cwd = lab.root if absolute else stage
        subprocess.run(["tar", flags, str(lab.root / name), *names], cwd=cwd, check=True)

    return setup


def _absolute(lab: Lab) -> None:
    """An archive holding the lab's own ``~/.bashrc`` by its absolute name, planted."""
    rc = lab.home / ".bashrc"
    original = rc.read_text()
    rc.write_text("touch pwned\n")
    subprocess.run(["tar", "-cPf", str(lab.root / "abs.tar"), str(rc)], check=True)
    rc.write_text(original)


HOOKS = _archive(
    "evil.tar",
    {".git/hooks/pre-commit": "#!/bin/sh\ntouch pwned\n", ".mcp.json": '{"mcpServers": {}}\n'},
)
THROUGH = chain(
    _archive("evil.tar", {"sub/.bashrc": "touch pwned\n"}),  # type: ignore[arg-type]
    symlink("build/sub", "../../home"),
)


def _link_member(lab: Lab) -> None:
    """An archive holding ``h -> ../.git/hooks``; the user's own executable hook."""
    stage = lab.root.parent / "stage-link"
    stage.mkdir()
    os.symlink("../.git/hooks", stage / "h")
    subprocess.run(["tar", "-cf", str(lab.root / "links.tar"), "h"], cwd=stage, check=True)
    (lab.root / "build").mkdir()
    (lab.root / ".git/hooks/pre-commit").chmod(0o755)


CASES = {
    "tar xf: .git/hooks/pre-commit": Case(
        "tar xf evil.tar",
        setup=HOOKS,
        later=user_git("", "commit", "-q", "--allow-empty", "-m", "y"),  # type: ignore[arg-type]
    ),
    "tar --extract --file=: hooks": Case(
        "tar --extract --file=evil.tar",
        setup=HOOKS,  # type: ignore[arg-type]
        later=user_git("", "commit", "-q", "--allow-empty", "-m", "y"),
    ),
    "tar -xf -C build through a shipped link": Case(
        "tar -xf evil.tar -C build", setup=THROUGH, later=login_shell
    ),
    "tar -x a link member, then a write through it": Case(
        "tar -xf links.tar -C build && echo 'touch pwned' >> build/h/pre-commit",
        setup=_link_member,
        later=user_git("", "commit", "-q", "--allow-empty", "-m", "y"),
    ),
    "tar -xPf: an absolute member": Case("tar -xPf abs.tar", setup=_absolute, later=login_shell),
    "tar -C build -x -P": Case(
        "tar -C build -x -P -f abs.tar",
        setup=chain(_absolute, lambda lab: (lab.root / "build").mkdir()),
        later=login_shell,
    ),
}
MODES = {
    "default+tar": (Mode.DEFAULT, ("run_shell(tar:*)", "run_shell(echo:*)")),
    "accept-edits+tar": (Mode.ACCEPT_EDITS, ("run_shell(tar:*)", "run_shell(echo:*)")),
    "bypass": (Mode.BYPASS, ()),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(CASES))
async def test_tar_extraction_is_judged_as_its_writes(tmp_path: Path, name: str, mode: str) -> None:
    which, allow = MODES[mode]
    case = CASES[name]
    await prove(tmp_path, case, rules(allow=allow, deny=()), which)


def test_extraction_into_a_plain_directory_runs_in_accept_edits(tmp_path: Path) -> None:
    lab = make_lab(tmp_path, "x")
    (lab.root / "build").mkdir()
    allow = rules(allow=("run_shell(tar:*)",), deny=())
    with home_of(lab):
        for command in ("tar -xzf archive.tgz -C build", "tar xf a.tar -C build"):
            edits = decide(
                pipeline(lab, allow, Mode.ACCEPT_EDITS), "run_shell", {"command": command}
            )
            assert edits.kind == "allow", edits
            default = decide(pipeline(lab, allow, Mode.DEFAULT), "run_shell", {"command": command})
            assert default.kind == "ask", default
            assert "tar -x" in default.reason, default
        for command in ("tar tf a.tar", "tar xOf a.tar", "tar -xzf a.tgz --to-stdout"):
            listed = decide(pipeline(lab, allow, Mode.DEFAULT), "run_shell", {"command": command})
            assert listed.kind == "allow", listed
    assert not os.path.exists(lab.root / "pwned")
