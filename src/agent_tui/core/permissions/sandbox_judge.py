"""``sandbox.auto_allow``: a command the OS sandbox confines runs without asking.

The shell judgement asks this only after every deny rule, every check that asks in every mode
(an opaque command that could run a denied program, a file a read rule protects, a dangerous
variable, a protected path) and every ask rule — so those still win — and only when no allow
rule allowed the command and the mode would ask. It allows when the session's commands really
run sandboxed (bubblewrap works here) and the command stays inside what the sandbox permits:

- it writes nothing the sandbox keeps read-only (outside the workspace, ``/tmp`` and
  ``sandbox.allow_write``): such a write would fail, so the user is asked first;
- it needs no network when the sandbox has none (``curl``, ``git push``, ``pip install``…):
  it would fail too;
- with the network on, the sandbox confines files but not what a command sends: a network
  program asks, and so does code the analysis cannot follow (it could send the workspace
  anywhere). With the network off an opaque command is allowed: the sandbox does not depend
  on the parser;
- the files the read rules protect were all found and hidden: past the walk's cap the sandbox
  refuses every command (``refusal``), so the command is *denied* with that reason and what
  to do (narrow the rule) — asking would only lead to the same refusal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell import ShellAnalysis, SimpleCommand
from agent_tui.core.permissions.shell.programs import network_use
from agent_tui.core.permissions.shell_paths import Target
from agent_tui.core.sandbox.refusal import SandboxRefused, incomplete

if TYPE_CHECKING:
    from agent_tui.core.permissions.judging import Judging


def sandbox_verdict(
    p: Judging,
    a: ShellAnalysis,
    commands: list[SimpleCommand],
    writes: list[Target],
) -> tuple[str, str] | None:
    """None when auto-allow is not in play (off, or no working sandbox); else (kind, why):
    ``allow`` (why it runs without asking), ``ask`` (why it still asks) or ``deny`` (the
    sandbox would refuse to run it, so approving it would not help: what to do instead)."""
    sandbox = p.sandbox
    if sandbox is None or not sandbox.settings.auto_allow:
        return None
    shell = sandbox.state.shell
    if shell is None:
        return None
    refused = incomplete(p.reads.hidden())
    if refused is not None:
        return "deny", refused_reason(refused)
    label = shell.shelter.label
    for target in writes:
        if target.path is not None and not shell.writable(target.path):
            return "ask", (
                f"it writes {p.shown(target.path)} ({target.write.how}), which the sandbox "
                "keeps read-only (commands write only the workspace, /tmp and "
                "sandbox.allow_write), so it would fail there"
            )
    for command in commands:
        for argv in (*([w.text for w in layer.words] for layer in command.layers), command.argv):
            use = network_use(argv)
            if use is None:
                continue
            if shell.network:
                return "ask", (
                    f"it uses the network ({use}), which the sandbox does not confine "
                    "(sandbox.network is on)"
                )
            return "ask", (
                f"it uses the network ({use}), which the sandbox turns off, so it would fail "
                'there (allow it with "sandbox": {"network": "on"} in your user settings)'
            )
    if shell.network and (not a.understood or a.interpreters or a.unseen_code):
        what = a.opaque[0] if a.opaque else (a.interpreters or a.unseen_code or ["code"])[0]
        return "ask", (
            f"with the network on, {what} could send what it reads anywhere, and the analysis "
            "cannot follow it"
        )
    return "allow", f"auto-allowed: it runs in the sandbox ({label})"


def refused_reason(refused: SandboxRefused) -> str:
    """A sandbox refusal as a decision's reason: it would not run, why, what to do."""
    why = refused.reason.removeprefix("Not run: ").rstrip(".")
    return f"the sandbox would refuse to run it, so it is not asked about: {why}. {refused.hint}"
