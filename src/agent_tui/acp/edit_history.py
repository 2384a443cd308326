"""The diffs of a saved session's edits, from its checkpoints, for ``session/load``'s replay.

The transcript does not keep a file's content; the checkpoint records do what they can
(``core.checkpoints.records``): each turn's ``FileBefore`` keeps a file's content before the
turn's first change to it, each change's ``FileAfter`` the digest of what it wrote. An edit
call of the transcript is matched to its record by turn, file and order (the k-th successful
edit of a file in a turn is the k-th ``FileAfter`` of that file in that turn; when the counts
differ, nothing is matched: a wrong diff is worse than none). Its text before is the turn's
``FileBefore`` or the previous change's text (not known when a command changed the file in
between: its ``FileAfter`` says ``command``, or a ``ShellChanges`` of the turn lists it); its
text after is found by digest: in the blob
store (a later turn kept it), in the file as it is now, or by applying the call's own input to
the text before (``write_file``'s content, ``edit_file``'s replacements) — only ever accepted
when the digest matches. What cannot be found says why (``EditDiff.missing``).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.acp.updates import EDITS, MAX_DIFF_BYTES
from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.checkpoints.records import (
    CheckpointEntry,
    FileAfter,
    FileBefore,
    ShellChanges,
)
from agent_tui.core.checkpoints.snapshot import read_current
from agent_tui.core.tools.file_state import content_digest
from agent_tui.core.transcript import Message, ToolCall


@dataclass(frozen=True)
class EditDiff:
    """An edit call's file before and after it (``before`` None: the call created it), or
    why it cannot be shown (``missing``)."""

    path: Path
    before: str | None = None
    after: str | None = None
    missing: str | None = None


@dataclass
class _Call:
    id: str
    """The call's id in the transcript (the one the replay shows)."""
    call: ToolCall
    path: str


def edit_diffs(
    messages: list[Message], entries: list[CheckpointEntry], blobs: BlobStore | None, cwd: Path
) -> dict[str, EditDiff]:
    """The diff of each successful edit call of ``messages``, by call id (blocking: it reads
    blobs and files)."""
    calls = _edit_calls(messages, cwd)
    befores: dict[tuple[str, str], FileBefore] = {}
    afters: dict[tuple[str, str], list[str | None]] = defaultdict(list)
    disturbed: dict[tuple[str, str], set[int]] = defaultdict(set)
    """The changes whose text before may not be what the change before them left."""
    for entry in entries:
        if isinstance(entry, FileBefore):
            befores.setdefault((entry.turn, entry.path), entry)
        elif isinstance(entry, FileAfter) and entry.command:  # not an edit: it disturbs the next
            disturbed[(entry.turn, entry.path)].add(len(afters[(entry.turn, entry.path)]))
        elif isinstance(entry, FileAfter):
            afters[(entry.turn, entry.path)].append(entry.digest)
        elif isinstance(entry, ShellChanges):
            listed = {os.path.realpath(change.path) for change in entry.changes}
            unsure = entry.more > 0 or entry.truncated
            for changed, so_far in afters.items():
                if changed[0] == entry.turn and (unsure or changed[1] in listed):
                    disturbed[changed].add(len(so_far))
    found: dict[str, EditDiff] = {}
    for key, made in calls.items():
        turn, path = key
        where = Path(path)
        if turn is None:
            for one in made:
                found[one.id] = EditDiff(where, missing=OLD_SESSION)
            continue
        digests = afters.get((turn, path), [])
        before = befores.get((turn, path))
        if before is None or len(digests) != len(made):
            for one in made:
                found[one.id] = EditDiff(where, missing=UNMATCHED)
            continue
        found.update(_chain(made, before, digests, disturbed[(turn, path)], blobs, where))
    return found


OLD_SESSION = "this session was saved before agent-tui kept checkpoints"
UNMATCHED = "the session's checkpoint records do not match this edit"
CHANGED_BETWEEN = "a command changed the file between this edit and the one before it"


