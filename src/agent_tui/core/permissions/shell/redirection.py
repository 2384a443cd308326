"""What a redirection does to the facts: ``> f`` writes ``f``, ``< f`` reads it.

``TreeWalker.redirect`` reads a redirection node into a ``Redirection``; ``record_redirections``
adds the files it writes and reads to the analysis (descriptor duplications and the
terminal's own files are none), and makes the forms it does not follow opaque.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_tui.core.permissions.shell.model import FileWrite, ShellAnalysis, Word

__all__ = ["SPECIAL_FILES", "WRITE_OPS", "Redirection", "record_redirections"]

SPECIAL_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})
WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})


@dataclass
class Redirection:
    op: str
    target: Word | None
    extra: list[Word] = field(default_factory=list)
    """Words tree-sitter puts after the target (``echo a > f b``): bash's arguments."""


def record_redirections(a: ShellAnalysis, redirections: list[Redirection]) -> None:
    """Add the files ``redirections`` write and read to ``a``."""
    for r in redirections:
        target = r.target
        if r.op in ("<<", "<<-", "<<<") or target is None:
            continue
        if r.op in (">&", "<&") and (target.text.isdigit() or target.text == "-"):
            continue  # between descriptors
        if r.op == "<&":
            a.note_opaque(f"the redirection <&{target.shown}")
            continue
        if r.op in WRITE_OPS:
            if target.text not in SPECIAL_FILES and not target.text.startswith("/dev/fd/"):
                a.writes.append(FileWrite(target, f"{r.op} redirection"))
        elif r.op == "<":
            a.reads.append(target)
        else:
            a.note_opaque(f"the redirection {r.op}")
