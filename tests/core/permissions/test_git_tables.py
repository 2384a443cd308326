"""Every row of git's option tables, judged (issue 37, method 1).

For each subcommand and each option its table lists: a harmless option stays allowed under the
subcommand's rule (``run_shell(git log:*)``); an option that writes a file is judged as a write
of that file (it asks in default mode, names the file and the option); an option that runs a
program or takes configuration makes the command not understood (it asks, and says which
option and what it runs); an option that reads a file is a read of it. An option the table does
not list asks. The tables are checked against the real git in
``red_team/test_git_differential.py``.
"""

from __future__ import annotations

import os
import string
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet, Step
from agent_tui.core.permissions.shell import analyse
from agent_tui.core.permissions.shell.git_options import BUILTIN_STRATEGIES, Options
from agent_tui.core.permissions.shell.git_tables import GLOBAL, SUBCOMMANDS
from agent_tui.core.tools.builtin import default_registry

VERB = {
    "stash": "push",
    "notes": "add",
    "worktree": "list",
    "remote": "show",
    "submodule": "status",
    "bisect": "log",
    "bundle": "verify",
    "reflog": "show",
}
"""The verb each option is tried with (one whose base form writes nothing)."""
ASKS_ANYWAY = frozenset({"apply", "am"})
"""Their base form writes the files a patch names, which asks in every mode."""
WRITES_CONFIG = frozenset({"config"})


def _kind(table: Options, name: str) -> str:
    if name in table.runs or name in table.code:
        return "runs"
    if name in table.writes:
        return "writes"
    if name in table.writes_dir:
        return "writes_dir"
    if name in table.reads:
        return "reads"
    return "harmless"


def _rows() -> list[object]:
    rows = []
    for sub, table in sorted(SUBCOMMANDS.items()):
        for name in sorted(table.known):
            rows.append(pytest.param(sub, name, id=f"{sub} {name}"))
    return rows


def _form(table: Options, name: str, value: str) -> str:
    arity = table.arity(name)
    if arity == "flag":
        return name
    if arity == "valued":
        return f"{name} {value}"
    return f"{name}={value}" if name.startswith("--") else f"{name}{value}"


def _value(table: Options, name: str) -> str:
    if name in ("-s", "--strategy") and "--strategy" in table.valued:
        return "ort"
    if name in table.writes or name in table.writes_dir:
        return "out.txt"
    if name in table.reads:
        return "in.txt"
    return "v1"


