"""The git-config reader against the real git: for every config, the entries ``gitconfig.parse``
sees are the entries ``git config --file F --list`` prints — or the reader says it does not
understand the file, which its callers treat as a config that runs code. Generated configs
(hypothesis, from the fragments that matter to git's parser: brackets, quotes, backslashes,
comments, ``\\r``, ``\\x0c``, ``\\x1e``, ``\\x0b``, ``\\x85``, a BOM, NUL) and hostile
hand-written ones, including the splits Python's ``splitlines()`` makes and git does not."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.sandbox import gitconfig

FRAGMENTS = [
    b"[", b"]", b'"', b"\\", b"\n", b"\r", b"\r\n", b" ", b"\t", b"#", b";", b"=", b".",
    b"-", b"a", b"B", b"k", b"1", b"x", b"\x0c", b"\x1e", b"\x1c", b"\x0b", b"\x85", b"\0",
    b"\xef\xbb\xbf", b"\xef", b"\xc3\xa9", b"[core]", b'[remote "o"]', b"[a.B]",
    b"\tfsmonitor = ", b"url = x", b"name", b"!sh", b'"a b"', b"\\n", b"\\t", b"\\\n",
    b"[alias]", b"[user]", b"[include]", b"path = y",
]  # fmt: skip
_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "HOME": "/nonexistent",
    "LC_ALL": "C",
}

HOSTILE = [
    # python's splitlines() splits on these, git does not: each hides a key in a comment
    b"[alias]\n; \x1e[user]\n\tname = !touch PWNED\n",
    b"[pager]\n# x\x1e[core]\n\tworktree = touch PWNED\n",
    b'[pager]\n# x\x0c[remote "o"]\n\tfetch = touch PWNED\n',
    b'[alias]\n#\x1c[branch "m"]\n\tmerge = !touch PWNED\n',
    b"[alias]\n#\x1d[user]\n\temail = !touch PWNED\n",
    b"[alias]\n#\x85[user]\n\tname = !x\n",
    b"[alias]\n#\xe2\x80\xa8[user]\n\tname = !x\n",
    b"[core]\n\tfsmonitor = a\x0b\n",
    # \r: a line end for python, a blank for git (but \r\n is a newline)
    b"[user]\r[alias]\tname = !x\r\n",
    b"[core]\r\n\tbare = false\r\n[alias]\r\n\tst = status\r\n",
    b"[core]\n\tpager = less\r",
    # NUL, BOM, partial BOM
    b"[core]\n\tbare = false\0\n[alias]\n\tx = !y\n",
    b"\xef\xbb\xbf[core]\n\tfsmonitor = x\n",
    b"\xef\xbb[core]\n\tfsmonitor = x\n",
    b"\xef\xbb\xbf\xef\xbb\xbf[core]\n",
    # odd quoting, escapes, continuation lines
    b'[core]\n\tpager = "less \\\n-R"\n',
    b'[user]\n\tname = "a ; b" # c\n\temail = x\\\n\tfsmonitor = y\n',
    b'[remote "o\\"x"]\n\turl = a\n',
    b'[remote "o" ]\n\turl = a\n',
    b'[remote  "o"]\n\turl = a\n',
    b'[remote\t"o"]\n\turl = a\n',
    b'[remote "o\nx"]\n\turl = a\n',
    b"[Remote.Origin]\n\tURL = a\n",
    b"[core] fsmonitor = x\n",
    b"[core]fsmonitor=x\n",
    b"[core]\n\tfsmonitor\n",
    b"[core]\n\tfsmonitor =\n",
    b"[core]\n\tfs-monitor = x\n",
    b"[core]\n\t1fsmonitor = x\n",
    b'[core]\n\tfsmonitor = "x\n',
    b"[core]\n\tfsmonitor = x\\q\n",
    b"bare = x\n",
    b"[]\n\tx = y\n",
    b"[.]\n\tx = y\n",
    b"[a..b]\n\tx = y\n",
    b"[core\n\tfsmonitor = x\n",
    b"[core]\n\tfsmonitor = x\\",
    b"[core]\n\tfsmonitor = x",
    b"[core]\n\tbare\t=\tfalse ; a\n",
    b"[core]\n\tbare = fa\\tlse\n",
    b"[include]\n\tpath = other\n",
    b'[includeIf "gitdir:/x/"]\n\tpath = other\n',
    b"[core]\n\t\xc3\xa9 = x\n",
    b'[remote "\xc3\xa9"]\n\turl = x\n',
]


def _git_entries(path: Path) -> list[gitconfig.Entry] | None:
    done = subprocess.run(
        ["git", "config", "--file", str(path), "--list", "-z"],
        capture_output=True,
        env=_ENV,
        timeout=30,
        check=False,
    )
    if done.returncode != 0:
        return None
    out: list[gitconfig.Entry] = []
    for record in done.stdout.split(b"\0")[:-1]:
        key, newline, value = record.partition(b"\n")
        text = value.decode("utf-8", errors="surrogateescape") if newline else None
        out.append((key.decode("utf-8", errors="surrogateescape"), text))
    return out


def _agrees(tmp: Path, data: bytes) -> str:
    """``same``, ``refused`` (the reader does not understand it: runs code) — or a failure."""
    path = tmp / "config"
    path.write_bytes(data)
    theirs = _git_entries(path)
    try:
        ours = gitconfig.parse(data)
    except gitconfig.NotUnderstood:
        return "refused"
    assert theirs is not None, f"git refuses {data!r}, the reader reads {ours}"
    assert ours == theirs, f"{data!r}: git {theirs}, reader {ours}"
    return "same"


@pytest.mark.parametrize("data", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_configs_read_as_git_reads_them(tmp_path: Path, data: bytes) -> None:
    verdict = _agrees(tmp_path, data)
    if verdict == "same" and b"\0" not in data:
        entries = gitconfig.parse(data)
        # and a key outside the allow-list is never judged harmless
        unsafe = [k for k, v in entries if gitconfig.entry_runs_code(k, v)]
        assert (gitconfig.runs_code(data) is None) == (not unsafe)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=24))
def test_generated_configs_read_as_git_reads_them(tmp_path: Path, parts: list[bytes]) -> None:
    _agrees(tmp_path, b"".join(parts))


def test_the_reader_refuses_only_what_git_refuses_or_a_nul(tmp_path: Path) -> None:
    """Not understanding is safe but must stay rare: among configs git reads, the reader
    refuses only those holding a NUL byte."""
    for data in HOSTILE:
        path = tmp_path / "config"
        path.write_bytes(data)
        if _git_entries(path) is None:
            continue
        try:
            gitconfig.parse(data)
        except gitconfig.NotUnderstood:
            assert b"\0" in data, data


@pytest.mark.parametrize(
    "data",
    [
        b"[alias]\n; \x1e[user]\n\tname = !touch PWNED\n",
        b"[pager]\n# x\x1e[core]\n\tworktree = touch PWNED\n",
        b'[pager]\n# x\x0c[remote "o"]\n\tfetch = touch PWNED\n',
        b'[alias]\n#\x1c[branch "m"]\n\tmerge = !touch PWNED\n',
        b"[user]\r[alias]\tname = !x\r\n",
    ],
)
def test_a_key_hidden_by_a_line_split_is_seen(data: bytes) -> None:
    """Each of these passed the old check (``splitlines()`` put the key in ``[user]``,
    ``[core]``, ``[remote]`` or ``[branch]``); git reads an alias or a pager."""
    found = gitconfig.runs_code(data)
    assert found is not None
    assert found.startswith(("alias.", "pager.")), found


@pytest.mark.parametrize(
    ("data", "unsafe"),
    [
        (b'[remote "o"]\n\turl = ext::sh -c touch% PWNED\n', "remote.o.url"),
        (b'[remote "o"]\n\turl = evil::x\n', "remote.o.url"),
        (b'[remote "o"]\n\turl = -oProxyCommand=x@h:p\n', "remote.o.url"),
        (b'[remote "o"]\n\tuploadpack = touch PWNED\n', "remote.o.uploadpack"),
        (b'[submodule "s"]\n\tupdate = !touch PWNED\n', "submodule.s.update"),
        (b"[core]\n\tsshCommand = x\n", "core.sshcommand"),
        (b"[credential]\n\thelper = !x\n", "credential.helper"),
        (b'[includeIf "onbranch:main"]\n\tpath = x\n', "includeif.onbranch:main.path"),
    ],
)
def test_values_that_name_a_program_run_code(data: bytes, unsafe: str) -> None:
    assert gitconfig.runs_code(data) == unsafe


def test_what_git_clone_writes_runs_nothing(tmp_path: Path) -> None:
    up = tmp_path / "up"
    env = {**_ENV, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b"}
    env |= {"GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], env=env, check=True, capture_output=True, timeout=60)

    git("init", "-q", str(up))
    git("-C", str(up), "commit", "-q", "--allow-empty", "-m", "x")
    for n, extra in enumerate(([], ["--bare"], ["--mirror"], ["--depth=1", "--no-local"])):
        target = tmp_path / f"clone{n}"
        git("clone", "-q", *extra, f"file://{up}", str(target))
        bare = extra[:1] in (["--bare"], ["--mirror"])
        config = target / "config" if bare else target / ".git/config"
        assert gitconfig.runs_code(config.read_bytes()) is None, config.read_text()
    git("init", "-q", "--bare", str(tmp_path / "x.git"))
    assert gitconfig.runs_code((tmp_path / "x.git/config").read_bytes()) is None


def test_only_new_entries_of_a_changed_config_are_judged() -> None:
    mine = b"[core]\n\tpager = less -R\n[alias]\n\tlg = log --graph\n"
    added = mine + b'[remote "origin"]\n\turl = https://example.org/x.git\n'
    assert gitconfig.runs_code(added, before=mine) is None
    assert gitconfig.runs_code(mine + b"[core]\n\tfsmonitor = x\n", before=mine) == "core.fsmonitor"
    # the same key again with another value is new
    assert gitconfig.runs_code(mine + b"[core]\n\tpager = x\n", before=mine) == "core.pager"
