"""Every name a path goes by on the way to its file: deny rules match each of them.

A rule is a pattern on paths, and a path that runs through symbolic links has several: the one
written (``secret-link``, ``private/key`` where ``private`` is a link to ``store``), each one
met while the links are followed one at a time, and the real one (``store/key``). The file
tools used to match only the real one, so a ``read_file`` deny rule naming a link, or a path
through a linked folder, matched nothing — while the sandbox's walk (``sandbox.walk``) hid the
file. Deny and ask rules match every name (more names can only make them stricter); an allow
rule only the real path (a link's innocent name must not allow where it leads).
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_HOPS = 40
"""Links followed one at a time (the kernel's own limit is 40)."""


def spellings(path: Path | str) -> list[Path]:
    """The names of ``path`` (absolute): as written (``..`` folded), after each link is
    followed, and resolved (last). One name when no link is on the way."""
    lexical = os.path.normpath(os.path.abspath(path))
    real = os.path.realpath(path)
    if lexical == real:
        return [Path(real)]
    out = [lexical]
    current = lexical
    for _ in range(MAX_HOPS):
        following = _one_hop(current)
        if following is None or following in out:
            break
        out.append(following)
        current = following
    out.append(real)
    return [Path(name) for name in dict.fromkeys(out)]


def _one_hop(path: str) -> str | None:
    """``path`` with its first symbolic link (from the root) replaced by what it names."""
    parts = path.split(os.sep)
    prefix = ""
    for index in range(1, len(parts)):
        prefix = f"{prefix}{os.sep}{parts[index]}"
        try:
            if not os.path.islink(prefix):
                continue
            target = os.readlink(prefix)
        except OSError:
            return None
        rest = parts[index + 1 :]
        return os.path.normpath(os.path.join(os.path.dirname(prefix), target, *rest))
    return None
