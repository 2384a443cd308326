"""edit_file: replace one exact, unique piece of text in a file (or every copy, on request).

A call may carry further edits of the same file (``more_edits``: Claude Code's ``MultiEdit``,
``core.tools.claude_calls``), which the model is not shown: all are applied in order to the
file's content — each edit's ``old_string`` is matched in the text the edits before it made —
and written at once, or none is (an edit that does not match leaves the file as it was, and
the error says which edit and why). One permission decision, one checkpoint entry and one
diff for the whole call."""

from __future__ import annotations

import asyncio
import contextlib
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from agent_tui.core.calls import ResultFacts
from agent_tui.core.text.summary import changed, diff_stats
from agent_tui.core.text.utf8 import escape_bytes, escaped_bytes, undecodable
from agent_tui.core.tools import claude_calls
from agent_tui.core.tools.aliases import CallAlias
from agent_tui.core.tools.base import (
    Tool,
    ToolContext,
    ToolInput,
    ToolMeta,
    ToolOutput,
)
from agent_tui.core.tools.builtin.atomic import recorded_write
from agent_tui.core.tools.errors import ToolErrorInfo, ToolFailure
from agent_tui.core.tools.file_access import LOCAL_FILES, FileAccess
from agent_tui.core.tools.file_state import FileStateCache, content_digest
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


class EditStep(ToolInput):
    """One further edit of ``more_edits`` (a ``MultiEdit`` edit)."""

    old_string: str
    new_string: str
    replace_all: bool = False


class EditFileInput(ToolInput):
    path: str = Field(description="File to edit.")
    old_string: str = Field(description="Exact text to replace.")
    new_string: str = Field(description="Replacement; empty deletes old_string.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence (e.g. a rename)."
    )
    more_edits: SkipJsonSchema[list[EditStep] | None] = Field(
        default=None, exclude_if=lambda edits: edits is None
    )
    """Edits applied after this one, in order, all or none (Claude Code's ``MultiEdit``);
    not in the schema the model sees."""

    def steps(self) -> list[EditStep]:
        """Every edit of the call, in order."""
        first = EditStep(
            old_string=self.old_string, new_string=self.new_string, replace_all=self.replace_all
        )
        return [first, *(self.more_edits or [])]


@dataclass
class _Planned:
    text: str
    """The file's content."""
    new_text: str
    """Its content after every edit of the call."""
    count: int
    """Replacements made, all edits together."""
    spans: list[tuple[int, int]] | None = None
    """One edit: the spans of ``text`` it replaces (the diff is built from them); several
    edits: None (the diff compares the two texts)."""
    replacement: str = ""
    """One edit: its ``new_string`` as written into the file."""


@dataclass
class _Edited:
    planned: _Planned
    undecodable: int
    """Bytes of the file that are not valid UTF-8 (kept exactly as they were)."""
    unkept: str | None = None
    """Why the change cannot be rewound (the old content was too big to keep), or None."""


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


def _read_yet(path: Path, where: str, state: FileStateCache) -> bool:
    """Whether ``path`` changed on disk since it was read; refuses a file not read yet."""
    changed = _changed(state, path)
    if changed is None:
        raise ToolFailure(
            "not_read",
            f"{where} has not been read in this session, so it cannot be edited safely.",
            f"Call read_file on {where} first, then call edit_file again.",
        )
    return changed


def _content(path: Path, where: str, state: FileStateCache, files: FileAccess) -> str:
    """The text of ``path`` to edit; refuses (``ToolFailure``) a file that cannot be edited:
    not read in this session, changed since, not a text file. With an editor's ``files``:
    the text its buffer holds (the file on disk is still opened first, as the judged path,
    a regular file; its stamp says whether it changed since the read)."""
    changed = _read_yet(path, where, state)
    try:
        raw = read_bytes(path)
        if files.editor:
            raw = files.read_text(path).encode("utf-8", errors="surrogateescape")
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
    return text


UNCHANGED = " No edit was made: the file is unchanged."


def _label(index: int, total: int) -> tuple[str, str, str]:
    """How an error names edit ``index`` of ``total``: (its name, where it was matched, what
    happened to the file); empty for a call of one edit."""
    if total == 1:
        return "", "", ""
    before = "" if index == 0 else f" after edits 1–{index}" if index > 1 else " after edit 1"
    return f"Edit {index + 1} of {total}: ", f" (its text as it is{before})", UNCHANGED


def _matches(text: str, where: str, step: EditStep, index: int, total: int) -> list[re.Match[str]]:
    """Where edit ``index`` of ``total`` goes in ``text``; refuses an ``old_string`` not found
    or not unique."""
    label, state, unchanged = _label(index, total)
    matches = _find(text, step.old_string)
    if not matches:
        raise ToolFailure(
            "not_found",
            f"{label}old_string was not found in {where}{state}.{unchanged}"
            f"{_not_found_hint(text, step.old_string)}{_undecodable_hint(text)}",
            f"Call read_file on {where} again and copy the exact text into old_string "
            "(same whitespace and indentation, without the line-number prefixes).",
            retryable=True,
        )
    if len(matches) > 1 and not step.replace_all:
        lines = _line_numbers(text, matches)
        shown_lines = ", ".join(map(str, lines[:MAX_LINES_LISTED]))
        more = f" and {len(lines) - MAX_LINES_LISTED} more" if len(lines) > MAX_LINES_LISTED else ""
        raise ToolFailure(
            "multiple_matches",
            f"{label}old_string occurs {len(matches)} times in {where} "
            f"(at lines {shown_lines}{more}){state}; it must be unique.{unchanged}",
            "Add surrounding lines to old_string so that it matches exactly one place, or set "
            "replace_all=true to replace every occurrence.",
            retryable=True,
        )
    return matches


