"""``CLAUDE_ENV_FILE``: where a ``SessionStart`` hook writes ``export NAME=value`` lines for
the session's later shell commands (a direnv or nvm hook), as in Claude Code.

Each SessionStart hook gets its own empty file (in the session's temp directory when there is
one, which a confined hook can write too). After it ran, the file is read and removed. Only a
hook of the user's own settings sets anything: its variables go to ``run_shell`` through the
same allow-list as the agent's own environment (``core.sandbox.environment``: in the sandbox a
name passes only when allowed or listed in ``shell.env``; never a provider key). A project
hook's file is read only to say that its variables were not applied (fail closed: a
repository does not choose the environment of the agent's commands). A line that is not a
plain ``[export] NAME=value`` (``unset``, ANSI-C ``$'…'`` quoting, a function) is skipped and
named.
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile
from pathlib import Path

ENV_FILE = "CLAUDE_ENV_FILE"
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_BYTES = 256 * 1024


def make_env_file(directory: Path | None) -> Path:
    """A new empty file for one hook (blocking: call it in a thread)."""
    fd, name = tempfile.mkstemp(prefix="claude-env-", suffix=".sh", dir=directory)
    os.close(fd)
    return Path(name)


def take_env_file(path: Path) -> tuple[dict[str, str], list[str]]:
    """The variables ``path`` sets and the lines that could not be read; the file is removed
    (blocking: call it in a thread)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        return {}, [f"{ENV_FILE} could not be read ({exc.strerror or exc})"]
    finally:
        path.unlink(missing_ok=True)
    problems = [f"{ENV_FILE} is over {MAX_BYTES // 1024} KB: the rest is ignored"]
    problems = problems if len(data) > MAX_BYTES else []
    return parse(data[:MAX_BYTES].decode("utf-8", errors="replace"), problems)


def parse(text: str, problems: list[str] | None = None) -> tuple[dict[str, str], list[str]]:
    """``[export] NAME=value`` lines (shell quoting), later lines winning; what is not one."""
    found: dict[str, str] = {}
    problems = [] if problems is None else problems
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            words = shlex.split(stripped, comments=True)
        except ValueError:
            words = []
        if words[:1] == ["export"]:
            words = words[1:]
        pairs = [w.partition("=") for w in words]
        if (
            not words
            or "$'" in stripped
            or not all(eq and NAME.fullmatch(name) for name, eq, _ in pairs)
        ):
            problems.append(f"{ENV_FILE} line {number} is not `export NAME=value`: skipped")
            continue
        found.update((name, value) for name, _, value in pairs)
    return found, problems


__all__ = ["ENV_FILE", "make_env_file", "parse", "take_env_file"]
