"""What one git subcommand does with its options and operands, beyond printing.

- **Options** (``_options``): each is read with the subcommand's table; an unknown one, or one
  that runs a program, makes the command not understood; a file it writes is a write; a file
  it reads is a read; each is noted for ``permissions check``.
- **Writes git implies** are writes, judged by the ``write_file`` rules, the protected paths and
  accept-edits: ``git rm``/``mv``/``restore``/``checkout -- PATH`` write the paths they name;
  ``checkout BRANCH``, ``switch``, ``merge``, ``rebase``, ``pull``, ``cherry-pick``,
  ``revert``, ``reset --hard``, ``stash``, ``bisect`` write the tracked files of the work tree
  (``FileWrite.git == "tracked"``); ``clean`` and ``stash -u`` also the untracked ones;
  ``apply``/``am`` write the files their patch names, which the analysis does not read (a file
  named only at run time: it asks in every mode).
- **Content from the repository** (``GitRead``): ``show``, ``log -p``, ``diff``, ``grep``,
  ``blame``, ``archive``, ``format-patch``, ``cat-file``… can print a file a read rule
  protects, from a commit even when the file itself is hidden; ``git_judge`` judges them
  against the read rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.git_context import Git
from agent_tui.core.permissions.shell.git_handlers import HANDLERS
from agent_tui.core.permissions.shell.git_options import BUILTIN_STRATEGIES, Options
from agent_tui.core.permissions.shell.git_scan import scan_git
from agent_tui.core.permissions.shell.git_tables import REFLOG_OTHERS, STASH_LIST, STASH_SHOW
from agent_tui.core.permissions.shell.model import DYN, Word

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker

CHANGES_INDEX = frozenset(
    {
        *("add", "rm", "mv", "apply", "am", "commit", "stash", "reset", "checkout", "switch"),
        *("restore", "merge", "rebase", "cherry-pick", "revert", "pull", "submodule", "bisect"),
    }
)
"""Subcommands that change the index: what it holds when a later part runs is not known."""
VERBS: dict[str, tuple[str, str]] = {
    "stash": ("push", "push save list show pop apply drop clear branch create store"),
    "remote": ("", "add rename remove rm set-head set-branches get-url set-url show prune update"),
    "worktree": ("", "add list lock move prune remove repair unlock"),
    "submodule": (
        "status",
        "add status init deinit update set-branch set-url summary foreach sync absorbgitdirs",
    ),
    "bisect": ("", ""),
    "notes": ("list", "list add copy append edit show merge remove prune get-ref"),
    "reflog": ("show", "show expire delete exists"),
    "bundle": ("", "create verify list-heads unbundle"),
}
"""Subcommands whose first operand is a verb: the verb when there is none, and the verbs
(another first operand: ``git reflog HEAD`` is ``git reflog show HEAD``; for the others
git refuses it, or, for bisect, it is a term of the user's)."""


def meaning(w: Walker, sub: str, table: Options, args: list[Word], global_words: list[str]) -> None:
    verb = ""
    if sub in VERBS:
        verb, args = _verb(sub, table, args)
        known = VERBS[sub][1].split()
        if known and verb and verb not in known and sub != "reflog":
            w.a.note_opaque(f"git {sub} {verb[:40]}, a verb the analysis does not know")
            return
        if sub == "submodule" and verb == "foreach":
            _foreach(w, args)
            return
        if sub == "stash" and verb == "show":
            table = STASH_SHOW | table
        elif sub == "stash" and verb == "list":
            table = STASH_LIST | table
        elif sub == "reflog" and verb != "show":
            table = REFLOG_OTHERS
    found = scan_git(args, table)
    git = Git(w, sub, verb, found, table)
    _options(git)
    if sub in CHANGES_INDEX and verb not in ("list", "show", "status", "summary"):
        w.a.git_changes_index = True
    handler = HANDLERS.get(sub)
    if handler is not None:
        handler(git)


def _verb(sub: str, table: Options, args: list[Word]) -> tuple[str, list[Word]]:
    """The verb (``stash pop``, ``notes --ref x add``): the first operand, past the options
    before it."""
    default, known = VERBS[sub]
    i = 0
    while i < len(args):
        text = args[i].text
        if text == "--" or not args[i].literal:
            break
        if not text.startswith("-"):
            if sub == "reflog" and text not in known.split():
                break
            return text, args[:i] + args[i + 1 :]
        i += 2 if table.arity(text) == "valued" else 1
    return default, args


def _options(git: Git) -> None:
    a = git.w.a
    table = git.table
    for problem in git.found.problems:
        a.note_opaque(f"{git.shown}: {problem}")
    for option in git.found.options:
        name, value = option.name, option.value
        label = f"{git.shown} {name}"
        if name in git.found.unknown:
            a.note_opaque(
                f"{label}, an option the analysis does not know (see git help {git.sub}; a "
                "rule cannot allow it)"
            )
            a.git_notes.append((label, "an option the analysis does not know: asks"))
        elif name in table.runs:
            a.note_opaque(f"{label}, which runs a program ({table.runs[name]})")
            a.git_notes.append((label, f"runs a program ({table.runs[name]}): asks"))
        elif name in table.code:
            if value is not None:
                git.w.shell_code(value, label)
            shown = value.shown[:60] if value is not None else "?"
            a.note_opaque(f"{label}, which runs the command {shown}")
            a.git_notes.append((label, f"runs the command {shown}: asks"))
        elif name in table.writes | table.writes_dir and value is not None:
            tree = name in table.writes_dir
            git.write(value, name, tree=tree)
            what = "into a directory" if tree else "a file"
            a.git_notes.append((label, f"writes {what} ({value.shown})"))
        elif name in table.reads and value is not None:
            a.reads.append(value)
        elif (
            name in ("-s", "--strategy")
            and value is not None
            and "--strategy" in table.valued
            and (not value.literal or value.text not in BUILTIN_STRATEGIES)
        ):
            program = f"git-merge-{value.shown}"
            a.note_opaque(f"{label} {value.shown}, which runs the program {program}")
            a.git_notes.append((label, f"runs the program {program}: asks"))


def _foreach(w: Walker, args: list[Word]) -> None:
    """``git submodule [--quiet] foreach [--recursive] COMMAND``: a shell command."""
    code = list(args)
    while code and code[0].text in ("--recursive", "-q", "--quiet"):
        code = code[1:]
    joined = " ".join(word.text for word in code)
    literal = all(word.literal for word in code)
    w.shell_code(Word(joined if literal else joined + DYN, joined), "git submodule foreach")
    w.a.note_opaque(f"git submodule foreach, which runs the command {joined[:60]}")
    w.a.git_notes.append(("git submodule foreach", f"runs the command {joined[:60]}: asks"))
