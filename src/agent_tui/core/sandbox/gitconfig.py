"""Git's config file format, read as git reads it, and which of its keys run nothing.

The check of a config a command wrote must see the keys git will see: an earlier version split
lines with Python's ``splitlines()``, which also splits on ``\\x0c``, ``\\x1c``-``\\x1e`` and
``\\x85`` — so a comment holding ``\\x1e[user]`` made the check believe the following keys
belonged to ``[user]`` while git kept them in the ``[alias]`` above. ``parse`` follows git's
own parser (``config.c``, ``git_parse_source``) byte for byte:

- lines end at ``\\n`` only (``\\r\\n`` counts as ``\\n``; a lone ``\\r`` is a space); a UTF-8
  byte order mark is skipped at the start, a partial one is an error;
- blanks are git's (``" \\t\\n\\r"``, not ``\\x0b``/``\\x0c``); letters and digits are ASCII;
- ``[section]``, ``[section "subsection"]`` (subsection case kept, ``\\`` escapes the next
  byte), the old ``[section.sub]`` (lower-cased);
- a key starts with a letter, goes on with letters, digits and ``-``, is lower-cased; a key
  without ``=`` is a boolean; values: ``"…"`` quoting, ``\\t \\n \\b \\\\ \\"`` escapes, a
  ``\\`` before the newline continues the value, ``#``/``;`` outside quotes start a comment,
  blanks inside are squeezed to the spaces between words, leading and trailing ones dropped.

What git would refuse (``bad config line``), a NUL byte, or a file over ``MAX_BYTES`` raises
``NotUnderstood``: a caller treats that as a config that runs code. It is checked against
``git config --file F --list`` in ``tests/core/sandbox/test_gitconfig_differential.py``.

``runs_code`` judges the keys with an allow-list: only the plain keys ``git init``, ``git
clone``, ``git remote``, ``git branch -u`` and ``git submodule`` write pass (with their values
checked where a value can name a program, such as a remote helper in a URL); anything else —
``core.fsmonitor``, ``core.pager``, ``core.hooksPath``, ``alias.*``, filters, ``include.path``,
``includeIf`` — runs code, or may, and is not allowed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

MAX_BYTES = 4_000_000
"""A bigger config is not read: it is judged as running code."""

Entry = tuple[str, str | None]
"""A key (``section.key`` or ``section.subsection.key``, as ``git config --list`` prints it)
and its value (None for a bare boolean key)."""

_BLANK = frozenset(b" \t\n\r")
_BOM = b"\xef\xbb\xbf"
_ESCAPES = {ord("t"): ord("\t"), ord("b"): ord("\b"), ord("n"): ord("\n")}


class NotUnderstood(ValueError):
    """Git would not read this config, or the check does not read it (a NUL byte…)."""


def _alpha(c: int) -> bool:
    return 65 <= c <= 90 or 97 <= c <= 122


def _keychar(c: int) -> bool:
    return _alpha(c) or 48 <= c <= 57 or c == 45


def _lower(c: int) -> int:
    return c + 32 if 65 <= c <= 90 else c


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.eof = False
        self.line = 1

    def next(self) -> int:
        """git's ``get_next_char``: ``\\r\\n`` is ``\\n``; the end of the file is a ``\\n``."""
        data, pos = self.data, self.pos
        if pos >= len(data):
            self.eof = True
            return 10
        c = data[pos]
        self.pos = pos + 1
        if c == 13 and self.pos < len(data) and data[self.pos] == 10:
            self.pos += 1
            c = 10
        if c == 10:
            self.line += 1
        return c

    def fail(self, what: str) -> NotUnderstood:
        return NotUnderstood(f"{what} (line {self.line})")


def _decode(raw: bytearray | bytes) -> str:
    return bytes(raw).decode("utf-8", errors="surrogateescape")


def _section(r: _Reader) -> bytes:
    """After ``[``: the section's name as git keeps it (``a.b`` or ``a.Sub``)."""
    name = bytearray()
    while True:
        c = r.next()
        if r.eof:
            raise r.fail("unfinished section header")
        if c == 93:  # ]
            return bytes(name)
        if c in _BLANK:
            return bytes(name) + b"." + _subsection(r, c)
        if not _keychar(c) and c != 46:
            raise r.fail("bad character in a section name")
        name.append(_lower(c))


def _subsection(r: _Reader, c: int) -> bytes:
    while True:
        if c == 10:
            raise r.fail("unfinished section header")
        c = r.next()
        if c not in _BLANK:
            break
    if c != 34:  # "
        raise r.fail('a section header needs [name "subsection"]')
    sub = bytearray()
    while True:
        c = r.next()
        if c == 10:
            raise r.fail("unfinished subsection")
        if c == 34:
            break
        if c == 92:  # \
            c = r.next()
            if c == 10:
                raise r.fail("unfinished subsection")
        sub.append(c)
    if r.next() != 93:
        raise r.fail("a section header must end right after the subsection's quote")
    return bytes(sub)


