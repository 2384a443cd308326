"""The parts of a git command's judgement that need the workspace: which repository it uses,
which protected files its work-tree writes reach, and whether what it prints from the
repository could be a file a read rule protects.

- **Repositories** (``note_repositories``): git run in a directory whose repository is not
  the workspace's own (``git -C vendor/x``, ``cd sub && git status`` into a nested or bare
  repository, a directory known only at run time) uses that repository's configuration and
  hooks, which can run programs (``core.fsmonitor``, ``core.pager``, aliases): the command is
  not understood.
- **Work-tree writes** (``protected_write``): git never writes inside a ``.git`` directory
  (it refuses such paths), so a write of the tracked files reaches the protected files below
  the target that its index tracks or a commit holds (``.mcp.json``, ``.vscode/``…: a branch
  it checks out may add one); ``git clean`` and ``stash -u`` reach the untracked ones on disk
  too.
- **Content from the repository** (``read_hit``): with a read rule in force, ``git show REV``,
  ``git log -p``, ``git diff``, ``git grep``, ``git blame``, ``git archive``, ``git cat-file``
  are reads of the protected files unless their paths provably leave them out: a commit keeps
  a file's content after the file is hidden (the sandbox) or gone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.permissions.git_index import committed, git_dir, tracked, work_tree_top
from agent_tui.core.permissions.protected import Protection, protection
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.permissions.shell import ShellAnalysis, Word
from agent_tui.core.permissions.shell.model import GitRead
from agent_tui.core.permissions.shell_paths import Target, bases

if TYPE_CHECKING:
    from agent_tui.core.permissions.judging import Judging

MAX_UNTRACKED = 5000
_COMMIT = re.compile(
    r"[^:~^{}]*(?:[~^][0-9]*|\^\{(?:commit|tree)\})+"  # X~2, X^, X^0, X^{commit}
    r"|HEAD|@|(?:HEAD|@)?@\{[^}]*\}"  # HEAD, @, @{-1}, HEAD@{2}
    r"|[^:]*\.\.\.?[^:]*"  # A..B, A...B
)
"""Object names that can only be commits (or trees). Any other name — a tag, an id, ``X^{}``
(a tag peeled to whatever it names) — may be a blob: any file's content."""
_MAGIC = re.compile(r"[*?\[]")
Judge = Callable[[Path], Rule | None]


def _is_git(words: list[Word]) -> bool:
    return bool(words) and os.path.basename(words[0].text) == "git"


# -- repositories --------------------------------------------------------------------------------


def note_repositories(workspace: Path, a: ShellAnalysis) -> None:
    """Make ``a`` not understood when a git command in it may use a repository other than the
    workspace's own."""
    if not any(_is_git(command.words) for command in a.commands):
        return
    roots, unknown = bases(workspace, a)
    if unknown:
        a.note_opaque(
            "git in a directory known only at run time (its repository, whose configuration "
            "can run programs, could be any)"
        )
        return
    own = git_dir(workspace)
    for root in roots[1:]:
        theirs = git_dir(root)
        if theirs != own:
            where = f"{theirs}" if theirs is not None else "none"
            a.note_opaque(
                f"git in {root}, whose repository ({where}) is not the workspace's own: its "
                "configuration and hooks could run programs (core.fsmonitor, core.pager, "
                "aliases)"
            )
            return


# -- work-tree writes ---------------------------------------------------------------------------


def protected_write(p: Judging, target: Target) -> tuple[Path, Protection] | str | None:
    """For a git work-tree write: a protected file it reaches (path, protection), a reason it
    cannot tell, or None."""
    assert target.path is not None
    root = target.path
    gitdir = git_dir(root if root.is_dir() else root.parent)
    top = work_tree_top(root if root.is_dir() else root.parent)
    if gitdir is not None and top is not None:
        paths = tracked(gitdir)
        if paths is None:
            return f"git's index in {gitdir} could not be read whole"
        history = committed(top, gitdir)  # a commit it checks out may add a protected file
        for rel in sorted(set(paths).union(history or ())):
            path = top / rel
            if path == root or root in path.parents:
                guarded = protection(path)
                if guarded is not None:
                    return path, guarded
    if target.write.git == "untracked":
        return _untracked(root)
    return None


