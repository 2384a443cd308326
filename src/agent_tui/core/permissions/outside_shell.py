"""Outside the workspace, for shell commands (``outside`` has the rule and the places).

A command's known writes (redirections, ``tee``, ``cp`` targets…; relative paths after a ``cd``
resolved against it) outside the places free to write ask in every mode unless a
``write_file`` rule names the path. Without the sandbox two more things ask: a command that
names a private place for reading (a home directory — literally, with ``~`` or ``$HOME`` —,
``/root``, ``/home``, ``/run/secrets``, ``/proc/PID/environ``), and an ``ln`` whose target lies
outside (a write through the link would change that file). In the sandbox the home is hidden
and what lies outside is read-only, so those need no asking there. System files
(``/etc/os-release``, ``/usr/include/…``) are everyday reads: world-readable, the same in the
sandbox, no one's keys.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.permissions.ln_args import parse_ln
from agent_tui.core.permissions.outside import (
    DEVICES,
    READ_TOOL,
    WRITE_TOOL,
    free_to_read,
    free_to_write,
    home,
    home_secret,
    naming_rule,
    sandboxed,
    temp_hint,
)
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.permissions.shell import DYN, ShellAnalysis, Word
from agent_tui.core.permissions.shell.programs import NO_FILE_READS
from agent_tui.core.permissions.shell_paths import (
    Target,
    bases,
    loop_words,
    path_texts,
    resolve_word_paths,
)
from agent_tui.core.sandbox import SECRETS_IN_HOME

if TYPE_CHECKING:
    from agent_tui.core.permissions.judging import Judging

SECRET_ROOTS = ("/root", "/home", "/run/secrets", "/var/run/secrets")
"""Where a command without the sandbox must not read unasked (besides the user's home)."""
HOME_WORD = re.compile(r"^[\"']?(?:\$\{?HOME\}?|~[A-Za-z_])")
"""A read word that starts in a home directory though the analysis cannot place it."""


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@dataclass(frozen=True)
class Finding:
    """One place outside the workspace a command reaches: why it asks, and the rule that would
    name it (None: the place is known only at run time, no rule can name it)."""

    reason: str
    rule: Rule | None


def outside_command(p: Judging, a: ShellAnalysis, writes: list[Target]) -> str | None:
    """Why a command asks in every mode because of where it writes or reads, or None."""
    found = command_findings(p, a, writes)
    return found[0].reason if found else None


def command_findings(p: Judging, a: ShellAnalysis, writes: list[Target]) -> list[Finding]:
    """Every place outside the workspace ``a`` writes (or, without the sandbox, reads or
    links to) that no rule names."""
    out: list[Finding] = []
    for target in writes:
        path = target.path
        if path is None or DEVICES.match(target.write.target.text):
            continue  # a file named only at run time asks already (``protected`` step)
        if free_to_write(p, path, command=True) or naming_rule(p, (WRITE_TOOL,), path):
            continue
        out.append(
            Finding(
                f"it writes {p.shown(path)} ({target.write.how}), outside the workspace: a "
                "file there can run code later (shell startup, tool configuration…), so it "
                f"asks in every mode unless a rule names that path, e.g. "
                f"{_rule(WRITE_TOOL, path)}." + temp_hint(p, command=True),
                _rule(WRITE_TOOL, path),
            )
        )
    if sandboxed(p):
        return out  # the sandbox hides the home, and a link out leads nowhere writable there
    for shown, path in secret_reads(p, a):
        out.append(
            Finding(
                f"it reads {shown}, which is private (a home directory, secrets or a process's "
                "environment) and outside the workspace; without the sandbox nothing hides it, "
                "so it asks in every mode unless a rule names it"
                + (f", e.g. {_rule(READ_TOOL, path)}" if path is not None else ""),
                _rule(READ_TOOL, path) if path is not None else None,
            )
        )
    for shown, path in link_targets(p, a):
        out.append(
            Finding(
                f"it makes a link to {shown}, outside the workspace: without the sandbox a "
                "write through the link would change that file, so it asks in every mode "
                "unless a rule names it"
                + (f", e.g. {_rule(WRITE_TOOL, path)}" if path is not None else ""),
                _rule(WRITE_TOOL, path) if path is not None else None,
            )
        )
    return out


def _rule(tool: str, path: Path) -> Rule:
    return Rule(tool, "/" + path.as_posix(), "always allow")


def link_targets(p: Judging, a: ShellAnalysis) -> list[tuple[str, Path | None]]:
    """What ``ln`` commands link to outside the places free to write: a write through the link
    (symbolic or hard) changes that file. A symbolic link's relative target is resolved from
    the link's directory, a hard link's (or ``ln -r``'s) from the working directory."""
    roots, unknown_cd = bases(p.workspace, a)
    out: list[tuple[str, Path | None]] = []
    for command in a.commands:
        name = command.name
        if name is None or os.path.basename(name.text) != "ln":
            continue
        parsed = parse_ln(command.words[1:])
        if parsed is None:
            out.append((f"a place its options hide ({command.shown()[:80]})", None))
            continue
        targets, where, symbolic, relative, by_t = parsed
        words = [*targets, *([where] if where is not None else [])]
        if any(DYN in w.text for w in words) or (
            unknown_cd and not all(os.path.isabs(os.path.expanduser(w.text)) for w in words)
        ):
            out.append((f"a place known only at run time ({command.shown()[:80]})", None))
            continue
        link_dirs = list(roots)
        if where is not None:  # the link's own name is not followed: its directory is
            link_dirs = []
            spelled = os.path.expanduser(where.text)
            for root in roots:
                full = spelled if os.path.isabs(spelled) else os.path.join(root, spelled)
                directory = by_t or spelled.endswith("/") or os.path.isdir(full)
                link_dirs.append(
                    Path(os.path.realpath(full if directory else os.path.dirname(full)))
                )
        for word in targets:
            if os.path.isabs(os.path.expanduser(word.text)):
                bases_of = roots
            else:
                bases_of = link_dirs if symbolic and not relative else roots
            for path in resolve_word_paths(word.text, word.glob, bases_of):
                if not free_to_write(p, path, command=True) and not naming_rule(
                    p, (WRITE_TOOL,), path
                ):
                    out.append((p.shown(path), path))
                    break
    return out


def secret_place(p: Judging, path: Path) -> bool:
    """Is ``path`` somewhere a command must not read unasked without the sandbox?"""
    if free_to_read(p, path):
        return False
    if home_secret(path) is not None:
        return True
    if path.parts[1:2] == ("proc",) and path.name == "environ":
        return True
    top = home()
    homes = [top] if top != Path("/") else []  # HOME=/ (some containers): not every path
    roots = (*homes, *(Path(os.path.realpath(r)) for r in SECRET_ROOTS))
    return any(_within(path, root) for root in roots)


def secret_reads(p: Judging, a: ShellAnalysis) -> list[tuple[str, Path | None]]:
    """The private places a command names for reading (``secret_place``) that no
    ``read_file`` allow rule names: (how it is shown, the path, None when only its spelling
    says so: ``"$HOME/.ssh/id_rsa"``)."""
    roots, unknown_cd = bases(p.workspace, a)
    skipped = {
        id(word)
        for command in a.commands
        if command.name is not None and os.path.basename(command.name.text) in NO_FILE_READS
        for word in command.words
    }
    written = {write.target.text for write in a.writes}  # judged as writes (cp's target…)
    words: list[Word] = []
    for word in (*a.reads, *a.tree_reads):
        if id(word) in skipped or word.text in written:
            continue
        looped = loop_words(word, a)
        words.extend(looped if looped is not None else [word])
    found: list[tuple[str, Path | None]] = []
    for command in a.commands:
        shown = _shows_environments(command.argv)
        if shown is not None:
            found.append((shown, None))
    for word in words:
        if DYN in word.text:
            if HOME_WORD.match(word.raw) or _names_key_store(word.text) or _in_proc(word.text):
                found.append((word.raw[:80], None))
            continue
        for text in path_texts(word):
            if text.startswith("-") and text == word.text:
                continue
            for path in resolve_word_paths(text, word.glob, roots):
                if secret_place(p, path) and naming_rule(p, (READ_TOOL,), path) is None:
                    found.append((p.shown(path), path))
                    break
            if (
                unknown_cd
                and not os.path.isabs(os.path.expanduser(text))
                and _names_key_store(text)
            ):
                found.append((f"{text} after a cd known only at run time", None))
    return found


def _in_proc(text: str) -> bool:
    """A path into ``/proc`` whose process is known only at run time (``/proc/$PPID/environ``,
    ``/proc/$pid/root/…``): another process's environment, or its view of every file."""
    return text.startswith("/proc/") or text.startswith("/proc" + DYN)


PS_VALUES = frozenset(
    {
        *("-C", "-G", "-U", "-g", "-p", "-q", "-s", "-t", "-u", "-o", "-O", "-k"),
        *("--pid", "--ppid", "--user", "--User", "--group", "--Group", "--sid", "--tty"),
        *("--sort", "--format", "--cols", "--columns", "--rows", "--width", "--quick-pid"),
    }
)
"""``ps`` options whose value is the next word (a user, a command name, a format)."""


def _shows_environments(argv: list[str]) -> str | None:
    """``ps`` printing processes' environments (BSD ``e``: ``ps eww``, ``ps axe``; a format
    naming ``environ``/``env``): the agent's own holds the provider's key. How it is shown,
    or None."""
    if not argv or os.path.basename(argv[0]) != "ps":
        return None
    shown = f"the environment of processes ({' '.join(argv)[:60]})"
    previous = ""
    for arg in argv[1:]:
        value = previous in PS_VALUES or (
            previous.isalpha() and previous[-1:] in "UptoOqk"  # BSD ``axo FORMAT``, ``U user``
        )
        if "env" in arg.lower() and (value or arg.startswith("-")):
            return shown  # ``-o environ``, ``--format=pid,env``
        if not value and ((arg.isalpha() and "e" in arg) or DYN in arg):
            return shown  # BSD ``e``: ``ps e``, ``ps axe``, ``ps eww``; or ``ps $opts``
        previous = arg
    return None


def _names_key_store(text: str) -> bool:
    """Does ``text`` spell a path into one of the home's key stores (``…/.ssh/id_rsa``)?"""
    padded = "/" + text.replace(DYN, "/")
    return any(f"/{name}/" in padded + "/" for name in SECRETS_IN_HOME)