def _planned(
    path: Path,
    where: str,
    inp: EditFileInput,
    state: FileStateCache,
    files: FileAccess = LOCAL_FILES,
) -> _Planned:
    """Read ``path`` and make every edit of the call on its text, in order; refuse
    (``ToolFailure``) a call that cannot be made whole. Changes nothing."""
    text = _content(path, where, state, files)
    steps = inp.steps()
    current, count = text, 0
    for index, step in enumerate(steps):
        matches = _matches(current, where, step, index, len(steps))
        new = _replacement(current, step.new_string)
        if len(steps) == 1:
            spans = [(m.start(), m.end()) for m in matches]
            return _Planned(text, _replaced(text, matches, new), len(matches), spans, new)
        current = _replaced(current, matches, new)
        count += len(matches)
    return _Planned(text, current, count)


def _replaced(text: str, matches: list[re.Match[str]], new: str) -> str:
    parts, pos = [], 0
    for match in matches:
        parts += [text[pos : match.start()], new]
        pos = match.end()
    parts.append(text[pos:])
    return "".join(parts)


def _replacement(text: str, new: str) -> str:
    """``new_string`` as it is written into ``text``: with CRLF line endings in a CRLF file."""
    if _uses_crlf(text) and "\r" not in new:
        return new.replace("\n", "\r\n")
    return new


def preview_diff(
    text: str,
    old: str,
    new: str,
    replace_all: bool,
    name: str,
    more: Sequence[tuple[str, str, bool]] = (),
) -> str | None:
    """The diff an edit of ``text`` (decoded as the tool decodes it) would make, matched as
    the tool matches — with ``more`` (``(old, new, replace_all)``), the diff of all the edits
    together; None when the tool would refuse it (not found, not unique). For the permission
    prompt, before anything is written."""
    from agent_tui.core.tools.files.diff import edit_diff, unified_diff

    current = text
    for old_string, new_string, every in [(old, new, replace_all), *more]:
        if not old_string or old_string == new_string:
            return None
        matches = _find(current, old_string)
        if not matches or (len(matches) > 1 and not every):
            return None
        replacement = _replacement(current, new_string)
        if not more:
            spans = [(m.start(), m.end()) for m in matches]
            return escape_bytes(edit_diff(text, spans, replacement, name))[0] or None
        current = _replaced(current, matches, replacement)
    return escape_bytes(unified_diff(text, current, name))[0] or None


def _edit(path: Path, where: str, inp: EditFileInput, ctx: ToolContext) -> _Edited:
    state, files = ctx.file_state, ctx.files
    planned = _planned(path, where, inp, state, files)
    data = planned.new_text.encode("utf-8", errors="surrogateescape")
    before = planned.text.encode("utf-8", errors="surrogateescape")
    _, unkept = recorded_write(path, data, ctx.changes, where, files, before)
    with contextlib.suppress(OSError):  # as in _changed; unrecorded only means "read it again"
        state.record(path, digest=content_digest(data))
    return _Edited(planned, undecodable(planned.text), unkept)


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
    steps = inp.steps()
    for index, step in enumerate(steps):
        label, _, unchanged = _label(index, len(steps))
        if step.old_string == "":
            raise ToolFailure(
                "empty_old_string",
                f"{label}old_string is empty; edit_file replaces existing text.{unchanged}",
                "Put the exact text to replace in old_string, or use write_file to rewrite the "
                "whole file.",
            )
        if step.old_string == step.new_string:
            raise ToolFailure(
                "no_change",
                f"{label}old_string and new_string are identical, so the edit would change "
                f"nothing.{unchanged}",
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
        if ctx.files.editor:  # the editor hears of the file only once the call is allowed
            _read_yet(real, where, ctx.file_state)
            return None
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
    from agent_tui.core.tools.files.diff import edit_diff, unified_diff  # a call's import

    real, where = _target(inp, ctx)
    path = ctx.resolve(inp.path)
    try:
        edited = await asyncio.to_thread(_edit, real, where, inp, ctx)
    except ReadOnlyFile as exc:  # made read-only since _target looked
        raise read_only_failure(where, exc.mode, "edit") from exc
    except PermissionError as exc:
        raise _permission_denied(where) from exc
    except OSError as exc:  # the write failed before its rename: nothing changed
        raise write_failure(exc, where, "edit") from exc
    planned = edited.planned
    if planned.spans is not None:
        diff = escape_bytes(edit_diff(planned.text, planned.spans, planned.replacement, where))[0]
    else:
        diff = escape_bytes(unified_diff(planned.text, planned.new_text, where))[0]
    count, steps = planned.count, len(inp.steps())
    said = f"Edited {where}: {count} replacement{'s' if count != 1 else ''}"
    said += f" ({steps} edits)." if steps > 1 else "."
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
        data={"path": str(path), "diff": diff, "replacements": count}
        | ({"edits": steps} if steps > 1 else {}),
        summary=changed(added, removed),
        facts=ResultFacts(added=added, removed=removed, created=False),
    )


TOOL = Tool(
    name="edit_file",
    description=DESCRIPTION,
    input_aliases=claude_calls.from_multi_edit,  # file_path, and MultiEdit's edits
    call_aliases=(
        CallAlias("Edit", claude_calls.from_edit),
        CallAlias("MultiEdit", claude_calls.from_multi_edit),
    ),
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
