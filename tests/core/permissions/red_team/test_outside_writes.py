"""Writes outside the workspace that run code later (issue 37): they ask in every mode —
bypass and accept-edits included, broad allow rules or not — unless a rule names the path.

Each attack is proven real: run bare in a lab whose home is private, it plants a file that a
*later* program runs (a new login shell ``bash -lic true``, ``python3 -c pass``, ``gdb``,
``vim``, ``ipython`` started with that home make ``~/pwned``; where the program is not
installed, the planted file itself is the effect). Through the executor it is rejected, and the
same later program then finds nothing to run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode, Step
from tests.core.permissions.red_team.harness import (
    Attack,
    decide,
    home_of,
    make_lab,
    pipeline,
    prove,
    rules,
    through_agent,
)
from tests.core.permissions.red_team.outside_lab import (
    GDB,
    IPYTHON,
    LOGIN_SHELL,
    PY_RUNS,
    PYTHON_START,
    RUNS,
    USER_SITE,
    VIM,
    make_outside_lab,
    run_later,
    runs_later,
    use_outside_lab,  # noqa: F401 (a fixture)
)

pytestmark = pytest.mark.usefixtures("use_outside_lab")

BROAD = (
    "write_file",
    "write_file(**)",
    "edit_file(**)",
    "run_shell(echo:*)",
    "run_shell(printf:*)",
    "run_shell(tee:*)",
    "run_shell(cp:*)",
    "run_shell(mkdir:*)",
    "run_shell(install:*)",
    "run_shell(dd:*)",
    "run_shell(ln:*)",
    "run_shell(cat:*)",
)
"""Broad rules a user might have: none of them names a path outside the workspace."""
MODES = [Mode.ACCEPT_EDITS, Mode.BYPASS]
MODE_IDS = ["accept-edits", "bypass"]

# (where, what it holds, who runs it later)
PLANTED = [
    (".bashrc.d/evil.sh", RUNS, LOGIN_SHELL),
    (".bash_aliases", RUNS, LOGIN_SHELL),
    (".bash_completion", RUNS, LOGIN_SHELL),
    (f"{USER_SITE}/evil.pth", PY_RUNS, PYTHON_START),
    (".gradle/init.d/evil.gradle", 'println "x".execute()', ()),
    (".cargo/config.toml", '[build]\nrustc-wrapper = "/tmp/evil"\n', ()),
    (".ipython/profile_default/startup/00-evil.py", PY_RUNS, IPYTHON),
    (".vimrc", "silent !touch ~/pwned", VIM),
    (".gdbinit", "shell touch ~/pwned", GDB),
    (".pam_environment", "LD_PRELOAD DEFAULT=/tmp/evil.so", ()),
    (".xprofile", RUNS, ()),
    (".docker/config.json", '{"credHelpers": {"ghcr.io": "evil"}}', ()),
]
IDS = [where for where, _, _ in PLANTED]


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize(("where", "content", "later"), PLANTED, ids=IDS)
async def test_write_file_outside_the_workspace_asks(
    tmp_path: Path, where: str, content: str, later: tuple[str, ...], mode: Mode
) -> None:
    attack = Attack(f"write_file ~/{where}", runs_later(where, later))
    decision = await prove(
        tmp_path,
        attack,
        rules(allow=BROAD, deny=()),
        mode,
        tool="write_file",
        arguments={"path": f"~/{where}", "content": content + "\n"},
    )
    assert decision.kind == "ask", decision
    assert decision.step is Step.OUTSIDE, decision
    assert decision.every_mode
    assert "outside the workspace" in decision.reason
    assert [str(r) for r in decision.suggestions] == [f"write_file(/{decision.path})"]


# the shell forms of the same plants (each run bare first: the later program really runs it)
SHELL = [
    (f"mkdir -p ~/.bashrc.d && echo '{RUNS}' > ~/.bashrc.d/evil.sh", ".bashrc.d/evil.sh", "sh"),
    (f"echo '{RUNS}' >> ~/.bash_aliases", ".bash_aliases", "sh"),
    (f"printf '%s\\n' '{RUNS}' | tee ~/.bash_completion", ".bash_completion", "sh"),
    (
        f'mkdir -p ~/{USER_SITE} && echo "{PY_RUNS}" > ~/{USER_SITE}/evil.pth',
        f"{USER_SITE}/evil.pth",
        "py",
    ),
    ("mkdir -p ~/.gradle/init.d && cp src/notes.txt ~/.gradle/init.d/x.gradle", ".gradle", ""),
    ("mkdir -p ~/.cargo && printf '[build]\\n' > ~/.cargo/config.toml", ".cargo/config.toml", ""),
    (
        "mkdir -p ~/.ipython/profile_default/startup && "
        "cp payload.py ~/.ipython/profile_default/startup/00-evil.py",
        ".ipython/profile_default/startup/00-evil.py",
        "ipy",
    ),
    ("echo 'silent !touch ~/pwned' > ~/.vimrc", ".vimrc", "vim"),
    ("echo 'shell touch ~/pwned' | dd of=../home/.gdbinit", ".gdbinit", "gdb"),
    ("echo 'LD_PRELOAD DEFAULT=/tmp/e.so' > ~/.pam_environment", ".pam_environment", ""),
    ("cp payload.sh ~/.xprofile", ".xprofile", ""),
    (
        'mkdir -p ~/.docker && echo \'{"credHelpers": {"x": "evil"}}\' > ~/.docker/config.json',
        ".docker/config.json",
        "",
    ),
    # three of our own: a relative write after a cd, a link then a write through it, and
    # Python's usercustomize (imported at every start, like a .pth)
    (
        f"cd ~ && mkdir -p .bashrc.d && cd .bashrc.d && echo '{RUNS}' > evil.sh",
        ".bashrc.d/evil.sh",
        "sh",
    ),
    (f"ln -s ../home/.bash_aliases al && echo '{RUNS}' >> al", ".bash_aliases", "sh"),
    (
        f"install -D payload.py ~/{USER_SITE}/usercustomize.py",
        f"{USER_SITE}/usercustomize.py",
        "py",
    ),
]
LATER = {"sh": LOGIN_SHELL, "py": PYTHON_START, "gdb": GDB, "vim": VIM, "ipy": IPYTHON, "": ()}


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize(("command", "where", "later"), SHELL, ids=[c for c, _, _ in SHELL])
async def test_a_command_writing_outside_the_workspace_asks(
    tmp_path: Path, command: str, where: str, later: str, mode: Mode
) -> None:
    attack = Attack(command, runs_later(where, LATER[later]))
    decision = await prove(tmp_path, attack, rules(allow=BROAD, deny=()), mode)
    assert decision.kind == "ask", decision
    assert decision.step is Step.OUTSIDE, decision
    assert decision.every_mode


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize(
    "command",
    [
        # our own variants around the temp-dir exemption and run-time names
        f"TMPDIR=../home/.bashrc.d; mkdir -p $TMPDIR; echo '{RUNS}' > $TMPDIR/evil.sh",
        f"mkdir -p ../home/.bashrc.d; echo '{RUNS}' > \"$HOME/.bashrc.d/evil.sh\"",
        f"cd \"$HOME\" && mkdir -p .bashrc.d && echo '{RUNS}' > .bashrc.d/evil.sh",
    ],
)
async def test_outside_writes_named_only_at_run_time_ask(
    tmp_path: Path, command: str, mode: Mode
) -> None:
    attack = Attack(command, runs_later(".bashrc.d/evil.sh", LOGIN_SHELL))
    decision = await prove(tmp_path, attack, rules(allow=BROAD, deny=()), mode)
    assert decision.kind == "ask", decision
    assert decision.every_mode, decision


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
async def test_write_file_through_a_link_in_the_workspace_asks(tmp_path: Path, mode: Mode) -> None:
    """``aliaslink`` in the workspace points at ``~/.bash_aliases``: the path is judged where
    it leads."""
    attack = Attack("write_file aliaslink", runs_later(".bash_aliases", LOGIN_SHELL))
    decision = await prove(
        tmp_path,
        attack,
        rules(allow=BROAD, deny=()),
        mode,
        tool="write_file",
        arguments={"path": "aliaslink", "content": RUNS + "\n"},
    )
    assert decision.step is Step.OUTSIDE, decision


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
async def test_edit_file_outside_asks(tmp_path: Path, mode: Mode) -> None:
    lab = make_lab(tmp_path, "edit")
    (lab.home / ".vimrc").write_text('" mine\n')
    with home_of(lab):
        decision = decide(
            pipeline(lab, rules(allow=BROAD, deny=()), mode),
            "edit_file",
            {"path": "~/.vimrc", "old_string": '" mine', "new_string": "silent !touch ~/pwned"},
        )
    assert decision.kind == "ask", decision
    assert decision.step is Step.OUTSIDE, decision


@pytest.mark.parametrize(("where", "content", "later"), PLANTED, ids=IDS)
async def test_a_rule_that_names_the_path_allows_it_and_the_plant_is_real(
    tmp_path: Path, where: str, content: str, later: tuple[str, ...]
) -> None:
    """The write_file attacks are real: with a rule naming the directory, write_file plants
    the file and the later program (the user's next login shell, python3…) runs it. A bare
    ``write_file`` or ``write_file(**)`` does not name it (above)."""
    lab = make_outside_lab(tmp_path, "named")
    top = where.split("/", 1)[0]
    ruleset = rules(allow=(f"write_file(~/{top}/**)", f"write_file(~/{top})"), deny=())
    with home_of(lab):
        policy = pipeline(lab, ruleset, Mode.DEFAULT)
        arguments = {"path": f"~/{where}", "content": content + "\n"}
        assert decide(policy, "write_file", arguments).kind == "allow"
        outcome = await through_agent(lab, policy, "write_file", arguments)
    assert outcome.ran, outcome.text
    assert runs_later(where, later).seen(lab, {}, "")


def test_the_lab_home_really_runs_what_is_planted(tmp_path: Path) -> None:
    """Control: the later programs run a plant when it is there (so 'nothing ran' means
    something)."""
    lab = make_outside_lab(tmp_path, "control")
    (lab.home / ".bashrc.d").mkdir()
    (lab.home / ".bashrc.d" / "x.sh").write_text(RUNS + "\n")
    run_later(lab, LOGIN_SHELL)
    assert (lab.home / "pwned").exists()
    (lab.home / "pwned").unlink()
    site = lab.home / USER_SITE
    site.mkdir(parents=True)
    (site / "x.pth").write_text(PY_RUNS + "\n")
    run_later(lab, PYTHON_START)
    assert (lab.home / "pwned").exists()


def test_everyday_writes_inside_stay_allowed_in_accept_edits(tmp_path: Path) -> None:
    lab = make_outside_lab(tmp_path, "everyday")
    with home_of(lab):
        policy = pipeline(lab, rules(allow=BROAD, deny=()), Mode.ACCEPT_EDITS)
        for command in (
            "echo hi > notes.txt",
            "mkdir -p build && cp src/app.py build/",
            "cd src && echo x > out.txt",
            "echo x 2>/dev/null > /dev/stderr",
            "printf x | tee build.log >/dev/null",
        ):
            decision = decide(policy, "run_shell", {"command": command})
            assert decision.kind == "allow", (command, decision)
        assert decide(policy, "write_file", {"path": "src/new.py"}).kind == "allow"
