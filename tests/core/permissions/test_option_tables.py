"""Every row of every option table, judged (issue 37, method 1), and the tables against the
programs' own documentation (method 10).

For each program with a table and each option in it, a command using the option is judged
under the rule ``run_shell(PROGRAM:*)`` with no other rule:

- a harmless option (``SAFE``) or one that reads a file stays allowed, understood;
- an option that writes a file (``WRITE``, ``WRITE_DIR``) is a write: it asks in default mode
  and runs in accept-edits when the file is in the workspace;
- an option that runs a program (``RUNS``) or is not understood (``OPAQUE``) asks in both;
- an option the table does not list asks.

Then, for the programs installed here that read options with GNU ``getopt_long`` (which accepts
unambiguous abbreviations), every table option is in the program's ``--help``; one that is not
(an option of a newer version) must not be a prefix of an option the installed program has,
or the program would read it as that option.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.permissions import Decision, Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.permissions.shell.option_table import Arg, Kind, Opt, Table
from agent_tui.core.permissions.shell.tables import programs, tables
from agent_tui.core.tools.builtin import default_registry

TEMPLATES = {
    "sed": "sed {opt} p src/notes.txt",
    "gawk": "gawk {opt} 1 src/notes.txt",
    "mawk": "mawk {opt} 1 src/notes.txt",
    "awk": "awk {opt} 1 src/notes.txt",
    "tar": "tar {opt} -tf a.tar",
    "ssh": "ssh {opt} host true",
    "scp": "scp {opt} a host:b",
    "rsync": "rsync {opt} a host:b",
    "zip": "zip {opt} a.zip src/notes.txt",
    "pip": "pip {opt} list",
    "npm": "npm test {opt}",
    "pnpm": "pnpm test {opt}",
    "yarn": "yarn test {opt}",
    "make": "make {opt} all",
    "python": "python {opt} -m pytest",
    "pytest": "pytest {opt} tests",
    "date": "date {opt}",
    "man": "man {opt} ls",
    "uniq": "uniq {opt} src/notes.txt",
    "split": "split {opt} src/notes.txt",
    "csplit": "csplit {opt} src/notes.txt 1",
    "shuf": "shuf {opt} src/notes.txt",
    "iconv": "iconv {opt} src/notes.txt",
    "cp": "cp {opt} src/notes.txt copy.txt",
    "mv": "mv {opt} src/notes.txt moved.txt",
    "ln": "ln {opt} src/notes.txt link.txt",
    "install": "install {opt} src/notes.txt installed.txt",
    "gzip": "gzip -c {opt} src/notes.txt",
    "xz": "xz -c {opt} src/notes.txt",
    "bzip2": "bzip2 -c {opt} src/notes.txt",
    "tee": "tee {opt}",
}
"""Where an option goes in a command that is otherwise plain (default: ``PROG OPT src``)."""

VALUES = {
    ("sed", "-e"): "p",
    ("sed", "--expression"): "p",
    ("gawk", "-e"): "1",
    ("gawk", "--source"): "1",
    ("pytest", "-p"): "no:cacheprovider",
    ("pytest", "-o"): "xfail_strict=true",
    ("pytest", "--override-ini"): "xfail_strict=true",
    ("pytest", "--cov-report"): "term",
    ("ssh", "-o"): "BatchMode=yes",
    ("scp", "-o"): "BatchMode=yes",
    ("tar", "-f"): "a.tar",
    ("tar", "--file"): "a.tar",
    ("tar", "--checkpoint-action"): "dot",
    ("mawk", "-W"): "version",
    ("awk", "-W"): "version",
    ("cp", "--backup"): "none",
    ("mv", "--backup"): "none",
    ("ln", "--backup"): "none",
    ("install", "--backup"): "none",
}
"""Values that keep an option harmless where the table checks the value apart."""

JUDGED_APART = {
    ("sed", "-i"),
    ("sed", "--in-place"),
    ("sed", "-f"),
    ("sed", "--file"),
    ("cp", "-b"),
    ("tar", "--remove-files"),
    ("zip", "-m"),
    ("zip", "--move"),
    ("zip", "-x"),
    ("zip", "--exclude"),
    ("zip", "-i"),
    ("zip", "--include"),
    ("rsync", "--remove-source-files"),
    *(("tar", mode) for mode in ("-c", "--create", "-r", "--append", "-u", "--update", "-A")),
    *(("tar", mode) for mode in ("--delete", "--catenate", "--concatenate")),
    *(("tar", mode) for mode in ("-x", "--extract", "--get")),  # its members: redteam3
    ("gawk", "-f"),
    ("gawk", "--file"),
    ("mawk", "-f"),
    ("awk", "-f"),
}
"""Rows whose effect is judged by the program's own reader (covered in test_option_attacks)."""


def _value(program: str, name: str, opt: Opt) -> str:
    if (program, name) in VALUES:
        return VALUES[(program, name)]
    if opt.kind is Kind.READ:
        return "src/notes.txt"
    if opt.kind in (Kind.WRITE, Kind.WRITE_DIR):
        return "out.txt"
    if opt.kind is Kind.RUNS:
        return "./evil.sh"
    return "1"


def _word(program: str, name: str, opt: Opt) -> str:
    if opt.arg is Arg.NONE:
        return shlex.quote(name)
    value = _value(program, name, opt)
    if opt.arg is Arg.OPTIONAL:
        if value == "1" and opt.kind is Kind.SAFE:
            return shlex.quote(name)
        joined = f"{name}={value}" if name.startswith("--") else f"{name}{value}"
        return shlex.quote(joined)
    if name.startswith("--"):
        return shlex.quote(f"{name}={value}")
    return f"{shlex.quote(name)} {shlex.quote(value)}"


