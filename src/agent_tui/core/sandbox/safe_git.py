"""The agent's own git calls, hardened: a repository's config cannot make them run anything.

Every git subprocess agent-tui starts goes through ``run`` or ``spawn`` (the index's gitlinks for
the nested-repository watch; the objects a checkout holds, for the workspace's shadow). Git reads
the repository's config — which a command or a cloned repository may have written — and would
run what it names: ``core.fsmonitor`` on any command that reads the index, ``core.pager``,
hooks, aliases, ``diff.external``, filters, a remote helper. So:

- only read-only plumbing subcommands (``ALLOWED``) run: no porcelain that starts a pager, an
  editor, a hook, a filter or a diff driver, and an alias never shadows a built-in;
- the environment drops every ``GIT_*`` variable of the agent's own (``GIT_DIR``,
  ``GIT_CONFIG_PARAMETERS``, ``GIT_EXTERNAL_DIFF``, ``GIT_SSH_COMMAND``…) and sets
  ``GIT_CONFIG_NOSYSTEM=1``, ``GIT_CONFIG_GLOBAL=/dev/null`` (the user's global config is
  theirs, for their own git; the agent's reads need nothing of it), ``GIT_ATTR_NOSYSTEM=1``,
  ``GIT_TERMINAL_PROMPT=0``, ``GIT_OPTIONAL_LOCKS=0``, ``GIT_NO_LAZY_FETCH=1``, ``PAGER=cat``;
- ``-c`` overrides turn off, over whatever the repository says, what could still run:
  ``core.fsmonitor``, ``core.hooksPath=/dev/null``, ``core.pager``, ``diff.external``,
  ``core.sshCommand``, ``core.askPass``, ``credential.helper``, ``core.editor``,
  ``core.alternateRefsCommand``, ``protocol.allow=never``, and ``core.attributesFile`` (a FIFO
  named there would hold the call until its timeout); ``--no-pager``,
  ``--no-replace-objects``; stdin is given or empty; a timeout bounds it;
- safe.directory semantics: the git directory is named explicitly (``GIT_DIR``; git's own
  search is not used) and must be a real directory owned by the user running agent-tui, as
  must its ``commondir``; otherwise git is not run at all (``Refused``).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

ALLOWED = frozenset(
    {"ls-files", "rev-parse", "ls-tree", "for-each-ref", "symbolic-ref", "log", "cat-file"}
    | {"check-attr"}
)
"""Read-only commands: none of these starts a pager, hook, filter, diff driver or helper (for
``log``, with ``LOG_FLAGS``: the path names of the history, no diff text, no signature; for
``cat-file``, the raw objects: the agent never passes ``--textconv`` nor ``--filters``)."""
LOG_FLAGS = ("--no-ext-diff", "--no-textconv", "--no-renames", "--no-show-signature")
"""Always given to ``log``: no external diff, no textconv filter, no gpg."""
OVERRIDES = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "diff.external=",
    "core.sshCommand=",
    "core.askPass=",
    "credential.helper=",
    "core.editor=true",
    "sequence.editor=true",
    "core.alternateRefsCommand=",
    "protocol.allow=never",
    "core.untrackedCache=false",
    "core.splitIndex=false",
    "core.attributesFile=/dev/null",
)
ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",
}


class Refused(Exception):
    """Git was not run: the reason, for a log or a message."""


@dataclass(frozen=True)
class Result:
    code: int
    stdout: bytes
    stderr: bytes


def environment() -> dict[str, str]:
    """The agent's environment without any ``GIT_*`` variable, plus ``ENV``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(ENV)
    return env


def argv(subcommand: str, *args: str) -> list[str]:
    """The command line of a hardened git call (``ValueError`` for a subcommand not allowed)."""
    if subcommand not in ALLOWED:
        raise ValueError(f"git {subcommand} is not among the agent's read-only git calls")
    out = ["git", "--no-pager", "--no-replace-objects"]
    for override in OVERRIDES:
        out += ["-c", override]
    extra = LOG_FLAGS if subcommand == "log" else ()
    return [*out, subcommand, *extra, *args]


def _owned(path: str) -> bool:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return info.st_uid == os.geteuid()


def git_dir_of(worktree: Path) -> str:
    """The git directory of ``worktree`` as git would find it there (``.git`` a directory,
    or a ``gitdir:`` file), checked for ownership; ``Refused`` otherwise."""
    dot = os.path.join(str(worktree), ".git")
    if os.path.islink(dot):
        raise Refused(f"{dot} is a symbolic link")
    if os.path.isfile(dot):
        try:
            with open(dot, "rb") as handle:
                first = handle.readline(4096).strip()
        except OSError as exc:
            raise Refused(f"{dot}: {exc.strerror}") from None
        if not first.startswith(b"gitdir:"):
            raise Refused(f"{dot} is not a gitdir file")
        named = os.fsdecode(first.removeprefix(b"gitdir:").strip())
        dot = os.path.normpath(os.path.join(str(worktree), named))
    if not os.path.isdir(dot) or os.path.islink(dot):
        raise Refused(f"no git directory at {dot}")
    checked = [dot, str(worktree)]
    try:
        with open(os.path.join(dot, "commondir"), "rb") as handle:
            common = os.fsdecode(handle.readline(4096).strip())
        checked.append(os.path.normpath(os.path.join(dot, common)))
    except OSError:
        pass
    for path in checked:
        if not _owned(path):
            raise Refused(f"{path} is not owned by this user (git's safe.directory rule)")
    return dot


def spawn(worktree: Path, subcommand: str, *args: str) -> subprocess.Popen[bytes]:
    """Start ``git SUBCOMMAND ARGS`` hardened as ``run`` does (the same argv, environment and
    ownership checks), its stdin and stdout pipes, its stderr discarded: a long-lived
    ``cat-file --batch``. The caller bounds each read and kills it when done. Raises as
    ``run``."""
    command = argv(subcommand, *args)
    env = environment()
    env["GIT_DIR"] = git_dir_of(worktree)
    env["GIT_WORK_TREE"] = str(worktree)
    return subprocess.Popen(
        command,
        cwd=worktree,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def run(
    worktree: Path, subcommand: str, *args: str, timeout: float = 30.0, stdin: bytes | None = None
) -> Result:
    """Run ``git SUBCOMMAND ARGS`` hardened in ``worktree``'s repository (``stdin``: what it
    reads, else nothing). Blocking. Raises ``Refused`` when git must not run there,
    ``OSError``/``subprocess.SubprocessError`` when it could not."""
    command = argv(subcommand, *args)
    env = environment()
    env["GIT_DIR"] = git_dir_of(worktree)
    env["GIT_WORK_TREE"] = str(worktree)
    done = subprocess.run(
        command,
        cwd=worktree,
        env=env,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return Result(done.returncode, done.stdout, done.stderr)
