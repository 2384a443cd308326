"""grep: search file contents with a regular expression; file:line:text results.

Patterns run on the ``regex`` package, not ``re``: its default (V0) syntax is ``re``'s, and it
can do what ``re`` cannot — stop a search after a time limit, and release the GIL while it
matches. A pattern that backtracks catastrophically (``(a+)+$`` on a 30-byte line runs ~30 s
in ``re``) holds the GIL all that time, so even from a worker thread it freezes the event loop,
and Ctrl+C with it. Here every search gets what is left of one time budget for the whole call.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from pydantic import Field

from agent_tui.core.calls import ResultFacts
from agent_tui.core.text.summary import plural, withheld_note
from agent_tui.core.text.utf8 import escape_bytes, escaped_bytes
from agent_tui.core.tools import claude_calls
from agent_tui.core.tools.aliases import CallAlias
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolOutput
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.paths import (
    READ_ONLY_PATH_META,
    SAMPLE_BYTES,
    in_thread,
    not_found,
    shown,
)
from agent_tui.core.tools.files.safe_open import NotRegularFile, open_regular
from agent_tui.core.tools.files.walk import (
    IGNORE_TEXT,
    Ignored,
    glob_regex,
    guarded,
    walk_files,
)
from agent_tui.core.tools.files.withheld import Withheld, refuse_if_withheld

log = logging.getLogger(__name__)

MAX_MATCHES = 200
MAX_LINE_CHARS = 300
MAX_FILE_BYTES = 20 << 20

MATCH_SECONDS = 10.0
"""Time one grep call may spend matching, in all files and lines together (reading them does
not count). Each search is given what is left as ``regex``'s ``timeout=``, so a pattern that
backtracks catastrophically ends the call as ``regex_timeout`` after this long instead of
keeping a core busy for minutes. Ordinary patterns spend microseconds a line."""

MAX_UNROLLED = 50_000
"""How many pattern elements ``regex``'s compiler may build. It unrolls repeats: ``x{n}``
becomes n copies of ``x`` and ``x+`` two, nested ones multiply, and the copies are built in C
with the GIL held. ``(?:(?:ab|cd){1000}){1000}`` kills the process (segfault) and 20 nested
``+`` take 800 MB; 50,000 elements compile in a few tens of milliseconds."""

DESCRIPTION = f"""\
\
Search file contents line by line with a Python regex. Returns `file:line:text`, at most \
{MAX_MATCHES} matches, lines cut at {MAX_LINE_CHARS} chars. Skips binaries and files over \
{MAX_FILE_BYTES >> 20} MB. {IGNORE_TEXT} Matching stops after {MATCH_SECONDS:g} s: avoid nested \
quantifiers like `(a+)+`."""


class GrepInput(ToolInput):
    pattern: str = Field(
        min_length=1,
        description=r"`re` syntax, e.g. `TODO|FIXME`; escape literals: `print\(`.",
    )
    path: str = Field(default=".", description="File or directory to search.")
    glob: str | None = Field(
        default=None,
        description='Only matching files: "*.{ts,tsx}", or with "/" relative to `path`: '
        '"src/**/*.js".',
    )
    ignore_case: bool = Field(default=False, description="Match case-insensitively.")
    include_ignored: bool = Field(default=False, description="Also search ignored files.")


class Searcher(Protocol):
    """What grep needs of a compiled ``regex`` pattern (the package has no type stubs)."""

    def search(self, string: str, *, concurrent: bool, timeout: float) -> object: ...


MAX_NEEDLES = 8
"""Alternatives beyond which looking for each one's literal text costs more than searching."""


@dataclass(frozen=True)
class Pattern:
    """A compiled pattern and ``needles``: literal text every match contains (one piece per
    top-level alternative), or () when some alternative has none. A line holding none of them
    cannot match and is not searched: each search costs a system call (``regex`` reads the
    process clock to start its time limit), ~2 µs a line, ten times what ``in`` costs."""

    searcher: Searcher
    needles: tuple[str, ...] = ()


@dataclass
class _Found:
    withheld: Withheld
    left: float
    """Matching seconds left in the call's budget (``MATCH_SECONDS``)."""
    matches: list[tuple[Path, int, str]] = field(default_factory=list)
    more: bool = False
    searched: int = 0
    binary: int = 0
    large: int = 0
    timed_out: tuple[Path, int] | None = None
    """The file and line being searched when the budget ran out."""


