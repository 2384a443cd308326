"""Deleting a spill from the browser: refused while anything may still point to it — a live
message, a saved session of this data dir, or the reference record of a session of another
data dir or process (``core.budget.refs``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from agent_tui.core.browse.listing import live_references
from agent_tui.core.browse.refused import SpillRefused
from agent_tui.core.budget.cleanup import first_file_naming
from agent_tui.core.budget.refs import REFS_DIR, Ledger, open_ledger
from agent_tui.core.budget.store import SpillStore, is_spill_name
from agent_tui.core.transcript import Message


def why_not_delete(
    store: SpillStore,
    path: Path,
    messages: Sequence[Message],
    session_files: Iterable[Path] = (),
) -> SpillRefused | None:
    """Why ``path`` may not be deleted: not a spill file of ``store``, a live message points to
    it, a saved session does (it may be resumed, and its pointers must work) or may (it cannot
    be read), or a session of another data dir or process does or may (its reference record,
    ``core.budget.refs``). None when it may be deleted. Blocking (reads the session files)."""
    refused = _own_refusal(store, path, messages, session_files)
    if refused is not None:
        return refused
    own = store.refs.held_keys()  # before the lock: a record being written holds both
    with open_ledger(store.dir, exclusive=False) as ledger:
        return _record_refusal(store, path, ledger, own)


def _own_refusal(
    store: SpillStore,
    path: Path,
    messages: Sequence[Message],
    session_files: Iterable[Path],
) -> SpillRefused | None:
    """``why_not_delete`` as this process sees it: its live messages and its sessions."""
    shown = store.shown(path)
    if not is_spill_name(path.name) or Path(os.path.realpath(path.parent)) != Path(
        os.path.realpath(store.checked_root())
    ):
        return SpillRefused("not_spill", f"{shown} is not a spill file.", "Nothing was deleted.")
    who = live_references(messages).get(path.name)
    if who is not None:
        return SpillRefused(
            "referenced",
            f"{shown} is still pointed to by a live message ({who}); the model may read it.",
            "It is deleted by itself once no message of the session refers to it.",
        )
    found = first_file_naming(path.name, session_files)
    if found is None:
        return None
    session, error = found
    named = f"the saved session {session_id(session)} ({_home_relative(session)})"
    if error is not None:
        return SpillRefused(
            "saved",
            f"{shown} may be referred to by {named}: it cannot be read "
            f"({error.strerror or error}).",
            "Nothing was deleted: a session that cannot be read may still be resumed. Make the "
            "file readable (or remove it), then try again.",
        )
    return SpillRefused(
        "saved",
        f"{shown} is referred to by {named}: resuming it (agent-tui --resume "
        f"{session_id(session)}) would read this spill.",
        "Delete that session file first if you no longer need it; otherwise leave the spill: "
        "it is deleted by itself once no message and no saved session refers to it.",
    )


def _record_refusal(
    store: SpillStore, path: Path, ledger: Ledger | None, own: frozenset[str]
) -> SpillRefused | None:
    """``why_not_delete`` by the reference records: a session of another data dir (or another
    process) that refers to the spill, or may."""
    if ledger is None:
        return None
    shown = store.shown(path)
    if ledger.blocked is not None:
        return SpillRefused(
            "saved",
            f"{shown} may be referred to by a session this process cannot see: {ledger.blocked}.",
            "Nothing was deleted: a reference record that cannot be read may name any spill. "
            "If it is not agent-tui's, remove it, then try again.",
        )
    for record in ledger.claims(path.name, own):
        if record.state == "dead":
            continue
        session = Path(record.session) if record.session else None
        named = (
            f"the saved session {session_id(session)} ({_home_relative(session)})"
            if session is not None
            else "an unsaved session"
        )
        if record.running:
            return SpillRefused(
                "saved",
                f"{shown} is pointed to by {named}, which another agent-tui process is running "
                "now (another data dir, or another run in this folder).",
                "Nothing was deleted: leave the spill, it is deleted by itself once no session "
                "refers to it.",
            )
        if record.state == "live" and session is not None:
            return SpillRefused(
                "saved",
                f"{shown} is referred to by {named}, of another data dir: resuming it "
                f"(agent-tui --resume {session}) would read this spill.",
                "Delete that session file first if you no longer need it; otherwise leave the "
                "spill: it is deleted by itself once no session refers to it.",
            )
        where = _home_relative(ledger.root / REFS_DIR / f"{record.key}.json")
        return SpillRefused(
            "saved",
            f"{shown} may be referred to by {named}: {record.why}.",
            "Nothing was deleted: that session may still be resumed. If it is gone for good, "
            f"remove its reference record ({where}), then try again.",
        )
    return None


def delete_spill(
    store: SpillStore,
    path: Path,
    messages: Sequence[Message],
    session_files: Iterable[Path] = (),
) -> None:
    """Delete a spill and its index; refused (``why_not_delete``) while a live message, a
    saved session or another data dir's session points to it — the records checked and the
    file deleted under the reference lock, as a cleanup does. Blocking: use a thread."""
    refused = _own_refusal(store, path, messages, session_files)
    if refused is not None:
        raise refused
    own = store.refs.held_keys()
    with open_ledger(store.dir, exclusive=True) as ledger:
        refused = _record_refusal(store, path, ledger, own)
        if refused is not None:
            raise refused
        store.remove(path)


def session_id(path: Path) -> str:
    """The id of a session file (``<UTC time>-<id>.jsonl``), as ``--resume`` takes it."""
    return path.stem.rsplit("-", 1)[-1]


def _home_relative(path: Path) -> str:
    """``path`` with the home directory as ``~``."""
    home = Path(os.path.expanduser("~"))
    return f"~/{path.relative_to(home).as_posix()}" if path.is_relative_to(home) else str(path)
