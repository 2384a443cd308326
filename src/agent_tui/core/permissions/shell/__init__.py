"""Shell commands parsed with tree-sitter-bash, for permission matching (fail closed).

``analyse(command)`` returns the facts the permission pipeline judges: every simple command
the shell would run, the files it writes and reads, the variables it sets, and what the
analysis could not understand (``opaque``). See ``walker`` for the syntax, ``commands`` for the
meaning of one command, ``wrappers``/``programs``/``files`` for the maintained tables.
"""

from __future__ import annotations

import logging

from agent_tui.core.permissions.shell.model import (
    DYN,
    Assignment,
    FileWrite,
    Layer,
    ShellAnalysis,
    SimpleCommand,
    Word,
)

log = logging.getLogger(__name__)


def analyse(command: str) -> ShellAnalysis:
    """Every fact of ``command`` the permission rules need; never raises on any input."""
    from agent_tui.core.permissions.shell.expand import Budget
    from agent_tui.core.permissions.shell.varnames import check_names
    from agent_tui.core.permissions.shell.walker import Walker, analyse_into

    analysis = ShellAnalysis(command)
    if "\0" in command:
        analysis.note_opaque("a NUL byte (no shell command can hold one)")
        return analysis
    try:
        budget = Budget()
        analyse_into(analysis, command, 0, budget)
        check_names(Walker(analysis, b"", 0, budget))
    except RecursionError:
        analysis.note_opaque("commands nested too deeply to analyse")
    except Exception as exc:  # a bug here must fail closed, never allow
        log.exception("the shell analysis failed (the command asks)")
        analysis.note_opaque(f"a command the analysis failed on ({type(exc).__name__}: {exc})")
    return analysis


__all__ = [
    "DYN",
    "Assignment",
    "FileWrite",
    "Layer",
    "ShellAnalysis",
    "SimpleCommand",
    "Word",
    "analyse",
]
