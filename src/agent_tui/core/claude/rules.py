"""Claude Code's permission rule strings, translated into our rules.

Claude Code writes ``Bash(npm run test:*)``, ``Read(./.env)``, ``Edit(src/**)``,
``WebFetch(domain:example.com)``, ``mcp__github__*``; we write ``run_shell(…)``,
``read_file(…)``, ``edit_file(…)``. ``translate`` turns one string into the rules of ours
that mean the same, as Claude Code's documentation gives the meaning:

- tool names through ``core.claude.names`` (``Bash`` → ``run_shell``…); ``Edit`` and
  ``Write`` both cover ``edit_file`` and ``write_file`` (Claude Code's edit rules cover every
  tool that writes a file; here a command's writes are judged as ``write_file``);
  ``Bash(*)``, ``Read(*)``… are the bare tool;
- a shell pattern is kept as it is: ``:*`` (prefix with a word boundary), a trailing `` *``
  and a ``*`` anywhere else mean what they mean in Claude Code (``core.permissions.matching``);
- a path: ``//abs`` absolute, ``~/x`` the home directory, ``/x`` the project root, ``./x``
  and ``x`` the working directory (the project root here), ``../x`` made absolute; globs are
  gitignore's. For ``./X`` with no other ``/``, a deny or ask rule matches ``X`` at any depth
  (more than Claude Code may, never less) and an allow rule only at the root.

Whatever cannot be translated exactly never loosens: an allow rule is dropped (said once);
a deny or ask rule covers more (the program's every command, the whole tool), said once too.
A Claude Code tool with no counterpart here (``WebSearch``, ``NotebookEdit``…) is said once.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent_tui.core.claude import names
from agent_tui.core.permissions.rules import Rule, RuleError

Kind = Literal["allow", "ask", "deny"]

_RULE = re.compile(r"^\s*([A-Za-z0-9_.*-]+)\s*(?:\((.*)\))?\s*$", re.S)
PATH_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit"})
"""Claude Code tools whose rule pattern is a path."""
EDITING = ("edit_file", "write_file")
"""Our tools a Claude Code edit rule (``Edit``, ``Write``, ``MultiEdit``) covers."""


@dataclass(frozen=True)
class Translation:
    """One Claude Code rule string: our rules for it, and what to say about it (None when
    the translation is exact)."""

    text: str
    kind: Kind
    rules: tuple[Rule, ...]
    note: str | None = None


def translate(text: str, kind: Kind, *, root: Path, source: str = "") -> Translation:
    """Our rules for the Claude Code rule string ``text`` used as a ``kind`` rule; relative
    paths are taken from the project ``root``. Never raises: a string it cannot read is a
    ``note`` (a deny or ask naming the tool still covers the whole tool)."""
    match = _RULE.match(text)
    if not match:
        return Translation(text, kind, (), f"{text!r} is not a Claude Code rule; ignored")
    tool, pattern = match.group(1), match.group(2)
    pattern = pattern.strip() if pattern is not None else None
    if pattern in ("", "*"):
        pattern = None  # Bash(*) is Bash
    if names.is_mcp(tool):
        return _made(text, kind, [(tool, pattern)], source)
    ours = names.ours(tool)
    if ours is None:
        why = "has no counterpart here" if tool in names.UNMAPPED else "is not a tool here"
        return Translation(text, kind, (), f"{text!r}: {tool} {why}; the rule is ignored")
    tools = EDITING if tool in ("Edit", "Write", "MultiEdit") else (ours,)
    if pattern is None:
        return _made(text, kind, [(t, None) for t in tools], source)
    if tool in PATH_TOOLS or ours in ("read_file", "edit_file", "write_file"):
        path = _path(pattern, kind, root)
        return _made(text, kind, [(t, path) for t in tools], source)
    if ours in ("run_shell", "web_fetch"):
        return _made(text, kind, [(ours, pattern)], source)
    return _made(text, kind, [(ours, pattern)], source, whole=(ours, None))


def _path(pattern: str, kind: Kind, root: Path) -> str:
    """Claude Code's path pattern as ours (``core.permissions.rules``: ``/`` is our
    workspace root, ``//`` absolute, ``~/`` home, a bare name any depth)."""
    if pattern.startswith(("//", "~/")):
        return pattern
    if pattern.startswith("~"):  # ~ alone, ~user/x: that home, made absolute
        expanded = os.path.expanduser(pattern)
        if os.path.isabs(expanded):
            return "/" + os.path.normpath(expanded)
    if pattern.startswith("/"):
        return pattern  # the project root: ours too
    if pattern.startswith("../") or pattern == "..":
        absolute = os.path.normpath(root / pattern)
        return "/" + absolute  # //abs
    rest = pattern
    while rest.startswith("./"):
        rest = rest[2:]
    if rest in ("", "."):
        return "/**"
    if rest != pattern and "/" not in rest.rstrip("/") and kind == "allow":
        return "/" + rest  # ./X allows X at the root only
    return rest


def _made(
    text: str,
    kind: Kind,
    parts: list[tuple[str, str | None]],
    source: str,
    whole: tuple[str, str | None] | None = None,
) -> Translation:
    """The rules of ``parts``; one that our parser refuses falls back to ``whole`` (or the
    program's every command, or the bare tool) for a deny or ask, to nothing for an allow."""
    rules: list[Rule] = []
    for tool, pattern in parts:
        shown = tool if pattern is None else f"{tool}({pattern})"
        try:
            rules.append(Rule.parse(shown, source=source))
        except RuleError as exc:
            if kind == "allow":
                return Translation(text, kind, (), f"{text!r}: {exc}; this allow rule is ignored")
            wider = whole or (tool, _program_prefix(tool, pattern))
            rule = Rule.parse(wider[0] if wider[1] is None else f"{wider[0]}({wider[1]})", source)
            return Translation(
                text, kind, (rule,), f"{text!r}: {exc}; it {kind}s {rule} instead (wider)"
            )
    if whole is not None:  # a pattern we do not model for this tool
        if kind == "allow":
            return Translation(
                text,
                kind,
                (),
                f"{text!r}: its pattern has no meaning here; this allow rule is ignored",
            )
        rule = Rule.parse(whole[0], source=source)
        return Translation(text, kind, (rule,), f"{text!r}: it {kind}s every {rule} call (wider)")
    return Translation(text, kind, tuple(rules))


def _program_prefix(tool: str, pattern: str | None) -> str | None:
    """For a shell pattern our parser refuses: its first word (every command of that
    program), or None (the whole tool) when even that is unclear."""
    if tool != "run_shell" or not pattern:
        return None
    first = pattern.split()[0] if pattern.split() else ""
    if re.fullmatch(r"[A-Za-z0-9_./+-]+", first):
        return f"{first}:*"
    return None
