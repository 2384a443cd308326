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

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.git_options import BUILTIN_STRATEGIES, Options
from agent_tui.core.permissions.shell.git_scan import GitScan, scan_git
from agent_tui.core.permissions.shell.git_tables import REFLOG_OTHERS, STASH_LIST, STASH_SHOW
from agent_tui.core.permissions.shell.model import DYN, FileWrite, GitRead, Word

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walker import Walker

HERE = Word(".", ".")
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


@dataclass
class Git:
    w: Walker
    sub: str
    verb: str
    found: GitScan
    table: Options

    @property
    def shown(self) -> str:
        return f"git {self.sub}" + (f" {self.verb}" if self.verb else "")

    def has(self, *names: str) -> bool:
        return self.found.has(*names)

    def write(self, word: Word, how: str, *, tree: bool = False, git: str = "") -> None:
        if word.text in ("-", "/dev/null", "/dev/stdout", "/dev/stderr"):
            return
        self.w.a.writes.append(FileWrite(word, f"{self.shown} {how}".strip(), tree, git))

    def work_tree(self, how: str, paths: list[Word] | None = None, git: str = "tracked") -> None:
        """It writes the work tree's files (below ``paths``, else everywhere)."""
        for path in paths or [HERE]:
            self.write(path, how, tree=True, git=git)

    def patch_writes(self) -> None:
        self.write(Word(DYN, ""), "(the files its patch names, which are not read here)")

    def reads(self, kind: str, *, objects: tuple[Word, ...] = ()) -> None:
        found = self.found
        paths = tuple(found.paths) if found.dashdash else None
        operands: tuple[Word, ...]
        if self.has("--stdin", "--pathspec-from-file", "--alternate-refs"):
            paths, operands = (), (Word(DYN, ""),)  # named at run time, or elsewhere: all
        else:
            operands = tuple(found.operands)
        self.w.a.git_reads.append(GitRead(self.shown, kind, paths, operands, objects))

    def prints_content(self, default: bool) -> bool:
        names = {option.name for option in self.found.options}
        if names & self.table.content:
            return True
        return default and not names & self.table.no_content

    def paths(self) -> list[Word]:
        """The paths it names: after ``--``, else its operands."""
        return self.found.paths if self.found.dashdash else self.found.operands


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


# -- reading -----------------------------------------------------------------------------------


def _log(git: Git) -> None:
    if git.prints_content(default=False):
        git.reads("history")


def _show(git: Git) -> None:
    """Objects (a blob prints as its content: ``git show a1b2c3``, ``git show REV:PATH``) and,
    for commits, their patches."""
    operands = git.found.operands
    git.reads("objects", objects=tuple(operands) or (Word("HEAD", "HEAD"),))
    commits = [word for word in operands if ":" not in word.text]
    if (commits or not operands) and git.prints_content(default=True):
        git.reads("history")


def _diff(git: Git) -> None:
    if git.has("--no-index"):
        for word in git.paths():
            git.w.a.tree_reads.append(word)
        return
    if git.prints_content(default=True):
        _index_or_history(git, git.has("--cached", "--staged", "--merge-base"))


def _index_or_history(git: Git, revision: bool) -> None:
    """Operands before ``--`` are revisions (``history``); without ``--``, git takes those
    that exist as paths for paths (``git_judge`` decides with the workspace)."""
    found = git.found
    git.reads("history" if revision or (found.dashdash and found.operands) else "index")


def _grep(git: Git) -> None:
    found = git.found
    operands = found.operands if found.has("-e", "-f") else found.operands[1:]
    found.operands = [word for word in operands if word.text not in ("(", ")")]
    if git.has("--no-index", "--untracked"):
        for word in git.paths() or [HERE]:
            git.w.a.tree_reads.append(word)
        if git.has("--no-index"):
            return
    _index_or_history(git, False)


def _blame(git: Git) -> None:
    git.reads("history")


def _cat_file(git: Git) -> None:
    found = git.found
    if git.has("--batch", "--batch-command", "--batch-all-objects"):
        git.reads("objects", objects=(Word(DYN, ""),))  # object names from its input
    elif git.has("-t", "-s", "-e") and not git.has("-p"):
        return
    else:
        git.reads("objects", objects=tuple(found.operands[-1:]))


