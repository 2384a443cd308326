"""``agent-tui sandbox status``: whether shell commands run sandboxed here, and why not.

Exit 0 when they are (or the sandbox is off by choice), 1 when the settings ask for a sandbox
that cannot run here (``auto``: commands run unconfined; ``required``: they do not run), 2 for
a usage error."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str]) -> int:
    if list(argv) in (["-h"], ["--help"], ["status", "-h"], ["status", "--help"]):
        print(
            "usage: agent-tui sandbox status\n\n"
            "Say whether shell commands run sandboxed here (bubblewrap), and why not. Exit 0\n"
            "when they are (or the sandbox is off by choice), 1 when the settings ask for a\n"
            "sandbox that cannot run here, 2 for a usage error."
        )
        return 0
    if list(argv) != ["status"]:
        print("usage: agent-tui sandbox status", file=sys.stderr)
        return 2
    from agent_tui.core.sandbox import choose
    from agent_tui.core.settings import load_settings

    cwd = Path.cwd()
    loaded = load_settings(cwd)
    settings = loaded.settings.sandbox
    for problem in loaded.problems:
        if "sandbox" in problem.message:
            print(f"settings {problem.level}: {problem}")
    state = choose(settings, cwd)
    print(f"mode: {settings.mode}")
    print(state.describe())
    if state.shell is not None:
        print(f"workspace (writable): {cwd}")
        print("also writable: a private /tmp" + "".join(f", {p}" for p in settings.allow_write))
        print("network: " + ("on" if state.shell.network else "off"))
        auto = "on" if settings.auto_allow else "off"
        print(f"auto-allow (sandboxed commands run without asking): {auto}")
        return 0
    if state.mode == "off":
        return 0
    if state.refuses:
        print("run_shell refuses every command until this is fixed (sandbox.mode is required)")
    else:
        print("run_shell runs commands unconfined (sandbox.mode is auto)")
    return 1