def _search_lines(
    lines: BinaryIO, path: Path, pattern: Pattern, found: _Found, stop: threading.Event
) -> None:
    """Search each line with what is left of the budget; check ``stop`` between searches."""
    left = found.left
    clock = time.monotonic
    search = pattern.searcher.search
    needles = pattern.needles
    needle = needles[0] if len(needles) == 1 else None
    stopped = stop.is_set
    try:
        for number, raw in enumerate(lines, 1):
            if stopped():
                return
            if left <= 0:  # never pass timeout <= 0: regex takes a negative one as "no limit"
                found.timed_out = (path, number)
                return
            # Exact: a byte that is not valid UTF-8 stays one char (shown later as \xNN).
            text = raw.decode("utf-8", errors="surrogateescape").rstrip("\r\n")
            if needle is not None:
                if needle not in text:
                    continue
            elif needles and not any(n in text for n in needles):
                continue
            started = clock()
            try:
                hit = search(text, concurrent=True, timeout=left)
            except TimeoutError:
                found.timed_out, left = (path, number), 0.0
                return
            left -= clock() - started
            if hit:
                if len(found.matches) == MAX_MATCHES:
                    found.more = True
                    return
                found.matches.append((path, number, text))
    finally:
        found.left = left


def _search_file(path: Path, pattern: Pattern, found: _Found, stop: threading.Event) -> None:
    real = found.withheld.open_path(path)
    if real is None:
        return
    try:
        # Exactly the judged path: a symlink swapped in on the way since is not followed.
        fd = open_regular(real)
    except (OSError, NotRegularFile, ToolFailure):  # gone, a FIFO or device, swapped
        return
    with open(fd, "rb") as f:
        try:
            if os.fstat(fd).st_size > MAX_FILE_BYTES:
                found.large += 1
                return
            if b"\0" in f.read(SAMPLE_BYTES):
                found.binary += 1
                return
            f.seek(0)
            found.searched += 1
            _search_lines(f, path, pattern, found, stop)
        except OSError:
            return


def _scan(
    root: Path,
    pattern: Pattern,
    keep: Callable[[str], bool] | None,
    withheld: Withheld,
    stop: threading.Event,
    ignored: Ignored | None = None,
) -> _Found:
    found = _Found(withheld=withheld, left=MATCH_SECONDS)
    if ignored is not None:
        ignored.wanted = keep
    files: Iterable[tuple[Path, str]] = (
        [(root, root.name)] if root.is_file() else walk_files(root, stop, None, ignored)
    )
    for path, rel in files:
        if found.more or found.timed_out or stop.is_set():
            break
        if keep is None or keep(rel):
            _search_file(path, pattern, found, stop)
    return found


def _parse(pattern: str, flags: int) -> Any:
    """``pattern`` parsed by ``regex``'s own parser, exactly as ``regex.compile`` parses it (so
    what is judged here is what the compiler gets); raises ``regex.error`` as it would."""
    from regex import _regex_core as core

    global_flags = flags
    while True:  # regex.compile's own loop: an inline global flag restarts the parse
        source = core.Source(pattern)
        info = core.Info(global_flags, source.char_type, {})
        info.guess_encoding = core.UNICODE
        source.ignore_space = bool(info.flags & core.VERBOSE)
        try:
            return core._parse_pattern(source, info)
        except core._UnscopedFlagSet:
            global_flags = info.global_flags


