"""Writes through links the same command makes (redteam3).

A write is judged by where its path leads when the command is judged: ``echo x > h/pre-commit``
is ``./h/pre-commit`` while ``h`` does not exist. But a part before it can make ``h`` a link —
``ln -s .git/hooks h && echo x > h/pre-commit``, ``ln .git/config c && echo x >> c``,
``cp -rs .git/hooks h``, ``cp -a shipped-link h``, ``mv shipped-link h`` — and the write then
changes the protected file the link leads to. So each link a command may make is an *alias*:
the link's path stands for what it leads to, and every write at or below it (the link's own
creation included, which is harmless but not told apart) is judged at that place too.

The links come from ``ln`` (symbolic or hard), ``cp`` making links (``-s``, ``-l``),
``cp``/``mv`` of a source that is a link or a directory holding links (copied or moved as
links, as ``cp -a``/``-P``/``-R`` and ``mv`` do), an extraction (``tar -x``: anything below
its directory may be a link to anywhere), and a git command that writes the work tree (any
link a commit holds). A plain copy makes new files: no alias.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.permissions.ln_args import parse_ln
from agent_tui.core.permissions.shell import DYN, ShellAnalysis, Word

MAX_LINK_WALK = 2000
"""Entries of a copied or moved directory looked at for links; past it, it counts as holding
one."""
Alias = tuple[Path | None, Path | None, bool]
"""(where a link will be — as written, resolved but for its last part —, what it leads to,
whether only writes *below* it count); None for a place known only at run time (a link named
so may be any path the command writes through, one leading so may lead anywhere)."""


def aliases(a: ShellAnalysis, roots: list[Path]) -> list[Alias]:
    """The links ``a`` may make, each with what it leads to (for every directory the command
    may be in)."""
    out: list[Alias] = []
    if any(write.git for write in a.writes):  # git checkout/switch/merge/stash… writes links
        out += _git_links(roots)
    for write in a.writes:  # tar -x: the archive's members may be links, to anywhere
        if write.through_links and DYN not in write.target.text:
            out += [(_place(write.target.text, root), None, True) for root in roots]
    for command in a.commands:
        name = command.name
        if name is None:
            continue
        base = os.path.basename(name.text)
        args = command.words[1:]
        if base == "ln":
            out += _ln(args, roots)
        elif base in ("cp", "mv"):
            out += _copy(base, args, roots)
    return out


def through(path: Path, found: list[Alias]) -> list[Path | None]:
    """The places a write of ``path`` also reaches through the aliases (None: known only at
    run time)."""
    out: list[Path | None] = []
    for link, leads, below_only in found:
        if link is None:
            out.append(None)
        elif (path == link and not below_only) or link in path.parents:
            if leads is None:
                out.append(None)
            else:
                out.append(Path(os.path.realpath(leads / path.relative_to(link))))
    return out


def _place(text: str, root: Path) -> Path:
    """A path as written, from ``root``: its directory resolved, its last part kept (a link
    is not followed where it is made)."""
    full = Path(os.path.normpath(os.path.join(root, os.path.expanduser(text))))
    return Path(os.path.realpath(full.parent)) / full.name


def _ln(args: list[Word], roots: list[Path]) -> list[Alias]:
    parsed = parse_ln(args)
    if parsed is None:
        return []
    targets, where, symbolic, relative, by_t = parsed
    out: list[Alias] = []
    for root in roots:
        for target in targets:
            if where is not None and DYN in where.text:
                out.append((None, None, False))  # a link named at run time: any write may pass it
                continue
            spelled = os.path.expanduser(target.text)
            if DYN in spelled:
                name = os.path.basename(spelled.rstrip("/"))
                if where is None and DYN in name:
                    out.append((None, None, False))
                    continue
                place = _place(where.text, root) if where is not None else _place(name, root)
                into = where is not None and (by_t or os.path.isdir(place))
                out.append((place / name if into and DYN not in name else place, None, False))
                continue
            if where is None:
                link = _place(os.path.basename(spelled.rstrip("/")) or spelled, root)
            else:
                place = _place(where.text, root)
                into = by_t or where.text.endswith("/") or os.path.isdir(place)
                link = place / os.path.basename(spelled.rstrip("/")) if into else place
            if os.path.isabs(spelled):
                leads = Path(spelled)
            elif symbolic and not relative:
                leads = link.parent / spelled
            else:
                leads = root / spelled
            out.append((link, Path(os.path.realpath(leads)), False))
    return out


_CP_VALUED = {"-t", "--target-directory", "-S", "--suffix"}
_KEEPS_LINKS = {"--archive", "--no-dereference", "--recursive"}


def _copy(base: str, args: list[Word], roots: list[Path]) -> list[Alias]:
    operands: list[Word] = []
    target_dir: Word | None = None
    makes_links = False
    keeps_links = base == "mv"  # mv moves a link as a link; cp copies one with -a/-P/-d/-R
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        index += 1
        if text == "--":
            operands += args[index:]
            break
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if name == "--target-directory":
                target_dir = (
                    Word(value, value) if eq else (args[index] if index < len(args) else None)
                )
                index += 0 if eq else 1
            elif name in _CP_VALUED and not eq:
                index += 1
            makes_links = makes_links or name in ("--symbolic-link", "--link")
            keeps_links = keeps_links or name in _KEEPS_LINKS or text == "--preserve=links"
        elif text.startswith("-") and text != "-":
            letters = text[1:]
            for position, letter in enumerate(letters):
                if letter in "tS":
                    rest = letters[position + 1 :]
                    if letter == "t":
                        target_dir = (
                            Word(rest, rest)
                            if rest
                            else (args[index] if index < len(args) else None)
                        )
                    if not rest:
                        index += 1
                    break
                makes_links = makes_links or (base == "cp" and letter in "sl")
                keeps_links = keeps_links or letter in "aPdRr"
        else:
            operands.append(word)
    if target_dir is not None:
        sources, dest, into = operands, target_dir, True
    elif len(operands) >= 2:
        sources, dest, into = operands[:-1], operands[-1], len(operands) > 2
    else:
        return []
    out: list[Alias] = []
    if DYN in dest.text:
        return [(None, None, False)] if makes_links else []
    if any(DYN in w.text for w in sources) and (makes_links or keeps_links):
        for root in roots:  # what a source named at run time is, and holds, is not known
            # (the copy itself, at the destination, is judged as it is)
            out.append((_place(dest.text, root), None, True))
        return out
    for root in roots:
        place = _place(dest.text, root)
        for source in sources:
            spelled = Path(os.path.normpath(os.path.join(root, os.path.expanduser(source.text))))
            if DYN in source.text or (not makes_links and not _holds_links(spelled)):
                continue
            name = os.path.basename(source.text.rstrip("/"))
            link = place / name if into or os.path.isdir(place) else place
            out.append((link, spelled, False))
    return out


def _holds_links(path: Path) -> bool:
    """``path`` is a link, or a directory with a link below it (or too many entries to
    tell)."""
    if path.is_symlink():
        return True
    if not path.is_dir():
        return False
    seen = 0
    for _dirpath, dirnames, filenames in os.walk(path):
        for name in (*dirnames, *filenames):
            seen += 1
            if seen > MAX_LINK_WALK:
                return True
            if os.path.islink(os.path.join(_dirpath, name)):
                return True
    return False


# -- links in the history: what git checkout, switch, merge, stash… may write --------------------

_links: dict[str, tuple[tuple[int, ...], frozenset[str] | None]] = {}
"""Per git directory: (the refs' stamp, the links) — a plain dict: a race only recomputes."""


def _git_links(roots: list[Path]) -> list[Alias]:
    """A link any commit holds, in the repository of each directory the command may be in: a
    git command that writes the work tree may make it (a branch the repository ships with
    ``h -> .git/hooks``), and a later write below it goes where it leads — not known here."""
    from agent_tui.core.permissions.git_index import git_dir, work_tree_top

    out: list[Alias] = []
    for root in roots:
        gitdir, top = git_dir(root), work_tree_top(root)
        if gitdir is None or top is None:
            continue
        found = committed_links(top, gitdir)
        if found is None:
            out.append((top, None, True))  # unknown: anything below the top
            continue
        out += [(top / rel, None, False) for rel in sorted(found)]
    return out


def committed_links(top: Path, gitdir: Path) -> frozenset[str] | None:
    """The paths any commit of the history (all refs, reflogs, stashes) holds as a symbolic
    link, by the agent's hardened git; None when git could not tell. Cached until a ref moves."""
    from agent_tui.core.permissions.git_index import history_log, refs_stamp

    key = str(gitdir)
    stamp = refs_stamp(gitdir)
    cached = _links.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    out = history_log(top, "--raw")
    if out is None:
        return None
    found: set[str] = set()
    fields = out.split(b"\0")
    for index, field in enumerate(fields[:-1]):
        head = field.lstrip(b"\n")
        if head.startswith(b":"):
            modes = head[1:].split(b" ")
            if len(modes) > 1 and modes[1] == b"120000":
                found.add(os.fsdecode(fields[index + 1]))
    result = frozenset(found)
    if len(_links) > 16:
        _links.clear()
    _links[key] = (stamp, result)
    return result