def _ref_format(git: Git) -> None:
    """``--format=%(raw)`` / ``%(contents)`` of a ref that names a blob prints its content."""
    for value in git.found.values("--format"):
        if not value.literal or re.search(r"%\((raw|contents)", value.text):
            git.reads("objects", objects=(Word(DYN, ""),))
            return


def _stash(git: Git) -> None:
    verb = git.verb
    if verb == "list":
        _log(git)
    elif verb == "show":
        if git.prints_content(default=False):
            git.reads("history")
    elif verb in ("push", "save"):
        paths = [] if verb == "save" else git.paths()
        git.work_tree("(reverts the changes it saves)", paths)
        if git.has("-u", "--include-untracked", "-a", "--all", "--only-untracked"):
            git.work_tree("(removes the untracked files it saves)", paths, git="untracked")
    elif verb in ("pop", "apply", "branch"):
        git.work_tree("(writes the files it restores)")


# -- writing -----------------------------------------------------------------------------------


def _rm(git: Git) -> None:
    if git.has("--cached", "-n", "--dry-run"):
        return
    for word in git.paths():
        git.write(word, "", tree=True, git="tracked")


def _mv(git: Git) -> None:
    if git.has("-n", "--dry-run"):
        return
    operands = git.paths()
    if len(operands) < 2:
        return
    *sources, target = operands
    for source in sources:
        git.write(source, "(source)", tree=True)
    git.write(target, "(target)", tree=True)


def _checkout(git: Git) -> None:
    found = git.found
    if found.dashdash:
        git.work_tree("(the paths it checks out)", found.paths or [HERE])
        return
    if git.has("-b", "-B", "--orphan") and not found.operands:
        return  # a new branch where HEAD is: the work tree stays as it is
    if found.operands or git.has("-f", "--force", "-m", "--merge", "-p", "--patch"):
        git.work_tree("(the files of what it checks out)")


def _switch(git: Git) -> None:
    if git.has("-c", "--create", "-C", "--force-create") and not git.found.operands:
        return  # a new branch where HEAD is: the work tree stays as it is
    git.work_tree("(the files of the branch it switches to)")


def _restore(git: Git) -> None:
    if git.has("-S", "--staged") and not git.has("-W", "--worktree"):
        return
    if git.paths():
        git.work_tree("(the paths it restores)", git.paths())


def _reset(git: Git) -> None:
    if git.has("--hard", "--merge", "--keep"):
        git.work_tree("(resets the work tree)")


def _apply(git: Git) -> None:
    checks = ("--stat", "--numstat", "--summary", "--check")
    if git.has(*checks) and not git.has("--apply"):
        return
    git.patch_writes()


def _am(git: Git) -> None:
    if git.has("--show-current-patch", "--quit"):
        return
    if git.has("--abort", "--skip"):
        git.work_tree("(resets the work tree)")
        return
    git.patch_writes()


def _merging(git: Git) -> None:
    if git.has("--quit", "--show-current-patch", "--edit-todo"):
        return
    git.work_tree("(the files it merges)")


def _clean(git: Git) -> None:
    if git.has("-n", "--dry-run"):
        return
    git.work_tree("(deletes untracked files)", git.paths(), git="untracked")


def _archive(git: Git) -> None:
    if git.has("-l", "--list"):
        return
    git.reads("history")


def _format_patch(git: Git) -> None:
    git.reads("history")
    if git.has("--stdout"):
        return
    directory = next(iter(git.found.values("-o", "--output-directory")), HERE)
    text = directory.text.rstrip("/") + "/[0-9]*"
    git.write(Word(text, text, glob=True), "(its patch files)")


def _clone(git: Git) -> None:
    operands = git.paths()
    if len(operands) >= 2:
        git.write(operands[1], "(the new repository)", tree=True)
    elif operands:
        source = operands[0]
        if not source.literal:
            git.write(Word(DYN, ""), "(a directory named by its source)")
            return
        name = re.split(r"[/:]", source.text.rstrip("/"))[-1]
        name = name.removesuffix(".git") if not git.has("--bare", "--mirror") else name
        name = name or DYN
        git.write(Word(name, name), "(the new repository)", tree=True)


