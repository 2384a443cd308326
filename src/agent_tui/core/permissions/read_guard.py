"""Read guards built from permission rules and from a served root (``tools.reads.ReadGuard``).

The file tools ask a guard about every file whose content or name they would return, so one
``read_file(PATTERN)`` deny rule protects that file in ``read_file``, ``grep``, ``glob``,
``list_dir``, ``run_tool`` and ``mcp serve`` alike (the security model's "one read-deny").

- ``RuleReadGuard`` withholds what a ``read_file`` deny or ask rule matches. Ask rules count
  too: a walk (grep over a tree) cannot stop to ask about each file it meets, so a file the
  user wants to be asked about is never shown by one.
- ``RootGuard`` withholds everything outside one directory (``mcp serve --cwd ROOT``), then
  defers to an inner guard.

Both resolve the path they are given once more (``..`` and symlinks): it costs a few
``lstat`` calls and means a caller that forgot to resolve cannot walk out through a link.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.permissions.rules import Rule, RuleSet
from agent_tui.core.sandbox import Hidden
from agent_tui.core.tools.reads import ReadGuard

READ_TOOL = "read_file"
"""The tool whose rules guard file content everywhere."""


def _resolved(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def describe_rule(rule: Rule) -> str:
    """``the rule read_file(.env) (from /p/.agent-tui/settings.json)``: what a withheld file or
    a refused call names, so the user can find the rule to change."""
    where = f" (from {rule.source})" if rule.source else ""
    return f"the rule {rule}{where}"


class RuleReadGuard:
    """Withholds the files that a ``read_file`` deny or ask rule matches.

    Only rules whose tool part is ``read_file`` itself or ``*`` count: ``grep(secret/**)``
    forbids running grep on those paths, which the permission pipeline judges per call; it
    says nothing about showing the files' content through another tool. A deny rule without a
    pattern (``read_file``, ``*``) withholds every file; an ask rule without one is about
    calls (each is asked about), not about files, so it withholds nothing — unless
    ``nobody_to_ask`` (``mcp serve``: no call can be asked about, so every file is withheld).
    Patterns match the resolved path the way the pipeline matches them
    (``Rule.matches_path``, relative to ``workspace``).
    """

    def __init__(self, rules: RuleSet, workspace: Path, *, nobody_to_ask: bool = False) -> None:
        self.workspace = _resolved(workspace)
        asks = rules.ask if nobody_to_ask else [r for r in rules.ask if r.pattern is not None]
        self.rules: tuple[Rule, ...] = tuple(
            rule for rule in (*rules.deny, *asks) if rule.names_tool(READ_TOOL)
        )
        """Deny rules first, so a file matched by both is reported as denied."""

    def withheld(self, path: Path) -> str | None:
        if not self.rules:
            return None
        target = _resolved(path)
        for rule in self.rules:
            if rule.pattern is None or rule.matches_path(target, self.workspace):
                return describe_rule(rule)
        return None

    def hidden(self) -> Hidden:
        """The files and directories on disk these rules protect (``walk``)."""
        if not self.rules:
            return Hidden()
        from agent_tui.core.sandbox.walk import find_protected

        rules, workspace = self.rules, self.workspace
        matchers = [rule.path_matcher(workspace) for rule in rules]

        def protected(path: str) -> bool:
            return any(match(path) for match in matchers)

        roots = dict.fromkeys(
            workspace if r.pattern is None else r.search_root(workspace) for r in rules
        )
        return find_protected(roots, protected, key=(rules, workspace))


class RootGuard:
    """Withholds everything whose resolved path is outside ``root``; inside, ``inner`` decides.

    ``mcp serve`` shows one directory tree, not the machine: a symlink inside the tree that
    points out of it (``link -> /etc``) is withheld like the target itself would be.
    """

    def __init__(self, root: Path, inner: ReadGuard | None = None) -> None:
        self.root = _resolved(root)
        self.inner = inner

    def withheld(self, path: Path) -> str | None:
        target = _resolved(path)
        if not _inside(target, self.root):
            return f"outside the directory this server serves ({self.root})"
        return self.inner.withheld(target) if self.inner is not None else None

    def hidden(self) -> Hidden:
        return self.inner.hidden() if self.inner is not None else Hidden()
