"""Where the words of a shell command point: the directories a relative path may be relative
to, the paths a literal or glob word names, the files a command writes, its dangerous options.
Shared by the judgement (``shell_judge``), the read checks, the suggestions and the report."""

from __future__ import annotations

import glob as globbing
import os
import re
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from agent_tui.core.permissions.shell import DYN, FileWrite, ShellAnalysis, SimpleCommand, Word

MAX_GLOB_PATHS = 500


@dataclass(frozen=True)
class Target:
    write: FileWrite
    path: Path | None
    """Resolved; None when the path is only known at run time."""


MAX_BASES = 64
"""Directories ``bases`` follows; past it the working directory counts as unknown."""
MOVES_CD = frozenset({"CDPATH", "HOME", "DIRSTACK", "OLDPWD"})
"""Variables that change where ``cd``/``pushd``/``popd`` go: ``CDPATH=vendor cd docs`` goes to
``vendor/docs``, ``DIRSTACK[1]=/x; popd`` to ``/x``."""


def bases(workspace: Path, a: ShellAnalysis) -> tuple[list[Path], bool]:
    """Directories a relative path may be relative to (the workspace and every ``cd``
    target), and whether some ``cd`` goes somewhere only known at run time.

    Each relative target is taken from every directory an earlier ``cd`` may have reached
    (``cd a && cd b`` is ``a/b``; a failed ``cd`` leaves the directory as it was, so the
    earlier ones stay too), both as bash's logical ``cd`` goes (``s/..`` drops ``s`` even
    when ``s`` is a link) and physically; ``CDPATH`` (set by the command or inherited)
    adds its directories."""
    if any(x.name.split("[", 1)[0] in MOVES_CD for x in a.assignments):
        return [workspace], True
    known: list[tuple[str, Path]] = [(str(workspace), workspace)]
    unknown = False
    cdpath = [d for d in os.environ.get("CDPATH", "").split(":") if d]
    for word in a.cd_targets:
        if not word.literal:
            unknown = True
            continue
        text = os.path.expanduser(word.text)
        found: list[tuple[str, Path]] = []
        for logical, physical in known:
            if os.path.isabs(text):
                starts = [text]
            else:
                starts = [os.path.join(logical, text), os.path.join(physical, text)]
                if not text.startswith(("./", "../")) and text not in (".", ".."):
                    for entry in cdpath:
                        entry = os.path.expanduser(entry)
                        full = entry if os.path.isabs(entry) else os.path.join(logical, entry)
                        starts.append(os.path.join(full, text))
            for start in starts:
                for spelled in (os.path.normpath(start), start):
                    found.append((os.path.normpath(spelled), Path(os.path.realpath(spelled))))
        for item in found:
            if item not in known:
                known.append(item)
        if len(known) > MAX_BASES:
            return [workspace], True
    out: list[Path] = []
    for _logical, physical in known:
        if physical not in out:
            out.append(physical)
    return out, unknown


def resolve_word_paths(text: str, glob: bool, roots: list[Path]) -> list[Path]:
    """The paths a literal (or glob) word names, relative to each of ``roots``."""
    found: list[Path] = []
    expanded = os.path.expanduser(text)
    for root in roots:
        full = expanded if os.path.isabs(expanded) else os.path.join(root, expanded)
        if glob:
            matches = list(islice(globbing.iglob(full, recursive=False), MAX_GLOB_PATHS + 1))
            found.extend(Path(os.path.realpath(m)) for m in matches[:MAX_GLOB_PATHS])
            if not matches:
                found.append(Path(os.path.realpath(full)))
        else:
            found.append(Path(os.path.realpath(full)))
        if os.path.isabs(expanded):
            break
    return found


def targets(workspace: Path, a: ShellAnalysis, temp: Path | None = None) -> list[Target]:
    """The files ``a`` writes, resolved against the workspace and every ``cd`` target
    (``$TMPDIR/…`` against ``temp``, the session's temp dir commands get as ``TMPDIR``), and
    where a link the command itself makes leads them (``link_writes``)."""
    from agent_tui.core.permissions.link_writes import aliases, through

    roots, unknown_cd = bases(workspace, a)
    out = _targets(a, roots, unknown_cd, temp)
    found = aliases(a, roots) if a.writes else []
    for target in list(out) if found else []:
        if target.path is not None:
            out.extend(Target(target.write, far) for far in through(target.path, found))
    return out


