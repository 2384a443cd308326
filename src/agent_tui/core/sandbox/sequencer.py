"""The to-do lists of an interrupted rebase, cherry-pick or revert, as git reads them.

``git rebase --continue`` (and ``cherry-pick``/``revert --continue``) goes on with the list in
``.git/rebase-merge/git-rebase-todo`` or ``.git/sequencer/todo``; an ``exec`` line there runs
a shell command, outside any sandbox, in the user's terminal. A command that plants such a
list (with the state files that make git believe a rebase is under way) has the user run its
code later. So the git watch (``git_watch``) judges a new or changed list: every line it adds
must be one of the commands that only pick, drop or label commits; an ``exec`` line, a
``merge`` with a strategy (``-s``: a ``git-merge-NAME`` program), a command git may know but
this list does not, or a list too big to read is undone.

Lines as git's sequencer reads them: leading blanks skipped, ``#`` starts a comment (a
``core.commentChar`` the config changes is judged with the config), a command by its name or
its one-letter abbreviation, then its arguments.
"""

from __future__ import annotations

from collections import Counter

TODO_FILES = (("rebase-merge", "git-rebase-todo"), ("sequencer", "todo"))
"""(directory in a git directory, file): the lists ``--continue`` reads."""

SAFE = frozenset(
    [
        "pick",
        "p",
        "revert",
        "reword",
        "r",
        "edit",
        "e",
        "squash",
        "s",
        "fixup",
        "f",
        "drop",
        "d",
        "break",
        "b",
        "label",
        "l",
        "reset",
        "t",
        "update-ref",
        "u",
        "noop",
        "merge",
        "m",
    ]
)
"""Commands that run nothing of the list's choosing (``merge`` only without ``-s``)."""


def todo_runs_code(data: bytes, before: bytes | None = None) -> str | None:
    """Why a to-do list runs code (its first new line that may), or None. With ``before``
    (the list's earlier content), only the lines that are new are judged."""
    old = Counter(before.splitlines()) if before is not None else Counter[bytes]()
    for raw in data.split(b"\n"):
        if old[raw] > 0:
            old[raw] -= 1
            continue
        reason = _line_runs_code(raw)
        if reason is not None:
            return reason
    return None


def _line_runs_code(raw: bytes) -> str | None:
    line = raw.strip(b" \t\r")
    if not line or line.startswith(b"#"):
        return None
    words = line.split()
    command = words[0].decode("utf-8", "replace")
    if command not in SAFE:
        if command in ("exec", "x"):
            return "an exec line in a rebase to-do list (git rebase --continue runs it)"
        return f"a rebase to-do line this check does not know ({command!r})"
    if command in ("merge", "m") and any(w.startswith((b"-s", b"--strategy")) for w in words):
        return "a merge with a strategy in a rebase to-do list (it runs git-merge-NAME)"
    return None