def _value(r: _Reader) -> bytes:
    """git's ``parse_value``, after the ``=``."""
    value = bytearray()
    quote = comment = False
    space = 0
    while True:
        c = r.next()
        if c == 10:
            if quote:
                raise r.fail("unfinished quoted value")
            return bytes(value)
        if comment:
            continue
        if c in _BLANK and not quote:
            if value:
                space += 1
            continue
        if not quote and c in (35, 59):  # # ;
            comment = True
            continue
        value += b" " * space
        space = 0
        if c == 92:
            c = r.next()
            if c == 10:
                continue  # a continued line
            if c in _ESCAPES:
                c = _ESCAPES[c]
            elif c not in (92, 34):
                raise r.fail("unknown escape in a value")
            value.append(c)
            continue
        if c == 34:
            quote = not quote
            continue
        value.append(c)


def parse(data: bytes) -> list[Entry]:
    """The entries of a config file, in order, as git reads them (includes not followed:
    ``include.path`` is an entry like any other). Raises ``NotUnderstood``."""
    if len(data) > MAX_BYTES:
        raise NotUnderstood(f"over {MAX_BYTES:,} bytes")
    if b"\0" in data:
        raise NotUnderstood("a NUL byte")
    if data[:1] == _BOM[:1]:
        if not data.startswith(_BOM):
            raise NotUnderstood("a partial byte order mark (line 1)")
        data = data[len(_BOM) :]
    r = _Reader(data)
    out: list[Entry] = []
    section = b""
    comment = False
    while True:
        c = r.next()
        if c == 10:
            if r.eof:
                return out
            comment = False
            continue
        if comment or c in _BLANK:
            continue
        if c in (35, 59):
            comment = True
            continue
        if c == 91:  # [
            section = _section(r)
            if not section:
                raise r.fail("an empty section name")
            continue
        if not _alpha(c):
            raise r.fail("a line that is neither a section, a key nor a comment")
        key = bytearray([_lower(c)])
        while True:
            c = r.next()
            if r.eof or not _keychar(c):
                break
            key.append(_lower(c))
        while c in (32, 9):
            c = r.next()
        value: bytes | None = None
        if c != 10:
            if c != 61:  # =
                raise r.fail("a key must be followed by = or the end of the line")
            value = _value(r)
        full = section + b"." + key if section else bytes(key)
        out.append((_decode(full), None if value is None else _decode(value)))


# -- what runs nothing ------------------------------------------------------------------------

_PLAIN = {
    "core": {
        "repositoryformatversion",
        "filemode",
        "bare",
        "logallrefupdates",
        "ignorecase",
        "precomposeunicode",
        "symlinks",
        "autocrlf",
        "eol",
        "worktree",
        "sharedrepository",
        "sparsecheckout",
        "sparsecheckoutcone",
        "quotepath",
        "safecrlf",
        "checkstat",
        "trustctime",
        "protecthfs",
        "protectntfs",
        "longpaths",
        "splitindex",
        "untrackedcache",
        "abbrev",
        "compression",
        "loosecompression",
        "bigfilethreshold",
        "packedgitlimit",
        "packedgitwindowsize",
        "deltabasecachelimit",
        "preloadindex",
        "commitgraph",
        "multipackindex",
    },
    "extensions": {"objectformat", "worktreeconfig", "partialclone", "preciousobjects"},
    "init": {"defaultbranch"},
    "user": {"name", "email", "useconfigonly"},
    "pull": {"rebase", "ff"},
    "push": {"default", "autosetupremote", "followtags"},
    "fetch": {"prune", "prunetags", "writecommitgraph"},
    "merge": {"ff", "conflictstyle"},
    "color": {"ui"},
    "index": {"sparse", "version", "threads", "skiphash"},
    "gc": {"auto", "autodetach", "autopacklimit"},
    "receive": {"denycurrentbranch", "denynonfastforwards"},
    "lfs": {"repositoryformatversion"},
}
"""``section.key`` (no subsection) that configure only what git stores or shows."""
_PLAIN_SUB = {
    "remote": {"url", "pushurl", "fetch", "push", "tagopt", "mirror", "prune", "promisor",
               "partialclonefilter", "skipdefaultupdate", "skipfetchall"},
    "branch": {"remote", "merge", "rebase", "pushremote", "description"},
    "submodule": {"url", "active", "update", "branch", "ignore", "shallow",
                  "fetchrecursesubmodules"},
}  # fmt: skip
"""``section.<name>.key`` the same; a name may hold dots (``remote.a.b.url``)."""
_URL_KEYS = {"url", "pushurl"}
_SAFE_URL = re.compile(
    r"(?:(?:https?|ssh|git|file)://[^\s]*"  # a URL git's own transports fetch
    r"|[\w.+][\w.+-]*@[\w.-]+:[^\s]*"  # user@host:path (ssh)
    r"|\.{0,2}/[^\s]*|[\w.][^\s:]*)",  # a path
    re.ASCII,
)
"""A URL git fetches with its own transports: not ``helper::address`` (which runs the program
``git-remote-helper``), not ``ext::`` or ``fd::``, nothing starting with ``-``."""
_SUBMODULE_UPDATE = frozenset({"checkout", "rebase", "merge", "none"})
"""Not ``!command``, which ``git submodule update`` runs."""


