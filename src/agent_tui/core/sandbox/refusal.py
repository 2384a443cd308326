"""When the sandbox cannot confine a command as promised, the command does not run.

Fail closed: a limit hit (the read rules' walk stopping past its entry cap) or a place the
agent's state cannot be guarded in (``agent_state``) refuses the command with what happened,
why, and what to do — never runs it with less confinement than the settings say.
"""

from __future__ import annotations

from agent_tui.core.sandbox.confinement import Hidden


class SandboxRefused(Exception):
    """The sandbox will not run this command: ``reason`` (what and why), ``hint`` (what to
    do)."""

    def __init__(self, reason: str, hint: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.reason} {self.hint}"


def require_complete(hidden: Hidden) -> None:
    """Raise ``SandboxRefused`` when the search for the files the read rules protect stopped
    early: what it did not reach may hold one, and it would be readable."""
    refused = incomplete(hidden)
    if refused is not None:
        raise refused


def incomplete(hidden: Hidden) -> SandboxRefused | None:
    """The refusal ``require_complete`` raises for ``hidden``, or None: the permission check
    says it before anyone is asked to approve a command that would be refused."""
    if hidden.complete:
        return None
    return SandboxRefused(
        f"Not run: the sandbox hides every file a read_file deny or ask rule protects, and "
        f"finding them stopped after {hidden.looked_at:,} entries (too many files below the "
        "rules' directories), so a protected file could have stayed readable.",
        "Narrow the rule to where the files are — read_file(/.env) or read_file(config/.env) "
        "instead of read_file(.env), which is looked for at every depth; "
        "read_file(//etc/app/*.key) instead of read_file(//**/*.key) — or move large "
        "generated trees (node_modules, build output) out of the rules' directories. The "
        "file tools can still read and search the workspace.",
    )
