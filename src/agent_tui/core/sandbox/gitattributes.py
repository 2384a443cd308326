"""Which lines of a ``.gitattributes`` (or ``info/attributes``) may make git run a program.

Attributes run nothing themselves; three of them pick a *driver* that a git config defines
with a command: ``filter=NAME`` (``filter.NAME.clean``/``smudge``/``process``, run by ``git
status``, ``add``, ``checkout``), ``diff=NAME`` (``diff.NAME.command``/``textconv``) and
``merge=NAME`` (``merge.NAME.driver``) — gitattributes(5). A line that sets one of them to
a name git does not define itself is judged as running code, also inside a macro definition
(``[attr]name …``). The built-in drivers pass: ``merge=text|binary|union``, the ``diff``
drivers git ships (function-name patterns only), and ``lfs`` (the driver ``git lfs track``
writes; it names the ``git-lfs`` program the user installed, configured only in configs a
command cannot change unseen); so do drivers the user's own configs define (the global
config, and the workspace's configs as they were before the command): their programs are the
user's choice, and a ``git checkout`` that brings ``*.ipynb filter=nbstripout`` is everyday.

Lines are split as git splits them (on ``\\n``, a ``\\r`` before it dropped), tokens on git's
blanks (space, tab, ``\\r``, ``\\n``); every token of a line is looked at, the pattern
included, so a quoted pattern holding a blank can only make the check stricter.
"""

from __future__ import annotations

import re
from collections import Counter

MAX_BYTES = 4_000_000
_BLANKS = re.compile(rb"[ \t\r\n]+")
_DRIVER = re.compile(rb"^(filter|diff|merge)=(.*)$", re.DOTALL)
BUILTIN_DIFF = frozenset(
    b"ada bash bibtex cpp csharp css dts elixir fortran fountain golang html java kotlin "
    b"markdown matlab objc pascal perl php python ruby rust scheme tex lfs".split()
)
BUILTIN_MERGE = frozenset({b"text", b"binary", b"union", b"lfs"})
BUILTIN_FILTER = frozenset({b"lfs"})


def _lines(data: bytes) -> list[bytes]:
    return [line.removesuffix(b"\r") for line in data.split(b"\n")]


def attributes_run_code(
    data: bytes, before: bytes | None = None, defined: frozenset[tuple[str, str]] = frozenset()
) -> str | None:
    """The first attribute of ``data`` that picks a driver git does not define itself (or
    why the file is not read), or None. With ``before``, only lines that are new count;
    ``defined`` holds the (kind, name) of drivers the user's own configs define (their
    programs: ``*.ipynb filter=nbstripout`` with ``filter.nbstripout`` in ``~/.gitconfig``)."""
    if len(data) > MAX_BYTES:
        return f"an attributes file over {MAX_BYTES:,} bytes"
    lines = _lines(data)
    if before is not None:
        old = Counter(_lines(before))
        fresh = []
        for line in lines:
            if old[line] > 0:
                old[line] -= 1
            else:
                fresh.append(line)
        lines = fresh
    for line in lines:
        tokens = [t for t in _BLANKS.split(line) if t]
        if not tokens or tokens[0].startswith(b"#"):
            continue
        for token in tokens:
            found = _DRIVER.match(token)
            if found is None:
                continue
            kind, name = found.group(1), found.group(2)
            allowed = {b"filter": BUILTIN_FILTER, b"diff": BUILTIN_DIFF}.get(kind, BUILTIN_MERGE)
            if name in allowed:
                continue
            key = (kind.decode(), name.decode("utf-8", errors="surrogateescape"))
            if key not in defined:
                return token.decode("utf-8", errors="replace")[:60]
    return None
