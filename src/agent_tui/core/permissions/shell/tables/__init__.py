"""Option tables: auto-approval allow-listed down to each program's options.

For the programs users commonly allow as "read-only" or harmless (``sed``, ``awk``, ``jq``,
``find``, ``sort``, ``tar``, ``cat``, ``ls``, ``pytest``…) a table says what every option
does, written from the program's own documentation; ``judge`` reads a command with it. An
option the table does not list, program text the analysis does not fully understand, and an
option that names another program to run make the command not understood, so no rule allows it
(``run_shell(sed:*)`` allows sed, not the shell commands a sed script would run); files the
options write are writes, judged like ``write_file``.

A program without a table (a user's ``run_shell(mytool:*)``) is judged by its words alone:
the user named it, and its options are its own business.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell import awk
from agent_tui.core.permissions.shell.awk import judge_awk
from agent_tui.core.permissions.shell.find import judge_find
from agent_tui.core.permissions.shell.jq import judge_jq
from agent_tui.core.permissions.shell.model import SimpleCommand
from agent_tui.core.permissions.shell.option_table import Table
from agent_tui.core.permissions.shell.sed import SED, judge_sed
from agent_tui.core.permissions.shell.tables import (
    archive,
    build,
    coreutils,
    node,
    pagers,
    python,
    remote,
    text,
    unzip,
)

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker

Judge = Callable[["Walker", SimpleCommand, str], bool]
"""Reads one command; True when it recorded everything (its reads and writes included), so the
generic file rules (``files.command_files``) are skipped."""

JUDGES: dict[str, Judge] = {
    "sed": judge_sed,
    "gsed": judge_sed,
    "awk": judge_awk,
    "gawk": judge_awk,
    "mawk": judge_awk,
    "nawk": judge_awk,
    "find": judge_find,
    "gfind": judge_find,
    "jq": judge_jq,
    **coreutils.JUDGES,
    **text.JUDGES,
    **archive.JUDGES,
    **remote.JUDGES,
    **python.JUDGES,
    **node.JUDGES,
    **pagers.JUDGES,
    **build.JUDGES,
    **unzip.JUDGES,
}
_PYTHON = re.compile(r"python\d*(\.\d+)*")


def judge(w: Walker, command: SimpleCommand, base: str) -> bool:
    """Judge ``command`` (its program's basename is ``base``) with its table, if it has one."""
    found = JUDGES.get(base)
    if found is None and _PYTHON.fullmatch(base):
        found = python.judge_python
    if found is None:
        return False
    return found(w, command, base)


def programs() -> list[str]:
    """The programs with a table."""
    return sorted(JUDGES)


def tables() -> dict[str, Table]:
    """Each option table by program name (for the documentation and the tests)."""
    out: dict[str, Table] = {"sed": SED, "gawk": awk.GAWK, "mawk": awk.MAWK, "awk": awk.AWK}
    for module in (coreutils, text, archive, remote, python, node, pagers, build):
        for value in vars(module).values():
            if isinstance(value, Table):
                out.setdefault(value.program, value)
    for name, table in coreutils.READERS.items():
        out.setdefault(name, table)
    return out
