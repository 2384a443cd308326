"""Shell commands parsed with tree-sitter-bash, for permission matching (fail closed).

``analyse(command)`` returns the facts the permission pipeline judges: every simple command
the shell would run, the files it writes and reads, the variables it sets, and what the
analysis could not understand (``opaque``). See ``walker`` for the syntax, ``commands`` for the
meaning of one command, ``wrappers``/``programs``/``files`` for the maintained tables.

Layers, each importing only the ones below it:

1. ``model`` (the facts: ``Word``, ``ShellAnalysis``…), ``words``, ``parse``, ``expand`` (the
   ``WordReader`` base: words and expansions as bash reads them), ``redirection``;
2. ``walking``: the ``Walker`` protocol, all a command's handler is handed;
3. the handlers, typed against that protocol: ``commands`` (the dispatch of one simple
   command) and what it dispatches to — ``builtins``, ``varnames``, ``files``, ``git*``,
   ``option_table`` and ``tables``, ``sed``, ``awk``, ``jq``, ``find``…;
4. ``walker``: ``TreeWalker`` walks the syntax tree and hands each command to ``commands``;
   this package's ``analyse`` starts it. Nothing below imports it.

It imports nothing outside this package (tree-sitter-bash aside): the judges
above (``shell_judge``, ``read_check``…) import it, never the reverse.
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
    from agent_tui.core.permissions.shell.walker import TreeWalker, analyse_into

    analysis = ShellAnalysis(command)
    if "\0" in command:
        analysis.note_opaque("a NUL byte (no shell command can hold one)")
        return analysis
    try:
        budget = Budget()
        analyse_into(analysis, command, 0, budget)
        check_names(TreeWalker(analysis, b"", 0, budget))
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
