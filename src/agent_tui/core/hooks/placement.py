"""Where a hook runs: as the user's own program, or confined like a command of the agent.

The hooks of the user's settings are the user's programs, as in Claude Code: they run outside
the sandbox, with the user's environment, and can read what the user keeps in the home (a
guard in ``~/.config/agent-tui/`` or ``~/.claude/hooks/``: inside the sandbox, where the home
is hidden, it was "not found" and the call it should have blocked ran). Two kinds of hook run
confined (in the session's sandbox when there is one, with an allow-listed environment):

- the hooks of the project's files (``.agent-tui/settings.json``, ``settings.local.json``):
  a repository's code, run only once trusted, never with more than a command of the agent;
- a user hook whose command runs a file of the workspace — a program or script path inside it,
  or the project directory through ``$CLAUDE_PROJECT_DIR`` / ``$AGENT_TUI_PROJECT_DIR``: the
  agent can rewrite such a file, so running it outside the sandbox would let the agent's
  commands out of it. (Best effort: the program words of the command line and the script given
  to an interpreter are looked at; what a program reads on its own — a ``Makefile``,
  ``node_modules`` — is not. Keep guards outside the workspace.)
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from agent_tui.core.hooks.config import HookSpec

PROJECT_VARS = ("CLAUDE_PROJECT_DIR", "AGENT_TUI_PROJECT_DIR")
_PROJECT_VAR = re.compile(r"\$\{?(?:CLAUDE_PROJECT_DIR|AGENT_TUI_PROJECT_DIR)\b\}?")
CONFINED_ENV = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TERM",
    "TZ",
    "TMPDIR",
)
"""What a confined hook gets of the agent's environment (and ``LC_*``): never a provider's key
or another secret of the user's."""
INTERPRETERS = frozenset(
    {
        "sh",
        "bash",
        "dash",
        "zsh",
        "ksh",
        "fish",
        "python",
        "python3",
        "node",
        "deno",
        "bun",
        "ruby",
        "perl",
        "php",
        "lua",
        "Rscript",
        "osascript",
        "pwsh",
    }
)
"""Programs whose first operand is a script they run (``python3 scripts/guard.py``)."""
_OPERATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "|&", ";;"})


def confined_because(spec: HookSpec, workspace: Path) -> str | None:
    """Why the hook ``spec`` runs confined, or None: it runs as the user's own program."""
    if spec.scope != "user":
        return f"a hook of the project's {spec.source.name}"
    found = workspace_program(spec.shown, workspace)
    if found is not None:
        return f"it runs {found}, which is inside the workspace (the agent can change it)"
    return None


def workspace_program(command: str, workspace: Path) -> str | None:
    """A program or script of ``command`` that lies inside ``workspace`` (as written), or None.
    A command line that cannot be split counts as one (it cannot be told apart)."""
    if _PROJECT_VAR.search(command):
        return "a file of the project directory ($CLAUDE_PROJECT_DIR)"
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return "a command line that cannot be read"
    for word in _programs(words):
        if _inside(word, workspace):
            return word
    return None


def confined_env(workspace: Path) -> dict[str, str]:
    """The environment of a confined hook: ``CONFINED_ENV`` and ``LC_*`` of ours, and the
    project directory."""
    env = {k: v for k, v in os.environ.items() if k in CONFINED_ENV or k.startswith("LC_")}
    env.update(dict.fromkeys(PROJECT_VARS, str(workspace)))
    return env


def _programs(words: list[str]) -> list[str]:
    """The program of each simple command (after ``VAR=value`` words and ``env``'s options),
    and the script an interpreter is given."""
    found: list[str] = []
    start = True
    script_of: str | None = None
    for word in words:
        if word in _OPERATORS:
            start, script_of = True, None
            continue
        if start:
            if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
                continue
            if os.path.basename(word) == "env":
                continue
            found.append(word)
            start = False
            base = os.path.basename(word)
            script_of = word if base in INTERPRETERS or base.startswith("python") else None
            continue
        if script_of is not None:
            if word.startswith("-"):
                continue
            found.append(word)
            script_of = None
    return found


def _inside(word: str, workspace: Path) -> bool:
    path = Path(os.path.expanduser(word))
    if not path.is_absolute():
        if "/" not in word and not (workspace / word).exists():
            return False  # a program found on PATH, not here
        path = workspace / path
    root = os.path.realpath(workspace)
    written = os.path.normpath(path)
    for candidate in (written, os.path.realpath(written)):
        if (candidate == root or candidate.startswith(root + os.sep)) and os.path.lexists(written):
            return True
    return False


__all__ = ["confined_because", "confined_env", "workspace_program"]