def _size(node: Any, cap: int) -> int:
    """Elements ``regex`` builds for ``node`` (more than ``cap``: counting stopped there). A
    repeat's body is built once per copy the C compiler unrolls: its minimum count, plus one
    for an open upper bound (so ``+`` is two)."""
    from regex import _regex_core as core

    if isinstance(node, core.GreedyRepeat):  # lazy and possessive repeats too (subclasses)
        low, high = node.min_count, node.max_count
        copies: int = max(1, low + (0 if high == low else 1))
        inner: int = _size(node.subpattern, cap // copies + 1)
        return 1 + copies * inner
    total = 1
    for value in vars(node).values():
        for child in value if isinstance(value, list | tuple) else (value,):
            if isinstance(child, core.RegexBase):
                total += _size(child, cap - total)
                if total > cap:
                    return total
    return total


def _needles(parsed: Any) -> tuple[str, ...]:
    """The longest run of case-sensitive literal characters at the top level of each
    alternative (every match of that alternative contains it), or () if one has none."""
    from regex import _regex_core as core

    branches = parsed.branches if isinstance(parsed, core.Branch) else [parsed]
    if len(branches) > MAX_NEEDLES:
        return ()
    needles = []
    for branch in branches:
        items = branch.items if isinstance(branch, core.Sequence) else [branch]
        best = run = ""
        for item in items:
            literal = (
                type(item) is core.Character
                and item.positive
                and not item.zerowidth
                and item.case_flags == core.NOCASE
            )
            run = run + chr(item.value) if literal else ""
            best = max(best, run, key=len)
        if not best:
            return ()
        needles.append(best)
    return tuple(needles)


def compile_pattern(pattern: str, ignore_case: bool) -> Pattern:
    """The compiled pattern, or a structured ``invalid_pattern`` / ``pattern_too_large``."""
    import regex  # here, not at the top: the import costs ~20 ms of start-up

    flags = regex.IGNORECASE if ignore_case else 0
    try:
        parsed = _parse(pattern, flags)
        if _size(parsed, MAX_UNROLLED) > MAX_UNROLLED:
            raise ToolFailure(
                "pattern_too_large",
                f"The regular expression {pattern!r} is too large to compile: its repeats "
                f"unroll into more than {MAX_UNROLLED:,} elements.",
                "Each counted repeat such as `{1000}` copies what it repeats (`+` copies it "
                "twice), and nested repeats multiply. Use `+` or `*` instead of large counts, "
                "do not nest repeats, or search for a shorter piece of the text.",
            )
        compiled: Searcher = regex.compile(pattern, flags)
    except regex.error as exc:
        raise _invalid(pattern, exc.msg, exc.pos) from exc
    except RecursionError as exc:
        raise ToolFailure(
            "invalid_pattern",
            f"The regular expression {pattern!r} nests groups too deeply to compile.",
            "Use a flatter pattern: a few levels of parentheses are enough for a line search.",
        ) from exc
    except (ValueError, OverflowError) as exc:  # e.g. both VERSION0 and VERSION1 flags
        raise _invalid(pattern, str(exc), None, ask_re=False) from exc
    return Pattern(compiled, _needles(parsed))


def _invalid(pattern: str, msg: str, pos: int | None, *, ask_re: bool = True) -> ToolFailure:
    """The ``invalid_pattern`` error, worded by ``re`` when ``re`` rejects the pattern too
    (the syntax the model was promised; ``re`` also points at an unclosed group's opening
    rather than at the end of the pattern), else by ``regex``."""
    if ask_re:
        try:
            re.compile(pattern)
        except re.error as exc:
            msg, pos = exc.msg, exc.pos
        except Exception:  # only the wording is at stake: keep regex's
            log.exception("re could not word why the pattern %r is invalid", pattern)
    where = f" at position {pos}" if pos is not None else ""
    return ToolFailure(
        "invalid_pattern",
        f"Invalid regular expression {pattern!r}: {msg}{where}.",
        "Fix the pattern (Python `re` syntax). To search for literal text, escape "
        r"metacharacters such as ( ) [ ] { } . * + ? | \ with a backslash.",
    )


def _timed_out(inp: GrepInput, found: _Found, ctx: ToolContext) -> ToolFailure:
    assert found.timed_out is not None
    path, line = found.timed_out
    before = f"; {len(found.matches)} match(es) found before that" if found.matches else ""
    return ToolFailure(
        "regex_timeout",
        f"grep stopped: matching {inp.pattern!r} took more than {MATCH_SECONDS:g} s in all. "
        f"It had searched {found.searched} file(s) and was at line {line} of "
        f"{shown(path, ctx)}{before}.",
        "The pattern most likely backtracks catastrophically: nested quantifiers such as "
        "`(a+)+`, `(.*)*` or `(\\w+\\s?)*` try exponentially many ways to split a line that "
        "almost matches. Use a simpler pattern with one quantifier per part (`a+` instead of "
        "`(a+)+`), anchor it (`^def `) or make it more literal, or search a narrower path or "
        "glob.",
    )


def _file_filter(pattern: str | None) -> Callable[[str], bool] | None:
    if not pattern:
        return None
    regex = glob_regex(pattern.removeprefix("./"))
    if "/" in pattern:
        return lambda rel: regex.fullmatch(rel) is not None
    return lambda rel: regex.fullmatch(rel.rsplit("/", 1)[-1]) is not None


def _cut(text: str) -> str:
    if len(text) <= MAX_LINE_CHARS:
        return text
    return f"{text[:MAX_LINE_CHARS]}… [+{len(text) - MAX_LINE_CHARS:,} chars]"


async def _call(inp: GrepInput, ctx: ToolContext) -> ToolOutput:
    # In a thread: parsing a long pattern is Python code, the loop keeps running meanwhile.
    pattern = await in_thread(lambda stop: compile_pattern(inp.pattern, inp.ignore_case))
    root = ctx.resolve(inp.path)
    if not root.exists():
        raise not_found(root, ctx, kind="file or directory")
    refuse_if_withheld(root, ctx, "its content cannot be searched")
    keep = _file_filter(inp.glob)
    withheld = Withheld(ctx.reads)
    ignored = None if inp.include_ignored else Ignored(ctx.cwd, guarded(ctx))
    found = await in_thread(lambda stop: _scan(root, pattern, keep, withheld, stop, ignored))
    if found.timed_out is not None:
        raise _timed_out(inp, found, ctx)
    where = shown(root, ctx)
    skipped = []
    if found.binary:
        skipped.append(f"{found.binary} binary")
    if found.large:
        skipped.append(f"{found.large} over {MAX_FILE_BYTES >> 20} MB")
    skip_note = f"; skipped {', '.join(skipped)} file(s)" if skipped else ""
    if withheld.total:
        skip_note += f"; {withheld.note()}, not searched"
    ignored_note = ignored.note("searches") if ignored is not None else ""
    if ignored_note:
        skip_note += f"; {ignored_note}"
    data = {
        "pattern": inp.pattern,
        "path": str(root),
        "matches": len(found.matches),
        "truncated": found.more,
        "withheld": withheld.total,
        "ignored": ignored.files if ignored is not None else 0,
    }
    count = len(found.matches)
    facts = ResultFacts(matches=count, truncated=found.more, withheld=withheld.total)
    counted = plural(count, "match", "matches") + ("+" if found.more else "")
    summary = (counted if count else "no matches") + withheld_note(withheld.total)
    if not found.matches:
        return ToolOutput(
            f"No matches for {inp.pattern!r} in {where} "
            f"({found.searched} file(s) searched{skip_note}).",
            data=data,
            summary=summary,
            facts=facts,
        )
    lines, undecodable = [], 0
    for path, number, text in found.matches:
        line, escaped = escape_bytes(f"{shown(path, ctx)}:{number}:{_cut(text)}")
        lines.append(line)
        undecodable += escaped
    bytes_note = ""
    if undecodable:  # a file (or a file name) in another encoding
        data["undecodable_bytes"] = undecodable
        bytes_note = f"; not valid UTF-8: {escaped_bytes(undecodable)}"
    if found.more:
        unsearched = f" ({withheld.note()}, not searched)" if withheld.total else ""
        if ignored_note:
            unsearched += f" ({ignored_note})"
        lines.append(
            f"[only the first {MAX_MATCHES} matches are shown; there are more{unsearched}"
            f"{bytes_note}. "
            "Narrow the search: a more specific pattern, a sub-directory or file as path, or "
            'glob="*.py"]'
        )
    else:
        files = len({path for path, _, _ in found.matches})
        lines.append(
            f"[{len(found.matches)} match(es) in {files} file(s); "
            f"{found.searched} file(s) searched{skip_note}{bytes_note}]"
        )
    return ToolOutput("\n".join(lines), data=data, summary=summary, facts=facts)


TOOL = Tool(
    name="grep",
    call_aliases=(CallAlias("Grep", claude_calls.from_grep),),
    description=DESCRIPTION,
    input_model=GrepInput,
    call=_call,
    meta=READ_ONLY_PATH_META,
    timeout=60.0,
)