def _init(git: Git) -> None:
    target = git.paths()[:1] or [HERE]
    git.write(target[0], "(a new repository)")


def _push(git: Git) -> None:
    """It sends commits, and the content of every file they hold, to another repository."""
    if not git.has("-d", "--delete", "-n", "--dry-run"):
        git.reads("history")


def _pull(git: Git) -> None:
    git.work_tree("(the files it merges)")


def _worktree(git: Git) -> None:
    verb, paths = git.verb, git.found.operands
    if verb == "add" and paths:
        git.write(paths[0], "(a new work tree)", tree=True)
    elif verb in ("remove", "move"):
        for word in paths[:2]:
            git.write(word, "", tree=True)
    elif verb not in ("list", "lock", "unlock", "prune", "repair"):
        git.w.a.note_opaque(
            f"git worktree {verb or '(no verb)'}, a verb the analysis does not know"
        )


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


def _submodule(git: Git) -> None:
    if git.verb not in ("status", "summary"):
        git.work_tree("(the submodules' files)")


def _bisect(git: Git) -> None:
    verb = git.verb
    if verb == "run":
        from agent_tui.core.permissions.shell.model import Layer

        operands = git.found.operands
        if operands:
            layer = Layer((Word("git", "git"), Word("bisect", "bisect"), Word("run", "run")), True)
            git.w.simple(list(operands), (layer,))
    if verb in ("visualize", "view"):
        git.w.a.note_opaque("git bisect visualize, which runs gitk (a program)")
    elif verb not in ("log", "terms", "help"):
        git.work_tree("(the commit it checks out)")


def _notes(git: Git) -> None:
    objects = tuple(git.found.values("-C", "-c", "--reuse-message", "--reedit-message"))
    if objects:
        git.reads("objects", objects=objects)


def _remote(git: Git) -> None:
    if git.verb in ("add", "rename", "remove", "rm", "set-url", "set-branches"):
        config = Word(".git/config", ".git/config")
        git.w.a.writes.append(FileWrite(config, f"git remote {git.verb}"))


def _bundle(git: Git) -> None:
    """``git bundle create FILE REVS``: FILE holds the history (a copy of every object)."""
    if git.verb == "create" and git.found.operands:
        git.write(git.found.operands[0], "(the bundle file)")
    elif git.verb == "unbundle":
        git.w.a.git_changes_index = True


def _config(git: Git) -> None:
    from agent_tui.core.permissions.shell.git_config import config_writes

    config_writes(git.w.a, git.found)
    blobs = tuple(git.found.values("--blob"))
    if blobs:
        git.reads("objects", objects=blobs)


HANDLERS: dict[str, Callable[[Git], None]] = {
    "status": lambda git: git.reads("history") if git.has("-v", "--verbose") else None,
    "log": _log,
    "whatchanged": _log,
    "reflog": _log,
    "diff-tree": _log,
    "range-diff": lambda git: git.reads("history"),
    "show": _show,
    "diff": _diff,
    "diff-index": lambda git: git.reads("history") if git.prints_content(True) else None,
    "diff-files": lambda git: git.reads("index") if git.prints_content(True) else None,
    "grep": _grep,
    "blame": _blame,
    "annotate": _blame,
    "cat-file": _cat_file,
    "for-each-ref": _ref_format,
    "tag": _ref_format,
    "stash": _stash,
    "rm": _rm,
    "mv": _mv,
    "checkout": _checkout,
    "switch": _switch,
    "restore": _restore,
    "reset": _reset,
    "apply": _apply,
    "am": _am,
    "merge": _merging,
    "rebase": _merging,
    "cherry-pick": _merging,
    "revert": _merging,
    "pull": _pull,
    "push": _push,
    "clean": _clean,
    "archive": _archive,
    "format-patch": _format_patch,
    "clone": _clone,
    "init": _init,
    "worktree": _worktree,
    "submodule": _submodule,
    "bisect": _bisect,
    "notes": _notes,
    "remote": _remote,
    "config": _config,
    "bundle": _bundle,
}
