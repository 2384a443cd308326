"""``git config``: which file a form writes (the read forms write nothing).

``git config NAME VALUE``, ``--add``, ``--unset``, ``--edit``… write the repository's
``.git/config`` (``--global``: ``~/.gitconfig``; ``--system``: ``/etc/gitconfig``;
``--worktree``: ``.git/config.worktree``; ``-f FILE``: that file), a protected path: git
configuration runs programs (``core.pager``, ``core.fsmonitor``, aliases). ``--get``,
``--list`` and a lone name only read.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import FileWrite, ShellAnalysis, Word

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.git_scan import GitScan


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


READ_FLAGS = _set(
    "--get --get-all --get-regexp --get-urlmatch --list -l --show-origin --show-scope "
    "--name-only --get-color --get-colorbool --null -z --type --default --blob --includes "
    "--no-includes"
)
WRITE_FLAGS = _set(
    "--add --unset --unset-all --replace-all --rename-section --remove-section -e --edit"
)
READ_VERBS = _set("get list get-all get-regexp get-urlmatch get-color")
WRITE_VERBS = _set("set unset rename-section remove-section edit add")


def config_writes(a: ShellAnalysis, found: GitScan) -> None:
    names = {option.name for option in found.options}
    operands = [word.text for word in found.operands]
    if operands and operands[0] in READ_VERBS:
        return
    writes = bool(operands and operands[0] in WRITE_VERBS) or bool(names & WRITE_FLAGS)
    if not writes and (names & READ_FLAGS or len(found.operands) < 2):
        return
    if "--global" in names:
        target = os.path.expanduser("~/.gitconfig")
    elif "--system" in names:
        target = "/etc/gitconfig"
    elif "--worktree" in names:
        target = ".git/config.worktree"
    else:
        chosen = next(iter(found.values("-f", "--file")), None)
        target = chosen.text if chosen is not None else ".git/config"
    if target != "-":
        a.writes.append(FileWrite(Word(target, target), "git config"))