def _untracked(root: Path) -> tuple[Path, Protection] | str | None:
    if not root.is_dir():
        guarded = protection(root)
        return (root, guarded) if guarded is not None else None
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if name != ".git"]
        for name in (*dirnames, *filenames):
            seen += 1
            if seen > MAX_UNTRACKED:
                return f"{root} holds too many files to check for protected ones"
            path = Path(dirpath) / name
            guarded = protection(path)
            if guarded is not None:
                return path, guarded
    return None


# -- content from the repository ---------------------------------------------------------------


def read_hit(p: Judging, a: ShellAnalysis, rules: list[Rule]) -> tuple[Rule, str] | None:
    """The first git read in ``a`` that may print a file ``rules`` protect, with why."""
    for read in a.git_reads:
        hit = _judge(p, a, read, rules)
        if hit is not None:
            return hit
    return None


def _judge(
    p: Judging, a: ShellAnalysis, read: GitRead, rules: list[Rule]
) -> tuple[Rule, str] | None:
    roots, unknown_cd = bases(p.workspace, a)
    if unknown_cd:
        return rules[0], f"{read.command} runs in a directory known only at run time"
    for cwd in roots:  # the workspace, or where a cd or -C went
        hit = _judge_in(p, a, read, rules, cwd)
        if hit is not None:
            return hit
    return None


def _judge_in(
    p: Judging, a: ShellAnalysis, read: GitRead, rules: list[Rule], cwd: Path
) -> tuple[Rule, str] | None:
    def protects(path: Path) -> Rule | None:
        return next(
            (r for r in rules if r.pattern is None or r.matches_path(path, p.workspace)), None
        )

    if read.kind == "objects":
        for word in read.objects:
            if not word.literal:
                return rules[0], (
                    f"{read.command} prints objects named only at run time, which could be "
                    f"the content of a file the rule {rules[0]} protects"
                )
            if ":" in word.text:
                path = _object_path(word.text, cwd, p.workspace)
                if path is None:
                    continue  # ``REV:`` is the top tree: a list of names
                found = protects(path)
                if found is not None:
                    return (
                        found,
                        f"{read.command} {word.text} prints a file the rule {found} protects",
                    )
                continue
            if not _COMMIT.fullmatch(word.text):
                return rules[0], (
                    f"{read.command} {word.text} could print any object of the repository — "
                    f"the committed content of a file the rule {rules[0]} protects included "
                    "(name a commit as HEAD~N, or a file as REV:PATH)"
                )
        return None
    limits, revisions = _limits(read, cwd)
    kind = read.kind
    if kind == "index" and (revisions or a.git_changes_index):
        kind = "history"
    if kind == "index":
        return _index_hit(p, read, limits, cwd, protects, rules)
    gitdir, top = git_dir(cwd), work_tree_top(cwd)
    if gitdir is None:
        return None  # no repository: git prints nothing from one
    if top is not None and not a.git_changes_index and all(map(_walked, revisions)):
        history, index = committed(top, gitdir), tracked(gitdir)
        if history is not None and index is not None:  # every path any commit ever held
            if read.follows:  # an earlier name of the file: any committed one gone since
                gone = history.difference(index)
                hit = _listed_hit(p, read, [], cwd, top, frozenset(gone), protects)
                if hit is not None:
                    return hit
            return _listed_hit(p, read, limits, cwd, top, history.union(index), protects)
    if read.follows:
        return rules[0], (
            f"{read.command} --follow prints the file under the names it had before, which "
            f"could be a file the rule {rules[0]} protects (the history could not be listed "
            "to tell)"
        )
    if not limits:
        return rules[0], (
            f"{read.command} prints the content of committed files, which could include a file "
            f"the rule {rules[0]} protects (a commit keeps it even when the file is hidden or "
            "gone); limit it to other files with -- PATH"
        )
    for word in limits:
        why = _may_reach(word, cwd, p.workspace, rules, protects)
        if why is not None:
            rule, because = why
            return rule, f"{read.command} -- {word.text} {because}"
    return None


def _object_path(text: str, cwd: Path, workspace: Path) -> Path | None:
    """The file of ``REV:PATH`` / ``:PATH`` / ``:N:PATH`` (relative to the top, or to the
    current directory with ``./``)."""
    rest = text.split(":", 1)[1]
    if re.match(r"[0-3]:", rest) and text.startswith(":"):
        rest = rest[2:]
    if not rest:
        return None
    top = work_tree_top(cwd) or workspace
    base = cwd if rest.startswith(("./", "../")) else top
    return Path(os.path.realpath(base / rest))