def split_key(key: str) -> tuple[str, str | None, str]:
    """(section, subsection or None, name): git's own split, at the first and last dot."""
    section, _, rest = key.partition(".")
    sub, dot, name = rest.rpartition(".")
    return section, (sub if dot else None), name


def entry_runs_code(key: str, value: str | None) -> bool:
    """Whether one entry is outside the allow-list of plain keys."""
    section, sub, name = split_key(key)
    if sub is None:
        return name not in _PLAIN.get(section, ())
    if name not in _PLAIN_SUB.get(section, ()):
        return True
    if name in _URL_KEYS:
        return value is None or _SAFE_URL.fullmatch(value) is None
    if section == "submodule" and name == "update":
        return value is None or value.lower() not in _SUBMODULE_UPDATE
    return False


def runs_code(data: bytes, before: bytes | None = None) -> str | None:
    """The first entry of a config that is not known to run nothing (or why it cannot be
    read), or None. With ``before`` (the file's earlier content), only the entries that are
    new are judged: what the file held before is the user's (or was judged then)."""
    try:
        entries = parse(data)
    except NotUnderstood as exc:
        return f"a config git reads differently or not at all: {exc}"
    return _first_unsafe(_new_entries(entries, before))


def _new_entries(entries: list[Entry], before: bytes | None) -> Iterable[Entry]:
    if before is None:
        return entries
    try:
        old = Counter(parse(before))
    except NotUnderstood:
        return entries
    fresh: list[Entry] = []
    for entry in entries:
        if old[entry] > 0:
            old[entry] -= 1
        else:
            fresh.append(entry)
    return fresh


def _first_unsafe(entries: Iterable[Entry]) -> str | None:
    for key, value in entries:
        if entry_runs_code(key, value):
            return key
    return None


# -- .gitmodules ------------------------------------------------------------------------------

_MODULE_KEYS = frozenset(
    {"path", "url", "branch", "update", "ignore", "shallow", "fetchrecursesubmodules"}
)


def gitmodules_runs_code(data: bytes, before: bytes | None = None) -> str | None:
    """The first entry of a ``.gitmodules`` that is not a plain submodule description (a
    ``update = !command``, a URL naming a remote helper, a key git does not know there)."""
    try:
        entries = parse(data)
    except NotUnderstood as exc:
        return f"a .gitmodules git reads differently or not at all: {exc}"
    for key, value in _new_entries(entries, before):
        section, sub, name = split_key(key)
        if section != "submodule" or sub is None or name not in _MODULE_KEYS:
            return key
        if name != "path" and entry_runs_code(key, value):
            return key
        if name == "path" and (value is None or value.startswith("-")):
            return key
    return None


# -- the user's own configs: where hooks live ---------------------------------------------------


def values_of(data: bytes, wanted: str) -> list[str] | None:
    """Every value of the key ``wanted`` in a config (None when it cannot be read), and the
    include paths it names (``include.path`` and any ``includeIf.*.path``) under the key
    ``include``: a caller following them sees a superset of what git would include."""
    try:
        entries = parse(data)
    except NotUnderstood:
        return None
    out: list[str] = []
    for key, value in entries:
        if value is None:
            continue
        section, _, name = split_key(key)
        included = section in ("include", "includeif") and name == "path"
        if key == wanted or (wanted == "include" and included):
            out.append(value)
    return out


DRIVER_SECTIONS = ("filter", "diff", "merge")


def drivers(data: bytes) -> set[tuple[str, str]]:
    """The (kind, name) of every filter, diff and merge driver a config defines."""
    try:
        entries = parse(data)
    except NotUnderstood:
        return set()
    out: set[tuple[str, str]] = set()
    for key, _value in entries:
        section, sub, _name = split_key(key)
        if section in DRIVER_SECTIONS and sub is not None:
            out.add((section, sub))
    return out
