"""Editing the prompt in the user's own editor: Ctrl+X Ctrl+E (as in bash and zsh).

``EditorChord`` reads the two keys. Ctrl+X stays the prompt's cut: with a selection it cuts at
once; without one it waits for the next key — Ctrl+E opens the editor, anything else cuts the
line as Ctrl+X alone does (then the key does what it does).

``edit_externally`` writes the text to a temporary ``.md`` file, runs ``$VISUAL`` or
``$EDITOR`` (split like a shell would; ``vi`` when neither is set) on it with the app
suspended, and reads the saved text back. An editor that exits with an error, or cannot be
started, leaves the text as it was and says why. Where the app cannot suspend (under Pilot in
the tests, Textual web) the editor runs without the terminal, in a thread: only a
non-interactive editor (a script) can work there.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from textual.app import App, SuspendNotSupported

NO_EDITOR = "No editor to open: set $VISUAL or $EDITOR (vi is not on PATH either)."
CHORD_HINT = "ctrl+x … ctrl+e: edit in $EDITOR"
"""Shown on the prompt's border while the chord waits for its second key."""
FALLBACK_EDITOR = "vi"

ChordStep = Literal["pass", "armed", "edit", "cut", "cut-only"]


class EditorChord:
    """The Ctrl+X Ctrl+E chord, one key at a time (``feed``)."""

    def __init__(self) -> None:
        self.armed = False

    def feed(self, key: str, *, selection: bool) -> ChordStep:
        """What ``key`` does: ``pass`` (not ours), ``armed`` (Ctrl+X waits for the next key),
        ``edit`` (Ctrl+E after it), ``cut`` (another key after it: cut the line, then the key
        does what it does), ``cut-only`` (Ctrl+X twice: cut the line, nothing more)."""
        if not self.armed:
            if key == "ctrl+x" and not selection:
                self.armed = True
                return "armed"
            return "pass"
        self.armed = False
        if key == "ctrl+e":
            return "edit"
        return "cut-only" if key == "ctrl+x" else "cut"

    def reset(self) -> None:
        self.armed = False


def editor_command(
    environ: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] = shutil.which,
) -> tuple[list[str], str] | None:
    """The editor to run and where it came from (``$VISUAL``, ``$EDITOR`` or the fallback);
    None when neither variable is set and ``vi`` is not on ``PATH``."""
    env = os.environ if environ is None else environ
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:  # unbalanced quotes: the whole value names the program
                words = [value]
            if words:
                return words, f"${name}"
    if which(FALLBACK_EDITOR) is None:
        return None
    return [FALLBACK_EDITOR], "the fallback"


@dataclass(frozen=True)
class Edited:
    """The text as the editor saved it, or (``text`` None) why the prompt is unchanged."""

    text: str | None
    problem: str | None = None


async def edit_externally(app: App[object], text: str) -> Edited:
    """Let the user edit ``text`` in their editor; see the module's docstring."""
    try:
        path = _write_temporary(text)
    except OSError as exc:
        return Edited(None, f"Cannot write the prompt to a file: {exc.strerror or exc}.")
    try:
        problem = await _open(app, path)
        if problem is not None:
            return Edited(None, f"{problem} The prompt is unchanged.")
        return Edited(_read_back(path))
    except OSError as exc:
        return Edited(None, f"Cannot read the edited prompt back: {exc.strerror or exc}.")
    finally:
        path.unlink(missing_ok=True)


async def edit_file(app: App[object], path: Path) -> str | None:
    """Open ``path`` itself in the user's editor (``/memory N``); why it could not be, or
    None once the editor exited cleanly. The file is created (with its directory) when it
    does not exist yet."""
    try:
        await asyncio.to_thread(_create, path)
    except OSError as exc:
        return f"Cannot create {path}: {exc.strerror or exc}."
    return await _open(app, path)


async def _open(app: App[object], path: Path) -> str | None:
    """Run the user's editor on ``path``: None when it exited cleanly, else why not."""
    found = editor_command()
    if found is None:
        return NO_EDITOR
    command, origin = found
    argv = [*command, str(path)]
    try:
        code, said = _run_suspended(app, argv)
    except SuspendNotSupported:
        code, said = await asyncio.to_thread(_run_detached, argv)
    if code is None:
        return f"The editor {command[0]!r} ({origin}) cannot be started: {said}."
    if code != 0:
        return f"The editor {command[0]!r} exited with {code}{': ' + said if said else ''}."
    return None


def _create(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(exist_ok=True)


def _write_temporary(text: str) -> Path:
    handle, name = tempfile.mkstemp(prefix="agent-tui-prompt-", suffix=".md")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text + "\n" if text else "")
    return Path(name)


def _read_back(path: Path) -> str:
    """The saved text, without the newline editors end a file with."""
    return path.read_text(encoding="utf-8", errors="replace").rstrip("\r\n")


def _run_suspended(app: App[object], argv: list[str]) -> tuple[int | None, str]:
    """Run the editor with the terminal, the app suspended (``SuspendNotSupported`` where it
    cannot be). The event loop waits for the editor: the app draws nothing meanwhile anyway.
    (exit code or None, why it did not start)."""
    with app.suspend():
        try:
            return subprocess.call(argv), ""
        except OSError as exc:
            return None, exc.strerror or str(exc)


def _run_detached(argv: list[str]) -> tuple[int | None, str]:
    """Run the editor without a terminal (in a thread): (exit code or None, the last line
    it wrote to stderr or why it did not start)."""
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            check=False,
        )
    except OSError as exc:
        return None, exc.strerror or str(exc)
    lines = done.stderr.strip().splitlines()
    return done.returncode, lines[-1] if lines else ""
