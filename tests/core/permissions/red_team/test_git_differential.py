"""git's option tables against the real git (issue 37, method 10).

The tables say how each option takes its value. If a table says an option takes the next word
and git does not, the analysis skips a word that git reads as an option — ``git log
--max-parents --output=F`` would hide a write (git 2.39 takes ``--max-parents`` only as
``--max-parents=N``, rejects it, yet opens F first). So, for every option a table says takes
the next word, git must accept the option and take the next word: probed with
``git SUB OPT --zzqq-marker``, git must neither reject OPT nor complain about the marker as
an argument. And for the options of the commands that print diffs, which a table says take no
separate value, ``git SUB OPT --output=F`` must make git write F (so OPT left ``--output=F``
alone).

Each probe runs the real git in a scratch repository with a private HOME, no system
configuration, and ``cat`` as pager and ``false`` as editor.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions.shell.git_options import Options
from agent_tui.core.permissions.shell.git_tables import (
    REFLOG_OTHERS,
    STASH_LIST,
    STASH_SHOW,
    SUBCOMMANDS,
)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

MARK = "--zzqq-marker"
VERB = {
    "stash": ["push"],
    "notes": ["add"],
    "worktree": ["add"],
    "remote": ["add"],
    "submodule": ["update"],
    "bisect": ["start"],
    "bundle": ["create"],
}
"""Where options belong to a verb: the verb they are probed with."""
TAIL = {
    "blame": ["a.txt"],
    "annotate": ["a.txt"],
    "archive": ["HEAD"],
    "ls-tree": ["HEAD"],
    "diff-index": ["HEAD"],
    "diff-tree": ["HEAD"],
    "range-diff": ["HEAD~1..HEAD", "HEAD~1..HEAD"],
    "config": ["--list"],
    "cherry-pick": ["HEAD"],
    "revert": ["HEAD"],
    "shortlog": ["HEAD"],
    "rev-list": ["HEAD"],
    "cat-file": ["-p", "HEAD"],
    "bundle": ["b.bundle", "HEAD"],
}
"""Operands after the marker, for subcommands that refuse to run without them."""
PER_VERB = {
    ("notes", "add"): "-m --message -F --file -C --reuse-message -c --reedit-message",
    ("worktree", "add"): "-b -B --reason",
    ("remote", "add"): "-t -m",
    ("bisect", "start"): "--term-old --term-new --term-bad --term-good",
    ("bundle", "create"): "--version",
}
"""Options that belong to one verb only: probed with that verb (the others refuse them)."""
OTHER_VERBS = {
    ("notes", "merge"): "-s --strategy",
    ("worktree", "prune"): "--expire",
}
ALSO = [("stash", ["list"], STASH_LIST), ("stash", ["show"], STASH_SHOW)]
ALSO += [("reflog", ["expire"], REFLOG_OTHERS)]
EXPECTED_ODD = {
    ("cat-file", "--path"): "needs --filters or --textconv, which run programs",
    ("config", "--default"): "only with --get",
    ("symbolic-ref", "-m"): "needs a name and a ref",
    ("submodule", "--name"): "only for submodule add",
    ("submodule", "--reference"): "only for submodule add/update (checked with update)",
    ("submodule", "-b"): "only for submodule add/set-branch",
    ("submodule", "--branch"): "only for submodule add/set-branch",
    ("submodule", "-n"): "only for submodule summary",
    ("submodule", "--summary-limit"): "only for submodule summary",
    ("submodule", "--depth"): "only for submodule add/update",
    ("submodule", "-j"): "only for submodule update",
    ("submodule", "--jobs"): "only for submodule update",
    ("tag", "-m"): "needs a tag name",
    ("tag", "--message"): "needs a tag name",
    ("tag", "-F"): "needs a tag name",
    ("tag", "--file"): "needs a tag name",
    ("tag", "-u"): "needs a tag name",
    ("tag", "--local-user"): "needs a tag name",
    ("cherry-pick", "--strategy"): "it took the marker: git-merge---zzqq-marker",
    ("revert", "--strategy"): "it took the marker: git-merge---zzqq-marker",
    ("annotate", "-L"): "needs a range; blame's -L is checked with a real one below",
    ("blame", "-L"): "needs a range; checked with a real one below",
    ("rev-list", "-L"): "only with log",
    ("shortlog", "-L"): "only with log",
    ("notes", "--ref"): "an option before the verb: git notes --ref REF add",
    ("rev-list", "--decorate-refs"): "log only",
    ("rev-list", "--decorate-refs-exclude"): "log only",
}
"""(subcommand, option): probes whose git output is not a verdict, and why."""


def _env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "GIT_EDITOR": "false",
        "EDITOR": "false",
        "LANG": "C",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
    }


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("gitprobe")
    home = base / "home"
    home.mkdir()
    env = _env(home)
    repo = base / "tmpl"

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    subprocess.run(["git", "init", "-q", str(repo)], env=env, check=True)
    (repo / "a.txt").write_text("a\n")
    (repo / "b.txt").write_text("b\n")
    git("add", ".")
    git("commit", "-qm", "one")
    (repo / "a.txt").write_text("a2\n")
    git("commit", "-qam", "two")
    return repo, env


def _probes() -> list[tuple[str, list[str], str, Options]]:
    out: list[tuple[str, list[str], str, Options]] = []
    tables = [(sub, VERB.get(sub, []), table) for sub, table in SUBCOMMANDS.items()]
    for sub, verb, table in [*tables, *ALSO]:
        if sub == "help":
            continue
        for name in sorted(table.valued - frozenset(table.runs) - table.code):
            chosen = verb
            for (owner, this), names in {**PER_VERB, **OTHER_VERBS}.items():
                if owner == sub and name in names.split():
                    chosen = [this]
            out.append((sub, chosen, name, table))
    return out


def _rejects(text: str, name: str) -> bool:
    stem = name.lstrip("-")
    low = text.lower() + "\n"
    return any(
        pattern in low
        for pattern in (
            f"unrecognized argument: {name}\n",
            f"unknown option `{stem}'",
            f"unknown switch `{stem}'",
            f"invalid option: {name}\n",
        )
    )


def _marker_as_argument(text: str) -> bool:
    low = text.lower()
    return any(
        pattern in low
        for pattern in (
            "unrecognized argument: --zzqq",
            "unknown option `zzqq",
            "unknown option `--zzqq",
            "invalid option: --zzqq",
            "ambiguous argument '--zzqq",
            "bad revision '--zzqq",
            "pathspec '--zzqq",
        )
    )


def _run(repo: Path, env: dict[str, str], args: list[str]) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    return (done.stdout + done.stderr).decode(errors="replace")


def test_options_that_take_the_next_word_take_it(
    template: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """For every table row with a separate value: git accepts the option and takes the next
    word (the marker), whatever else it then says about it."""
    repo, env = template
    work = tmp_path / "w"
    shutil.copytree(repo, work, symlinks=True)
    wrong: list[str] = []
    checked = 0
    for sub, verb, name, _ in _probes():
        if (sub, name) in EXPECTED_ODD:
            continue
        output = _run(work, env, [sub, *verb, name, MARK, *TAIL.get(sub, [])])
        checked += 1
        if _rejects(output, name):
            wrong.append(f"git {sub} {' '.join(verb)} {name}: git refuses the option")
        elif _marker_as_argument(output):
            wrong.append(f"git {sub} {' '.join(verb)} {name}: git left the next word alone")
    assert checked > 400
    assert not wrong, "\n".join(wrong)


DIFF_COMMANDS = {
    "log": ["-1"],
    "show": [],
    "diff": ["HEAD~1"],
    "whatchanged": ["-1"],
    "format-patch": ["--stdout", "-1"],
    "diff-tree": ["HEAD"],
}


def test_flags_of_the_diff_commands_leave_the_next_word_alone(
    template: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """``git SUB FLAG --output=F``: git writes F, so FLAG did not take ``--output=F`` as its
    value (where the table says it takes none). A flag git refuses is not in the tables; an
    option that takes only an attached value may be refused bare (``--format``)."""
    repo, env = template
    work = tmp_path / "w"
    shutil.copytree(repo, work, symlinks=True)
    wrong: list[str] = []
    for sub, tail in DIFF_COMMANDS.items():
        table = SUBCOMMANDS[sub]
        names = sorted((table.flags | table.optional) - frozenset(table.runs))
        for index, name in enumerate(names):
            if name in ("-h", "--help", "--stdin"):
                continue
            target = tmp_path / f"out-{sub}-{index}"
            output = _run(work, env, [sub, name, f"--output={target}", *tail])
            if _rejects(output, name):
                if name in table.optional:
                    continue  # only NAME=VALUE: bare, git refuses it (so it took nothing)
                wrong.append(f"git {sub} {name}: git refuses it")
            elif not target.exists() and "requires" not in output and "without" not in output:
                wrong.append(f"git {sub} {name}: took --output=F as its value? {output[:120]}")
    assert not wrong, "\n".join(wrong)


def test_blame_line_ranges_take_the_next_word(
    template: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, env = template
    for sub in ("blame", "annotate"):
        output = _run(repo, env, [sub, "-L", "1,1", "a.txt"])
        assert "a2" in output, output