def _chain(
    made: list[_Call],
    before: FileBefore,
    digests: list[str | None],
    disturbed: set[int],
    blobs: BlobStore | None,
    where: Path,
) -> Iterable[tuple[str, EditDiff]]:
    """The diffs of one turn's edits of one file, in order: each starts from the text the one
    before it left, unless a command changed the file in between (``disturbed``)."""
    text: str | None
    why: str | None = None
    if not before.exists:
        text = None
    elif before.blob is None:
        text, why = None, "its content before the turn was too big to keep"
    else:
        text, why = _text(_blob(blobs, before.blob), "its content before the turn is gone")
    known = why is None
    for index, (one, digest) in enumerate(zip(made, digests, strict=True)):
        if index in disturbed:
            text, known, why = None, False, CHANGED_BETWEEN
        after, after_why = _after(digest, text, known, one, blobs, where)
        if not known:  # the first cause stays the reason
            yield one.id, EditDiff(where, missing=why)
        elif after_why is not None:
            yield one.id, EditDiff(where, missing=after_why)
        else:
            yield one.id, EditDiff(where, before=text, after=after)
        if after_why is None:  # known after, even when the text before was not
            text, known, why = after, True, None
        elif known:
            text, known, why = None, False, after_why


def _after(
    digest: str | None,
    before: str | None,
    known: bool,
    one: _Call,
    blobs: BlobStore | None,
    where: Path,
) -> tuple[str | None, str | None]:
    """The text a change of digest ``digest`` left, or why it is not known."""
    if digest is None:
        return None, "the file was deleted"
    kept = _blob(blobs, digest)
    if kept is None:
        now = read_current(where, MAX_DIFF_BYTES)
        kept = now if now is not None and content_digest(now) == digest else None
    if kept is None:
        derived = _apply(one.call, before if known else None)
        if derived is not None and content_digest(derived.encode("utf-8")) == digest:
            return derived, None
    if kept is None:
        return None, "its content after the edit was not kept (the file changed again since)"
    return _text(kept, "")


def _apply(call: ToolCall, before: str | None) -> str | None:
    """What the call's own input makes of ``before`` (None: it cannot say; ``before`` None:
    the file did not exist or its text is not known, which only ``write_file`` can do
    without)."""
    args = call.parsed_arguments() or {}
    if call.name == "write_file":
        content = args.get("content")
        return content if isinstance(content, str) else None
    if before is None:
        return None
    text = before
    steps = [args, *(args.get("more_edits") or [])]
    for step in steps:
        if not isinstance(step, dict):
            return None
        old, new = step.get("old_string"), step.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            return None
        text = text.replace(old, new) if step.get("replace_all") else text.replace(old, new, 1)
    return text


def _blob(blobs: BlobStore | None, digest: str) -> bytes | None:
    if blobs is None or not blobs.has(digest):
        return None
    try:
        data = blobs.get(digest)
    except (OSError, ValueError):
        return None
    return data if len(data) <= MAX_DIFF_BYTES else None


def _text(data: bytes | None, why: str) -> tuple[str | None, str | None]:
    if data is None:
        return None, why or "its content is not kept"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return None, "it is not UTF-8 text"


def _edit_calls(messages: list[Message], cwd: Path) -> dict[tuple[str | None, str], list[_Call]]:
    """The successful edit calls, by (turn, resolved path), in the order they ran."""
    calls: dict[str, ToolCall] = {}
    turn: str | None = None
    found: dict[tuple[str | None, str], list[_Call]] = defaultdict(list)
    for message in messages:
        if message.role == "user" and not message.injected and message.compaction is None:
            turn = message.turn
        elif message.role == "assistant":
            calls.update((call.id, call) for call in message.tool_calls)
        elif message.role == "tool" and message.tool_call_id in calls and not message.is_error:
            call = calls[message.tool_call_id]
            if message.record is not None and message.record.call is not None:
                call = message.record.call  # the model named our tool otherwise: ours ran
            path = _path(call, cwd) if call.name in EDITS else None
            if path is not None:
                found[(turn, path)].append(_Call(message.tool_call_id, call, path))
    return found


def _path(call: ToolCall, cwd: Path) -> str | None:
    args = call.parsed_arguments() or {}
    raw = args.get("path") or args.get("file_path")
    if not isinstance(raw, str) or not raw:
        return None
    path = Path(raw).expanduser()
    return os.path.realpath(path if path.is_absolute() else cwd / path)
