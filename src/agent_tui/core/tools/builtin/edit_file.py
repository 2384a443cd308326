"""edit_file: replace one exact, unique piece of text in a file (or every copy, on request)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from agent_tui.core.calls import ResultFacts
from agent_tui.core.text.summary import changed, diff_stats
from agent_tui.core.text.utf8 import escape_bytes, escaped_bytes, undecodable
from agent_tui.core.tools.aliases import renamed
from agent_tui.core.tools.base import (
    FileChanges,
    Tool,
    ToolContext,
    ToolInput,
    ToolMeta,
    ToolOutput,
)
from agent_tui.core.tools.builtin.atomic import recorded_write
from agent_tui.core.tools.errors import ToolErrorInfo, ToolFailure
from agent_tui.core.tools.file_state import FileStateCache, content_digest
from agent_tui.core.tools.files.diff import edit_diff
from agent_tui.core.tools.files.paths import (
    SAMPLE_BYTES,
    is_directory,
    looks_binary,
    not_found,
    read_only_failure,
    shown,
    write_failure,
)
from agent_tui.core.tools.files.safe_open import (
    NotRegularFile,
    ReadOnlyFile,
    read_bytes,
    read_only,
    resolve_target,
    swapped,
)

MAX_LINES_LISTED = 20
_LINE_PREFIX = re.compile(r"^\s*\d+\t", re.MULTILINE)

DESCRIPTION = """\
\
Replace exact text in a file. `old_string` is literal (whitespace counts), copied from \
read_file without the line-number prefix, and must occur once unless replace_all (add context \
lines to make it unique). Read or write the file in this session first; re-read it if it \
changed. CRLF files take plain newlines."""


class EditFileInput(ToolInput):
    path: str = Field(description="File to edit.")
    old_string: str = Field(description="Exact text to replace.")
    new_string: str = Field(description="Replacement; empty deletes old_string.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence (e.g. a rename)."
    )


@dataclass
class _Planned:
    text: str
    matches: list[re.Match[str]]


@dataclass
class _Edited:
    old_text: str
    spans: list[tuple[int, int]]
    replacement: str
    undecodable: int
    """Bytes of the file that are not valid UTF-8 (kept exactly as they were)."""
    unkept: str | None = None
    """Why the change cannot be rewound (the old content was too big to keep), or None."""

    @property
    def count(self) -> int:
        return len(self.spans)


def _uses_crlf(text: str) -> bool:
    crlf = text.count("\r\n")
    return crlf > 0 and crlf * 2 >= text.count("\n")


def _find(text: str, old: str) -> list[re.Match[str]]:
    """Literal matches of ``old``; on a CRLF file, ``\\n`` in ``old`` also matches ``\\r\\n``."""
    found = list(re.finditer(re.escape(old), text))
    if not found and "\r\n" in text and "\n" in old and "\r" not in old:
        pattern = r"\r?\n".join(re.escape(part) for part in old.split("\n"))
        found = list(re.finditer(pattern, text))
    return found


def _line_numbers(text: str, matches: list[re.Match[str]]) -> list[int]:
    numbers, line, pos = [], 1, 0
    for match in matches:
        line += text.count("\n", pos, match.start())
        pos = match.start()
        numbers.append(line)
    return numbers


def _not_found_hint(text: str, old: str) -> str:
    if _LINE_PREFIX.search(old) and not _LINE_PREFIX.search(text):
        return (
            " old_string seems to contain read_file's line-number prefixes (number + tab); "
            "those are not part of the file."
        )
    tokens = old.split()
    if tokens:
        loose = re.search(r"\s+".join(re.escape(t) for t in tokens), text)
        if loose:
            line = text.count("\n", 0, loose.start()) + 1
            return (
                f" A match that differs only in whitespace (indentation, spaces, tabs or "
                f"line breaks) starts at line {line}."
            )
    return ""


def _undecodable_hint(text: str) -> str:
    count = undecodable(text)
    if not count:
        return ""
    return (
        f" The file is not valid UTF-8 ({escaped_bytes(count)} by read_file): old_string "
        "cannot contain those bytes — match text next to them instead."
    )


def _changed(state: FileStateCache, path: Path, raw: bytes | None = None) -> bool | None:
    """``state.changed_since_read``, which keys by realpath: that raises if a symlink on the
    judged path is being swapped, which is a changed path, not a crash."""
    try:
        return state.changed_since_read(path, raw)
    except OSError as exc:
        raise swapped(path, "a symlink on it was swapped while it was checked") from exc


def _planned(path: Path, where: str, inp: EditFileInput, state: FileStateCache) -> _Planned:
    """Read ``path`` and find where the edit goes; refuse (``ToolFailure``) an edit that
    cannot be made: not read in this session, changed since, not a text file, ``old_string``
    not found or not unique. Changes nothing."""
    changed = _changed(state, path)
    if changed is None:
        raise ToolFailure(
            "not_read",
            f"{where} has not been read in this session, so it cannot be edited safely.",
            f"Call read_file on {where} first, then call edit_file again.",
        )
    try:
        raw = read_bytes(path)
    except NotRegularFile:
        raise ToolFailure(
            "not_a_file",
            f"{where} is not a regular file (a device, socket or pipe).",
            "edit_file only edits regular text files.",
        ) from None
    if changed or _changed(state, path, raw):
        raise ToolFailure(
            "stale_file",
            f"{where} changed on disk since you last read it (another program or command "
            "modified it).",
            f"Call read_file on {where} again to see its current content, then redo the edit "
            "against that.",
            retryable=True,
        )
    if looks_binary(raw[:SAMPLE_BYTES]):
        raise ToolFailure(
            "binary_file",
            f"{where} is not a text file; edit_file only edits UTF-8 text.",
            "Use run_shell with a suitable tool if the file really must change.",
        )
    # Exact and reversible: a byte that is not valid UTF-8 becomes U+DC80–U+DCFF and is
    # written back as the same byte (old_string and new_string hold no surrogate: dispatch
    # refuses them), so an edit changes nothing but the replaced spans.
    text = raw.decode("utf-8", errors="surrogateescape")
    if text.encode("utf-8", errors="surrogateescape") != raw:
        raise ToolFailure(
            "not_text",
            f"{where} is not valid UTF-8 and its bytes cannot be kept exactly by an edit.",
            "Use run_shell with a suitable tool (e.g. iconv to convert it to UTF-8 first).",
        )
    matches = _find(text, inp.old_string)
    if not matches:
        raise ToolFailure(
            "not_found",
            f"old_string was not found in {where}.{_not_found_hint(text, inp.old_string)}"
            f"{_undecodable_hint(text)}",
            f"Call read_file on {where} again and copy the exact text into old_string "
            "(same whitespace and indentation, without the line-number prefixes).",
            retryable=True,
        )
    if len(matches) > 1 and not inp.replace_all:
        lines = _line_numbers(text, matches)
        shown_lines = ", ".join(map(str, lines[:MAX_LINES_LISTED]))
        more = f" and {len(lines) - MAX_LINES_LISTED} more" if len(lines) > MAX_LINES_LISTED else ""
        raise ToolFailure(
            "multiple_matches",
            f"old_string occurs {len(matches)} times in {where} "
            f"(at lines {shown_lines}{more}); it must be unique.",
            "Add surrounding lines to old_string so that it matches exactly one place, or set "
            "replace_all=true to replace every occurrence.",
            retryable=True,
        )
    return _Planned(text, matches)


def _replacement(text: str, new: str) -> str:
    """``new_string`` as it is written into ``text``: with CRLF line endings in a CRLF file."""
    if _uses_crlf(text) and "\r" not in new:
        return new.replace("\n", "\r\n")
    return new


def preview_diff(text: str, old: str, new: str, replace_all: bool, name: str) -> str | None:
    """The diff an edit of ``text`` (decoded as the tool decodes it) would make, matched as
    the tool matches; None when the tool would refuse it (not found, not unique). For the
    permission prompt, before anything is written."""
    if not old or old == new:
        return None
    matches = _find(text, old)
    if not matches or (len(matches) > 1 and not replace_all):
        return None
    spans = [(m.start(), m.end()) for m in matches]
    return escape_bytes(edit_diff(text, spans, _replacement(text, new), name))[0] or None


def _edit(
    path: Path, where: str, inp: EditFileInput, state: FileStateCache, changes: FileChanges
) -> _Edited:
    planned = _planned(path, where, inp, state)
    text, matches = planned.text, planned.matches
    new = _replacement(text, inp.new_string)
    parts, pos = [], 0
    for match in matches:
        parts += [text[pos : match.start()], new]
        pos = match.end()
    parts.append(text[pos:])
    new_text = "".join(parts)
    data = new_text.encode("utf-8", errors="surrogateescape")
    _, unkept = recorded_write(path, data, changes, where)
    with contextlib.suppress(OSError):  # as in _changed; unrecorded only means "read it again"
        state.record(path, digest=content_digest(data))
    spans = [(m.start(), m.end()) for m in matches]
    return _Edited(text, spans, new, undecodable(text), unkept)


def _target(inp: EditFileInput, ctx: ToolContext) -> tuple[Path, str]:
    """(the path the edit works on, how it is shown); refuses a directory, a missing file and
    an edit that changes nothing."""
    path = ctx.resolve(inp.path)
    where = shown(path, ctx)
    real = resolve_target(inp.path, ctx)
    if real.is_dir():
        raise is_directory(path, ctx, "edit_file")
    if not real.exists():
        failure = not_found(path, ctx)
        failure.info.next_step += " To create a new file, use write_file."
        raise failure
    st = real.stat()
    if read_only(st):
        raise read_only_failure(where, stat.S_IMODE(st.st_mode), "edit")
    if inp.old_string == "":
        raise ToolFailure(
            "empty_old_string",
            "old_string is empty; edit_file replaces existing text.",
            "Put the exact text to replace in old_string, or use write_file to rewrite the "
            "whole file.",
        )
    if inp.old_string == inp.new_string:
        raise ToolFailure(
            "no_change",
            "old_string and new_string are identical, so the edit would change nothing.",
            "Put the new text in new_string; if the file is already as wanted, move on.",
        )
    return real, where


def _permission_denied(where: str) -> ToolFailure:
    return ToolFailure(
        "permission_denied",
        f"Cannot edit {where}: permission denied.",
        "Ask the user to fix the permissions, or edit another file.",
    )


def _precheck(inp: EditFileInput, ctx: ToolContext) -> ToolErrorInfo | None:
    """The refusals of ``_call`` that need no write, before anyone is asked to approve the
    edit: not read yet, changed since it was read, ``old_string`` not found or not unique…
    Anything it cannot tell (an unexpected OS error) is left to the call itself."""
    try:
        real, where = _target(inp, ctx)
        try:
            _planned(real, where, inp, ctx.file_state)
        except PermissionError as exc:
            raise _permission_denied(where) from exc
    except ToolFailure as failure:
        return failure.info
    except OSError:
        return None
    return None


async def _call(inp: EditFileInput, ctx: ToolContext) -> ToolOutput:
    real, where = _target(inp, ctx)
    path = ctx.resolve(inp.path)
    try:
        edited = await asyncio.to_thread(_edit, real, where, inp, ctx.file_state, ctx.changes)
    except ReadOnlyFile as exc:  # made read-only since _target looked
        raise read_only_failure(where, exc.mode, "edit") from exc
    except PermissionError as exc:
        raise _permission_denied(where) from exc
    except OSError as exc:  # the write failed before its rename: nothing changed
        raise write_failure(exc, where, "edit") from exc
    diff, _ = escape_bytes(edit_diff(edited.old_text, edited.spans, edited.replacement, where))
    count = edited.count
    said = f"Edited {where}: {count} replacement{'s' if count != 1 else ''}."
    if edited.undecodable:
        said += (
            f" The file is not valid UTF-8 ({escaped_bytes(edited.undecodable)}); the edit "
            "kept those bytes exactly as they were."
        )
    if edited.unkept:
        said += f" Note: {edited.unkept}."
    added, removed = diff_stats(diff)
    return ToolOutput(
        f"{said}\n{diff}" if diff else said,
        data={"path": str(path), "diff": diff, "replacements": count},
        summary=changed(added, removed),
        facts=ResultFacts(added=added, removed=removed, created=False),
    )


TOOL = Tool(
    name="edit_file",
    description=DESCRIPTION,
    input_aliases=renamed(file_path="path"),  # Claude Code's Read/Write/Edit
    input_model=EditFileInput,
    call=_call,
    precheck=_precheck,
    meta=ToolMeta(
        read_only=False,
        concurrency_safe=False,
        rule_kind="path",
        rule_subject="path",
        reports_changes=True,
    ),
)
