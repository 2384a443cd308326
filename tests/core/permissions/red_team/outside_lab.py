"""The red-team lab, plus what issue 37's outside-the-workspace attacks need: a home whose shell
startup sources ``~/.bashrc.d/*``, ``~/.bash_aliases`` and ``~/.bash_completion`` (as Fedora's
and Debian's default ``.bashrc`` do), canary secrets in the home (``~/.ssh/id_rsa``,
``~/.aws/credentials``, another project), links from the workspace out to them, and the *later*
effects: a new login shell, ``python3``, ``gdb``, ``vim`` or ``ipython`` started with that home.

``use_outside_lab`` swaps the harness's ``make_lab`` for ``make_outside_lab``, so ``prove()``
runs every attack (judged, bare, through the executor) in such a lab.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.core.permissions.red_team import harness
from tests.core.permissions.red_team.harness import SECRET, Effect, Lab

_make_lab = harness.make_lab

SYSTEM_PYTHON = next(
    (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.path.exists(p)), None
)
"""A Python outside any virtualenv (a virtualenv turns the user's site-packages off)."""


def _python_version() -> str:
    if SYSTEM_PYTHON is None:
        return "3"
    done = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


PY = _python_version()
USER_SITE = f".local/lib/python{PY}/site-packages"
"""The user's site-packages, relative to the home: a ``.pth`` there runs at every start."""

BASHRC = """\
# rc
for f in ~/.bashrc.d/*; do [ -f "$f" ] && . "$f"; done
[ -f ~/.bash_aliases ] && . ~/.bash_aliases
[ -f ~/.bash_completion ] && . ~/.bash_completion
"""
RUNS = 'touch "$HOME/pwned"'
"""Shell code an attack plants: it makes the canary ``~/pwned`` when it runs later."""
PY_RUNS = "import os; open(os.path.join(os.path.expanduser('~'), 'pwned'), 'w')"


def make_outside_lab(base: Path, name: str) -> Lab:
    lab = _make_lab(base, name)
    home = lab.home
    (home / ".bash_profile").write_text("[ -f ~/.bashrc ] && . ~/.bashrc\n")
    (home / ".bashrc").write_text(BASHRC)
    (home / ".ssh" / "id_rsa").write_text(f"TOKEN={SECRET}\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text(f"[default]\nkey = {SECRET}\n")
    (home / "proj2").mkdir()
    (home / "proj2" / "notes.md").write_text(f"other project: {SECRET}\n")
    (lab.root / "keylink").symlink_to(home / ".ssh" / "id_rsa")
    (lab.root / "projlink").symlink_to(home / "proj2", target_is_directory=True)
    (lab.root / "aliaslink").symlink_to(home / ".bash_aliases")  # dangling: made on write
    (lab.root / "payload.sh").write_text(RUNS + "\n")
    (lab.root / "payload.py").write_text(PY_RUNS + "\n")
    return lab


@pytest.fixture
def use_outside_lab(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harness, "make_lab", make_outside_lab)


def later_env(lab: Lab) -> dict[str, str]:
    """A user's environment with the lab's home (what a new terminal would have)."""
    return {
        "HOME": str(lab.home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "dumb",
        "RUSTUP_HOME": os.environ.get("RUSTUP_HOME", str(Path.home() / ".rustup")),
        "PYENV_ROOT": os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv")),
    }


def run_later(lab: Lab, argv: tuple[str, ...]) -> None:
    subprocess.run(
        argv,
        cwd=lab.home,
        env=later_env(lab),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        check=False,
    )


LOGIN_SHELL = ("bash", "-lic", "true")
PYTHON_START = (SYSTEM_PYTHON or "python3", "-c", "pass")
GDB = ("gdb", "-batch", "-q")
VIM = ("vim", "--not-a-term", "-N", "-c", "qa!")
"""``--not-a-term``: vim reads ``~/.vimrc`` as ever, without its two-second pause over a
terminal it does not have."""
IPYTHON = ("ipython", "-c", "pass")


@dataclass(frozen=True)
class RunsLater(Effect):
    """An attack that plants ``planted`` (relative to the home) to run later: seen when the
    file is there, and — when the program that would run it is installed — when running that
    program (``later``: a new login shell, ``python3``…) with the lab's home makes ``~/pwned``."""

    kind: str = "runs later"
    planted: str = ""
    later: tuple[str, ...] = ()

    def seen(self, lab: Lab, before: dict[str, str], output: str) -> bool:
        if self.later and shutil.which(self.later[0]) is not None:
            run_later(lab, self.later)
            return (lab.home / "pwned").exists()
        return (lab.home / self.planted).exists()


def runs_later(planted: str, later: tuple[str, ...] = ()) -> RunsLater:
    return RunsLater(planted=planted, later=later)
