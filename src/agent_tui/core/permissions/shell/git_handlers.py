"""What each git subcommand does beyond its options: the files it writes, the content it
prints from the repository (see ``git_meaning`` for the whole picture)."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent_tui.core.permissions.shell.git_context import HERE, Git
from agent_tui.core.permissions.shell.model import DYN, FileWrite, Word

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
