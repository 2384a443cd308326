"""git, allow-listed down to its options: ``git [global options] SUBCOMMAND [options] [--] …``.

Every word is read with the tables of ``git_tables`` (written from git's documentation): the
global options, the subcommand, and each of its options. What a table does not list — a
subcommand (an alias from the configuration, a ``git-foo`` program on the PATH), an option, an
option-like word known only at run time — makes the command not understood: it asks, and no
rule allows it, with a reason that says which word and why. Options that make git run another
program (a pager, an external diff, ``--exec``, ``--upload-pack``, a clone's ``-c``) do the
same: a rule that allows git (``run_shell(git:*)``) allows git, not the programs git would run
for it. Options that write a file (``--output=F``, ``archive -o F``, ``format-patch -o DIR``)
are judged as writes of that file. ``-c`` / ``--config-env`` / ``--exec-path=`` give git
configuration for one run (judged like a dangerous variable); ``--git-dir`` / ``--work-tree``
/ ``--bare`` naming anything but the workspace's own ``.git`` make the command not understood.

What each subcommand means beyond its options — the work-tree files it writes, the file
content it prints from the repository — is ``git_meaning``'s business.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.git_meaning import meaning
from agent_tui.core.permissions.shell.git_scan import may_be_option
from agent_tui.core.permissions.shell.git_tables import GLOBAL, SUBCOMMANDS
from agent_tui.core.permissions.shell.model import DYN, ShellAnalysis, SimpleCommand, Word

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker

CONFIG_WHY = (
    "configuration for one run can make git run programs: core.pager, core.fsmonitor, alias.*"
)
OWN_GIT_DIRS = frozenset({".git", "./.git", ".git/", "./.git/"})
OWN_WORK_TREES = frozenset({".", "./"})


# -- the command --------------------------------------------------------------------------------


def analyse_git(w: Walker, command: SimpleCommand, args: list[Word]) -> None:
    """The facts of one ``git …`` command (its words after ``git``)."""
    a = w.a
    i = _global_options(a, args)
    if i is None:
        return
    if i >= len(args):
        return  # git, git --version, git -C dir: nothing runs
    sub_word = args[i]
    if not sub_word.literal:
        a.note_opaque(f"a git subcommand known only at run time ({sub_word.shown[:40]})")
        return
    sub = sub_word.text
    table = SUBCOMMANDS.get(sub)
    if table is None:
        a.note_opaque(
            f"git {sub[:40]}, a subcommand the analysis does not know (an alias from the "
            "configuration or a git-* program on the PATH could run anything)"
        )
        return
    rest = args[i + 1 :]
    if command.extra_args and not any(word.text == "--" for word in rest):
        a.note_opaque(
            f"git {sub} with arguments added at run time (xargs, find -exec … +), which git "
            "could take as options (put -- before them)"
        )
    meaning(w, sub, table, rest, [word.text for word in args[:i]])


def _global_options(a: ShellAnalysis, args: list[Word]) -> int | None:
    """Read the options before the subcommand; the index of the subcommand, or None when the
    command is not understood (already noted)."""
    i = 0
    chdir = False
    while i < len(args):
        word = args[i]
        text = word.text
        if may_be_option(word):
            a.note_opaque(
                f"git {word.raw or word.shown}, an argument known only at run time where git "
                "reads its options"
            )
            return None
        if not text.startswith("-"):
            return i
        name, eq, value = text.partition("=")
        following = args[i + 1] if i + 1 < len(args) else None
        if DYN in name:
            a.note_opaque(f"git {word.raw}, an option named only at run time")
            return None
        if name in ("-c", "--config-env"):
            a.dangerous_options.append((text, CONFIG_WHY))
            shown = text if eq or following is None else f"{text} {following.text}"
            a.git_notes.append((f"git {shown}", "configuration for one run: " + CONFIG_WHY))
            if not eq and following is not None:
                a.dangerous_options.append((following.text, "git configuration for one run"))
                i += 2
                continue
            i += 1
            continue
        if name == "--exec-path" and eq:
            a.dangerous_options.append((text, "it makes git run its programs from " + value))
            i += 1
            continue
        if name in GLOBAL.runs:
            a.note_opaque(f"git {text}, which runs a program ({GLOBAL.runs[name]})")
            i += 1
            continue
        if name in ("--git-dir", "--work-tree"):
            target = Word(value, value) if eq else following
            own = OWN_GIT_DIRS if name == "--git-dir" else OWN_WORK_TREES
            if (
                target is None
                or not target.literal
                or target.text not in own
                or chdir
                or (a.cd_targets)
            ):
                shown = target.shown if target is not None else "?"
                what = "repository" if name == "--git-dir" else "work tree"
                a.note_opaque(
                    f"git {name}={shown}, a {what} other than the workspace's own (its "
                    "configuration and hooks could run programs: core.fsmonitor, core.pager, "
                    "aliases)"
                )
                return None
            i += 1 if eq else 2
            continue
        if name == "--bare":
            a.note_opaque("git --bare, which takes the current directory as the repository")
            return None
        if name == "-C":
            if following is None:
                return len(args)
            a.cd_targets.append(following)
            chdir = True
            i += 2
            continue
        arity = GLOBAL.arity(name)
        if arity is None or (arity == "flag" and eq and name != "--exec-path"):
            a.note_opaque(
                f"git {text}, an option the analysis does not know (see git help git; a rule "
                "cannot allow it)"
            )
            return None
        i += 1 if arity == "flag" or eq else 2
    return i