def _command(program: str, word: str) -> str:
    template = TEMPLATES.get(program, program + " {opt} src")
    return template.format(opt=word)


ROWS = [
    (program, name, opt)
    for program, table in sorted(tables().items())
    for name, opt in sorted(table.options.items())
    if (program, name) not in JUDGED_APART and name not in ("-NUM", "+")
]


def judge(tmp_path: Path, program: str, command: str, mode: Mode) -> Decision:
    rules = RuleSet(allow=[Rule.parse(f"run_shell({program}:*)")])
    pipeline = PermissionPipeline(tmp_path, rules, mode)
    tool = default_registry().get("run_shell")
    assert tool is not None
    return pipeline.judge(tool, {"command": command})


def test_every_table_program_has_a_judge() -> None:
    known = set(programs())
    missing = [name for name in tables() if name not in known and name != "python"]
    assert not missing
    assert len(ROWS) > 1500, len(ROWS)


@pytest.mark.parametrize(("program", "name", "opt"), ROWS, ids=[f"{p} {n}" for p, n, _ in ROWS])
def test_each_table_row(tmp_path: Path, program: str, name: str, opt: Opt) -> None:
    """In accept-edits (the writes of ``cp``, ``split``… run there), a harmless, reading or
    writing option runs and a running or opaque one asks; in default mode, a writing option
    asks naming its file, and a harmless one decides as the command without it does."""
    command = _command(program, _word(program, name, opt))
    baseline = judge(tmp_path, program, _command(program, ""), Mode.DEFAULT)
    default = judge(tmp_path, program, command, Mode.DEFAULT)
    edits = judge(tmp_path, program, command, Mode.ACCEPT_EDITS)
    where = f"{command!r}: {default.reason} / {edits.reason}"
    if opt.kind in (Kind.SAFE, Kind.READ):
        assert edits.kind == "allow", where
        assert edits.understood, where
        assert default.kind == baseline.kind, where
    elif opt.kind in (Kind.WRITE, Kind.WRITE_DIR):
        assert default.kind == "ask", where
        assert "out.txt" in default.reason, where
        assert edits.kind == "allow", where
    else:
        assert default.kind == "ask", where
        assert edits.kind == "ask", where
        assert name in edits.reason or program in edits.reason, where


@pytest.mark.parametrize("program", sorted(tables()))
def test_an_unknown_option_asks(tmp_path: Path, program: str) -> None:
    command = _command(program, "--not-an-option-of-any-program")
    if program in ("npm", "pnpm", "yarn"):
        command = f"{program} test --not-an-option-of-any-program"
    decision = judge(tmp_path, program, command, Mode.ACCEPT_EDITS)
    assert decision.kind == "ask", decision
    assert not decision.understood


@pytest.mark.parametrize("program", ["sort", "sed", "tar", "cp", "pytest"])
def test_an_argument_known_only_at_run_time_may_be_an_option(tmp_path: Path, program: str) -> None:
    """``sort $opts f`` could be ``sort -o ~/.bashrc f``: not understood where the table has
    options that write or run; ``cat $f`` stays allowed (every cat option is harmless)."""
    decision = judge(tmp_path, program, f"{program} $x src/notes.txt", Mode.ACCEPT_EDITS)
    assert decision.kind == "ask", decision
    assert "known only when the command runs" in decision.reason
    assert judge(tmp_path, "cat", 'cat "$x"', Mode.ACCEPT_EDITS).kind == "allow"


def test_abbreviations_are_not_understood(tmp_path: Path) -> None:
    """GNU programs read ``--out`` as ``--output``; the tables do not guess."""
    for command in ("sort --out=/tmp/x f", "sed --in=.bak s/a/b/ f", "tar --to-com=x -xf a"):
        program = command.split()[0]
        decision = judge(tmp_path, program, command, Mode.ACCEPT_EDITS)
        assert decision.kind == "ask", (command, decision)
        assert not decision.understood


# -- the tables against the installed programs ------------------------------------------------

GETOPT_LONG = [
    "sed",
    "gawk",
    "tar",
    "grep",
    "diff",
    "sort",
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "cut",
    "tr",
    "od",
    "nl",
    "stat",
    "du",
    "df",
    "comm",
    "paste",
    "base64",
    "tee",
    "uniq",
    "shuf",
    "split",
    "csplit",
    "date",
    "cp",
    "mv",
    "ln",
    "install",
    "gzip",
    "xz",
    "iconv",
    "column",
    "make",
    "less",
    "file",
    "md5sum",
    "sha256sum",
]
_LONG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*")


def _help(path: str) -> str:
    text = ""
    for args in (["--help"], ["--long-help"]):
        done = subprocess.run(
            [path, *args],
            capture_output=True,
            text=True,
            timeout=20,
            stdin=subprocess.DEVNULL,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": "/nonexistent"},
        )
        text += done.stdout + done.stderr
    return text


@pytest.mark.parametrize("program", GETOPT_LONG)
def test_table_options_are_the_programs_own(program: str) -> None:
    path = shutil.which(program)
    if path is None:
        pytest.skip(f"{program} is not installed")
    table: Table = tables()[program]
    help_text = _help(path)
    documented = set(_LONG.findall(help_text))
    assert documented, f"{program} --help lists no long options"
    for name in table.options:
        if not name.startswith("--") or name in documented:
            continue
        longer = sorted(d for d in documented if d.startswith(name))
        assert not longer, (
            f"{program}: {name} is not in this version's --help, and getopt_long would read it "
            f"as {longer[0]}"
        )