def _command(sub: str, name: str) -> tuple[str, Options]:
    table = SUBCOMMANDS[sub]
    verb = VERB.get(sub, "")
    words = ["git", sub, *([verb] if verb else []), _form(table, name, _value(table, name))]
    return " ".join(words), table


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gitrows")
    env = {**os.environ, "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    (root / "a.txt").write_text("a\n")
    return Path(os.path.realpath(root))


def _judge(workspace: Path, command: str, rule: str, mode: Mode) -> tuple[str, str, Step]:
    tool = default_registry().get("run_shell")
    assert tool is not None
    pipeline = PermissionPipeline(workspace, RuleSet(allow=[Rule.parse(rule)]), mode)
    decision = pipeline.judge(tool, {"command": command})
    return decision.kind, decision.reason, decision.step


@pytest.mark.parametrize(("sub", "name"), _rows())
def test_each_option_of_each_subcommand(workspace: Path, sub: str, name: str) -> None:
    command, table = _command(sub, name)
    kind = _kind(table, name)
    a = analyse(command)
    mentioned = [why for why in a.opaque if f" {name}" in why]
    writes = [w for w in a.writes if name in w.how.split()]
    if kind == "runs":
        assert mentioned, (command, a.opaque)
        assert "runs" in mentioned[0]
        decision, reason, _ = _judge(workspace, command, f"run_shell(git {sub}:*)", Mode.DEFAULT)
        assert decision == "ask"
        assert name in reason
        return
    assert not mentioned, (command, a.opaque)
    if kind in ("writes", "writes_dir"):
        assert [w.target.text for w in writes] == ["out.txt"], (command, a.writes)
        assert writes[0].tree == (kind == "writes_dir")
        if sub in ASKS_ANYWAY:
            return
        decision, reason, _ = _judge(workspace, command, f"run_shell(git {sub}:*)", Mode.DEFAULT)
        assert decision == "ask"
        assert "out.txt" in reason, reason
        assert name in reason, reason
        return
    assert not writes, (command, a.writes)
    if kind == "reads":
        assert "in.txt" in [w.text for w in a.reads], (command, a.reads)
    if sub in ASKS_ANYWAY or sub in WRITES_CONFIG:
        return
    decision, reason, _ = _judge(workspace, command, f"run_shell(git {sub}:*)", Mode.ACCEPT_EDITS)
    assert decision == "allow", (command, reason)


def _unknown_short(table: Options) -> str:
    for letter in string.ascii_letters:
        if table.arity("-" + letter) is None:
            return "-" + letter
    raise AssertionError("every letter is an option")


@pytest.mark.parametrize("sub", sorted(SUBCOMMANDS))
def test_an_option_the_table_does_not_list_asks(workspace: Path, sub: str) -> None:
    table = SUBCOMMANDS[sub]
    verb = VERB.get(sub, "")
    prefix = f"git {sub}" + (f" {verb}" if verb else "")
    for option in ("--zz-not-an-option", _unknown_short(table)):
        command = f"{prefix} {option}"
        a = analyse(command)
        assert any(option in why and "does not know" in why for why in a.opaque), a.opaque
        decision, reason, _ = _judge(workspace, command, "run_shell(git:*)", Mode.ACCEPT_EDITS)
        assert decision == "ask"
        if sub not in ASKS_ANYWAY:  # there the write of the patch's files comes first
            assert f"git {sub}" in reason, reason
            assert option in reason, reason
            assert "does not know" in reason, reason


@pytest.mark.parametrize("name", sorted(GLOBAL.known))
def test_each_global_option(workspace: Path, name: str) -> None:
    arity = GLOBAL.arity(name)
    value = {"-C": "sub", "--git-dir": ".git", "--work-tree": "."}.get(name, "v1")
    form = name if arity == "flag" else f"{name} {value}"
    command = f"git {form} status"
    a = analyse(command)
    kind, reason, step = _judge(workspace, command, "run_shell(git:*)", Mode.ACCEPT_EDITS)
    if name in GLOBAL.runs or name == "--bare":
        assert not a.understood
        assert kind == "ask"
        assert name in reason
    elif name in ("-c", "--config-env"):
        assert kind == "ask", reason
        assert step is Step.ENVIRONMENT, reason
    elif name == "-C":
        (workspace / "sub").mkdir(exist_ok=True)
        assert kind == "allow", reason  # a directory of the workspace's own repository
    else:
        assert a.understood, a.opaque
        assert kind == "allow", reason


def test_an_unknown_subcommand_asks(workspace: Path) -> None:
    for command in ("git frobnicate", "git st", "git lg --all", "git $sub log"):
        kind, _, _ = _judge(workspace, command, "run_shell(git:*)", Mode.ACCEPT_EDITS)
        assert kind == "ask", command


def test_merge_strategies_git_does_not_implement_run_a_program(workspace: Path) -> None:
    for sub in ("merge", "rebase", "cherry-pick", "revert", "pull"):
        for strategy in sorted(BUILTIN_STRATEGIES):
            assert analyse(f"git {sub} -s {strategy} main").understood or sub == "cherry-pick"
        a = analyse(f"git {sub} --strategy=evil main")
        assert any("git-merge-evil" in why for why in a.opaque), (sub, a.opaque)


def test_there_is_a_table_for_every_subcommand_a_user_would_allow() -> None:
    wanted = [
        *("status", "log", "show", "diff", "grep", "blame", "branch", "tag", "remote", "config"),
        *("rev-parse", "ls-files", "ls-tree", "cat-file", "describe", "shortlog", "reflog"),
        *("stash", "add", "commit", "checkout", "switch", "restore", "reset", "rm", "mv"),
        *("apply", "am", "archive", "clone", "fetch", "pull", "push", "merge", "rebase"),
        *("cherry-pick", "revert", "init", "worktree", "submodule", "clean", "bisect", "notes"),
        *("format-patch", "for-each-ref", "show-ref", "symbolic-ref", "name-rev", "merge-base"),
        *("count-objects", "fsck", "gc", "help", "version"),
    ]
    assert not [sub for sub in wanted if sub not in SUBCOMMANDS]