def _targets(
    a: ShellAnalysis, roots: list[Path], unknown_cd: bool, temp: Path | None
) -> list[Target]:
    out: list[Target] = []
    for write in a.writes:
        word = write.target
        if DYN in word.text:
            out.append(Target(write, in_temp(word, a, temp)))
            continue
        relative = not os.path.isabs(os.path.expanduser(word.text))
        if relative and unknown_cd:
            out.append(Target(write, None))
        for path in resolve_word_paths(word.text, word.glob, roots):
            out.append(Target(write, path))
            if write.through_links:
                out.extend(Target(write, far) for far in links_below(path))
    return out


MAX_LINK_WALK = 5000
"""Entries ``links_below`` looks at; past it, a place known only at run time."""


def links_below(root: Path) -> list[Path | None]:
    """Where each symbolic link at or below ``root`` leads (resolved), for a writer that
    follows them (``FileWrite.through_links``); None when there are too many entries to look
    at all."""
    out: list[Path | None] = []
    seen = 0
    stack = [str(root)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_LINK_WALK:
                return [None]
            if entry.is_symlink():
                out.append(Path(os.path.realpath(entry.path)))
            elif entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
    return out


_TMPDIR = re.compile(r'^"?\$(?:TMPDIR|\{TMPDIR\})"?/')
_READS_TMPDIR = re.compile(r"\$TMPDIR(?![A-Za-z0-9_])|\$\{TMPDIR\}")
"""``$TMPDIR`` and ``${TMPDIR}``: a plain read of it."""


def _may_set_tmpdir(a: ShellAnalysis) -> bool:
    """Could the command give ``TMPDIR`` another value? Any assignment at all (``read x``, a
    nameref ``declare -n r=…``, ``printf -v``), or ``TMP`` anywhere but in a plain read of it
    (``TMPDIR=x``, ``${TMPDIR:=x}``, ``declare TMP"DIR"=x``): yes."""
    return bool(a.assignments) or "TMP" in _READS_TMPDIR.sub("", a.source)


def in_temp(word: Word, a: ShellAnalysis, temp: Path | None) -> Path | None:
    """Where ``$TMPDIR/name`` (the rest literal) writes: in ``temp``, the value every command
    gets, unless the command sets ``TMPDIR`` itself; else None (known only at run time)."""
    if temp is None or not _TMPDIR.match(word.raw) or word.text.count(DYN) != 1:
        return None
    if not word.text.startswith(DYN) or not a.understood or _may_set_tmpdir(a):
        return None
    rest = word.text[len(DYN) :].lstrip("/")
    path = Path(os.path.realpath(temp / rest))
    return path if path == temp or temp in path.parents else None


def command_options(a: ShellAnalysis, command: SimpleCommand) -> list[tuple[str, str]]:
    """The dangerous options (``git -c …``) among ``command``'s words."""
    texts = {w.text for w in command.words}
    return [(option, why) for option, why in a.dangerous_options if option in texts]


def path_texts(word: Word) -> list[str]:
    """The texts a word may name a path by: the whole word, the value of ``opt=VALUE``, the
    path of ``host:PATH`` (each without a leading ``@``: ``@file`` arguments)."""
    text = word.text
    out = [text]
    if "=" in text:
        out.append(text.split("=", 1)[1])
    if ":" in text:
        out.append(text.rsplit(":", 1)[1])
    return [c.removeprefix("@") for c in out if c.removeprefix("@")]


LOOP_WORD = re.compile(r'^"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?$')


def loop_words(word: Word, a: ShellAnalysis) -> list[Word] | None:
    """``$f`` / ``"$f"`` of a ``for f in WORDS`` loop (and set nowhere else): those words."""
    if word.text != DYN:
        return None
    match = LOOP_WORD.match(word.raw)
    if match is None:
        return None
    name = match.group(1)
    values = a.loop_values.get(name)
    if not values or any(x.name == name and x.how != "loop" for x in a.assignments):
        return None
    if any(DYN in value.text for value in values):  # for f in $(ls): names known only then
        return None
    return values