def _limits(read: GitRead, cwd: Path) -> tuple[list[Word], list[Word]]:
    """(the paths the read is limited to, the revisions it names)."""
    if read.pathspecs is not None:
        return list(read.pathspecs), list(read.operands)
    limits: list[Word] = []
    revisions: list[Word] = []
    for word in read.operands:
        if word.literal and os.path.lexists(cwd / word.text):
            limits.append(word)
        else:
            revisions.append(word)
    return limits, revisions


def _may_reach(
    word: Word, cwd: Path, workspace: Path, rules: list[Rule], judge: Judge
) -> tuple[Rule, str] | None:
    """Why the pathspec ``word`` may select a protected file (in any commit), or None."""
    text = word.text
    if not word.literal or text.startswith(":") or _MAGIC.search(text):
        return rules[0], "is a pattern the analysis cannot follow"
    path = Path(os.path.realpath(cwd / text))
    found = judge(path)
    if found is not None:
        return found, f"names a file the rule {found} protects"
    if os.path.isfile(path) and not os.path.islink(cwd / text):
        return None  # one file: nothing below it
    for rule in rules:
        root = rule.search_root(workspace) if rule.pattern is not None else workspace
        if root == path or root in path.parents or path in root.parents:
            return rule, (
                f"is a directory whose committed content could hold files the rule {rule} protects"
            )
    return None


_HEX = re.compile(r"[0-9a-fA-F]{4,64}")


def _walked(word: Word) -> bool:
    """A revision the walk of ``committed`` covers: named by refs, reflogs and HEAD, not by an
    object id (a commit no ref reaches) or ``FETCH_HEAD`` and the like."""
    if not word.literal:
        return False
    for part in re.split(r"\.\.\.?|[:^~]|@\{[^}]*\}", word.text):
        if _HEX.fullmatch(part) or (part.endswith("_HEAD") and part != "HEAD"):
            return False
    return True


def _listed_hit(
    p: Judging,
    read: GitRead,
    limits: list[Word],
    cwd: Path,
    top: Path,
    paths: frozenset[str],
    judge: Judge,
) -> tuple[Rule, str] | None:
    """A protected file among ``paths`` (every path the history held) that the read selects."""
    if any(not w.literal or w.text.startswith(":") or _MAGIC.search(w.text) for w in limits):
        limits = []
    chosen = [Path(os.path.realpath(cwd / w.text)) for w in limits]
    for rel in sorted(paths):
        path = top / rel
        if chosen and not any(path == c or c in path.parents for c in chosen):
            continue
        found = judge(path)
        if found is not None:
            return found, (
                f"{read.command} prints the content of committed files, and a commit holds "
                f"{p.shown(path)}, which the rule {found} protects (limit it to other files "
                "with -- PATH)"
            )
    return None


def _index_hit(
    p: Judging,
    read: GitRead,
    limits: list[Word],
    cwd: Path,
    judge: Judge,
    rules: list[Rule],
) -> tuple[Rule, str] | None:
    gitdir = git_dir(cwd)
    top = work_tree_top(cwd)
    if gitdir is None or top is None:
        return None  # no repository: git prints nothing from one
    paths = tracked(gitdir)
    if paths is None:
        return rules[0], (
            f"{read.command} prints the content of tracked files, and git's index in {gitdir} "
            f"could not be read to tell whether it tracks a file the rule {rules[0]} protects"
        )
    if any(not w.literal or w.text.startswith(":") or _MAGIC.search(w.text) for w in limits):
        limits = []  # a pattern (``'*'``, ``:(glob)…``): it may select any tracked file
    chosen = [Path(os.path.realpath(cwd / w.text)) for w in limits]
    for rel in paths:
        path = top / rel
        if chosen and not any(path == c or c in path.parents for c in chosen):
            continue
        found = judge(path)
        if found is not None:
            return found, (
                f"{read.command} prints the content of tracked files, and git tracks "
                f"{p.shown(path)}, which the rule {found} protects (limit it with -- PATH)"
            )
    return None
