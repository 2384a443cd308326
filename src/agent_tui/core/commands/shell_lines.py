"""The shell lines of a custom command: run before the prompt is sent, their output inlined,
as Claude Code does.

Two forms, found after the arguments are put in (as Claude Code does: an argument becomes
part of the command line, which is then judged as a whole):

- inline, ``!`git status` ``: a ``!`` at the start of a line, after a space, a quote or an
  opening bracket, then one backtick span on one line (the ``!`` of ``save!`` is text);
- fenced, a block opening with a line ```` ```! ```` and closing with a line ```` ``` ````:
  its lines are one script.

A backslash before the ``!`` (``\\!`git status` ``) keeps the text as written (without the
backslash). Each command is handed to a ``ShellRun`` (``command_shell.CommandShell``: a
``run_shell`` call under the session's permission rules, hooks and sandbox); what it answers
replaces the command in the prompt: the output, or a note saying why nothing ran. At most
``MAX_LINES`` commands run per command file; the rest are replaced by a note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

MAX_LINES = 20
INLINE = re.compile(r"(?:(?<=[\s\"'(\[])|^)(\\?)!`([^`\n]+)`", re.MULTILINE)
FENCE = re.compile(r"^```!\s*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Ran:
    """What a shell line became: ``text`` goes into the prompt; ``note`` (empty when it ran)
    says, for the user, why it did not run or that it failed."""

    text: str
    note: str = ""


class ShellRun(Protocol):
    async def __call__(self, command: str) -> Ran: ...


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    command: str
    escaped: bool = False


def _spans(body: str) -> list[_Span]:
    found = [
        _Span(m.start(), m.end(), m.group(1).rstrip("\n"))
        for m in FENCE.finditer(body)
        if m.group(1).strip()
    ]
    for m in INLINE.finditer(body):
        if any(s.start <= m.start() < s.end for s in found):
            continue
        command = m.group(2).strip()
        if command:
            found.append(_Span(m.start(), m.end(), command, escaped=bool(m.group(1))))
    return sorted(found, key=lambda s: s.start)


def has_shell_lines(body: str) -> bool:
    """Whether ``body`` has a shell line to run (an escaped one does not count)."""
    return any(not s.escaped for s in _spans(body))


async def run_shell_lines(body: str, run: ShellRun | None) -> tuple[str, list[str]]:
    """``(body with each shell line replaced, notes)``. ``run`` None (nowhere to run them):
    each is replaced by a note saying so."""
    out: list[str] = []
    notes: list[str] = []
    at = 0
    count = 0
    for span in _spans(body):
        out.append(body[at : span.start])
        at = span.end
        if span.escaped:
            out.append(body[span.start + 1 : span.end])
            continue
        count += 1
        if run is None:
            ran = Ran(not_run(span.command, "shell lines do not run here"), "not run")
        elif count > MAX_LINES:
            ran = Ran(
                not_run(span.command, f"only the first {MAX_LINES} shell lines run"), "not run"
            )
        else:
            ran = await run(span.command)
        out.append(ran.text)
        if ran.note:
            notes.append(f"!`{_short(span.command)}`: {ran.note}")
    out.append(body[at:])
    return "".join(out), notes


def _short(command: str) -> str:
    line = " ".join(command.split())
    return line if len(line) <= 60 else line[:59] + "…"


def not_run(command: str, why: str) -> str:
    """The text put in the prompt for a shell line that did not run."""
    return f"[shell line `{_short(command)}` not run: {why}]"
