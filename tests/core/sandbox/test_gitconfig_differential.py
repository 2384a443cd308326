"""The git-config reader (``sandbox.gitconfig``) against the real git (issue 37, method 10).

For each config text — hand-written tricks and a Hypothesis grammar of sections, keys, values,
comments, quotes, escapes, continuations and the control characters Python's ``splitlines``
takes for line ends (``\\f``, ``\\v``, ``\\x1c``–``\\x1e``, ``\\x85``, ``\\u2028``) — ``git config
--file F --list -z`` and ``entries`` must agree: the same keys with the same values in the
same order whenever git reads the file, and ``ConfigError`` whenever git refuses it. Then
``git_config_runs_code`` sees every key git would act on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_tui.core.sandbox.aftercheck import git_config_runs_code
from agent_tui.core.sandbox.gitconfig import ConfigError, entries

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

_DIR = Path(tempfile.mkdtemp(prefix="gitconfig-diff-"))
_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(_DIR), "LANG": "C"}


def _git(text: str) -> list[tuple[str, str | None]] | None:
    """What git reads in ``text``, or None when git refuses it."""
    path = _DIR / "config"
    path.write_bytes(text.encode("utf-8"))
    done = subprocess.run(
        ["git", "config", "--file", str(path), "--list", "-z", "--no-includes"],
        env={**_ENV, "GIT_CONFIG_NOSYSTEM": "1"},
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        return None
    out: list[tuple[str, str | None]] = []
    for record in done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]:
        name, newline, value = record.partition("\n")
        out.append((name, value if newline else None))
    return out


def _ours(text: str) -> list[tuple[str, str | None]] | None:
    try:
        return [(entry.name, entry.value) for entry in entries(text)]
    except ConfigError:
        return None


def _agree(text: str) -> None:
    theirs = _git(text)
    ours = _ours(text)
    assert ours == theirs, (text, theirs, ours)
    if theirs is None:  # git refuses it: the check does not call it harmless
        assert git_config_runs_code(text) is not None


HIDING = [
    '[alias]\n# a comment\x0c[remote "o"]\n\turl = !touch pwned\n',
    '[alias]\n# a comment\x1e[remote "o"]\n\tfetch = !touch pwned\n',
    "[alias]\n; x\x0b[user]\n\tname = !touch pwned\n",
    '[alias]\n# \x85[remote "o"]\n\turl = !touch pwned\n',
    '[alias]\n# \u2028[remote "o"]\n\turl = !touch pwned\n',
    '[alias]\n# \x1c[remote "o"]\n\turl = !touch pwned\n',
    '[alias]\n# \x1d[remote "o"]\n\turl = !touch pwned\n',
]
"""A comment that ``splitlines`` would end early, showing a section git never reads."""

TRICKS = [
    "",
    "\ufeff[core]\n\tbare = false\n",
    "[core]\r\n\tbare = false\r\n",
    "[core]\r\tbare = false\n",
    "[core] bare = false ; comment\n",
    '[core]\n\tpager = "less # not a comment"\n',
    "[core]\n\tpager = less \\\n -R\n",
    '[core]\n\tpager = "a\\tb\\"c\\\\d\\ne"\n',
    "[core]\n\tpager = \\q\n",
    '[core]\n\tpager = "unclosed\n',
    '[remote "o\\"x"]\n\turl = y\n',
    '[remote  "o"]\n\turl = y\n',
    '[remote "o" ]\n\turl = y\n',
    '[remote\n"o"]\n\turl = y\n',
    "[Branch.MAIN]\n\tremote = o\n",
    "[CORE]\n\tFsMonitor = x\n",
    "[core]\n\tbare\n",
    "[core]\n\tbare =\n",
    "[core]\n\tbare=   spaced   value   \n",
    "key = value\n",
    "[]\n\ta = b\n",
    "[core\n",
    "[co re]\n",
    "[core]\n\t1key = x\n",
    "[core]\n\tke_y = x\n",
    "[core]\n\tkey x\n",
    "[core]\x0c\n\tbare = false\n",
    "[core]\n\x0cbare = false\n",
    "[core]\n\tbare = false\x0c\n",
    "[core]\n\tbare = a\x0bb\n",
    "[core]\n\tbare = false # x \\\n\tfsmonitor = y\n",
    '[include]\n\tpath = "x" # y\n',
    "[core] ; c\n[alias] x = y\n",
    "[a.b.c]\n\tk = v\n",
    '[a "b.c"]\n\tk = v\n',
]


@pytest.mark.parametrize("text", HIDING + TRICKS)
def test_hand_written_configs(text: str) -> None:
    _agree(text)


@pytest.mark.parametrize("text", HIDING)
def test_a_comment_hides_no_key_from_the_check(text: str) -> None:
    key = git_config_runs_code(text)
    assert key is not None
    assert key.startswith("alias.")


_PIECES = st.sampled_from(
    [
        "[core]",
        "[alias]",
        '[remote "o"]',
        '[remote "a\\"b"]',
        "[branch.Main]",
        "[CoRe]",
        "[",
        "]",
        '"',
        "\\",
        "\n",
        "\r\n",
        "\r",
        "\t",
        " ",
        "#",
        ";",
        "=",
        "bare",
        "url",
        "fsmonitor",
        "hooksPath",
        "x",
        "1",
        "-",
        ".",
        "\x0c",
        "\x0b",
        "\x1c",
        "\x1d",
        "\x1e",
        "\x85",
        "\u2028",
        "\\n",
        "\\t",
        "\ufeff",
    ]
)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(st.lists(_PIECES, max_size=24).map("".join))
@example("[core]\n#\x0c[alias]\nbare = x\n")
def test_random_configs_agree_with_git(text: str) -> None:
    _agree(text)


def test_the_hidden_alias_is_real(tmp_path: Path) -> None:
    """The first trick, for real: git runs the alias the comment hid from ``splitlines``
    (``git url`` runs it), and the check names it."""
    canary = tmp_path / "PWNED"
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], env=_ENV, check=True)
    text = f'[alias]\n# a note\x0c[remote "o"]\n\turl = !touch {canary}\n'
    with (repo / ".git" / "config").open("a", encoding="utf-8") as handle:
        handle.write(text)
    assert git_config_runs_code(text) == "alias.url"
    legacy = [line.split("#")[0] for line in text.splitlines()]
    assert '[remote "o"]' in legacy  # what the old line splitting saw: remote.o.url
    subprocess.run(["git", "url"], cwd=repo, env=_ENV, capture_output=True, check=False)
    assert canary.exists()
