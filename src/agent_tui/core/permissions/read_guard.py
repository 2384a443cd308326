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

``RuleReadGuard`` matches every name of the path it is given (``link_names``: as given — the
tools pass the path as written —, each link followed, resolved), so a rule naming a link or a
path through a linked folder holds; and, like the sandbox's walk, it withholds what a named
link leads to and a hard link to a protected file (``sandbox.hard_links``: only a file with
more than one name is compared, so the rest cost nothing).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.permissions.link_names import spellings
from agent_tui.core.permissions.rules import Rule, RuleSet
from agent_tui.core.sandbox import Hidden
from agent_tui.core.sandbox.hard_links import Identities, identities, identity
from agent_tui.core.tools.reads import ReadGuard

READ_TOOL = "read_file"
"""The tool whose rules guard file content everywhere."""
FACTS_FOR = 2.0
"""Seconds a guard reuses its walk for links and hard links (one call's guard: its whole
call; a long-lived one, ``mcp serve``'s, looks again after that)."""


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
        self._known: _Facts | None = None
        self._known_at = 0.0

    def withheld(self, path: Path) -> str | None:
        if not self.rules:
            return None
        names = spellings(path)  # as given, each link followed, resolved (last)
        for rule in self.rules:
            if rule.pattern is None or any(rule.matches_path(n, self.workspace) for n in names):
                return describe_rule(rule)
        return self._other_name(names[-1])

    def _other_name(self, target: Path) -> str | None:
        found = self.other_name(target)
        return None if found is None else f"{found[2]}: {found[1]}"

    def other_name(self, target: Path) -> tuple[Rule, str, str] | None:
        """``(rule, why, who)`` when ``target`` (resolved) is a protected file under another
        name: where a link a rule names leads, or a hard link to a protected file
        (``hard_links``); ``who`` names the rule, or the read rules when it is not known."""
        if not self.rules:
            return None
        facts = self._facts()
        text = str(target)
        for place, rule in facts.places:
            if text == place or text.startswith(place + os.sep):
                return self._named(rule, LINKED)
        if not facts.identities.names and facts.identities.complete:
            return None  # no protected file has another name: nothing to compare
        found = identity(target)
        if found is None or found[1] < 2:
            return None
        name = facts.identities.names.get(found[0])
        if name is not None:
            why = f"it is a hard link to {name}, the same file under another name"
            return self._named(self._rule_of(Path(name)), why)
        if not facts.identities.complete:
            return self._named(
                None,
                "it has other names (hard links), and the files the read rules protect are "
                "too many to rule out that it is one of them",
            )
        return None

    def _named(self, rule: Rule | None, why: str) -> tuple[Rule, str, str]:
        if rule is not None:
            return rule, why, describe_rule(rule)
        return self.rules[0], why, self._rules_text()

    def _rule_of(self, path: Path) -> Rule | None:
        """The rule whose pattern names ``path`` or a directory above it."""
        for rule in self.rules:
            if rule.pattern is None or rule.matches_path(path, self.workspace):
                return rule
        return None

    def _rules_text(self) -> str:
        shown = ", ".join(str(rule) for rule in self.rules[:3])
        more = " …" if len(self.rules) > 3 else ""
        return f"the read rules ({shown}{more})"

    def _facts(self) -> _Facts:
        """What the walk found that the patterns do not name (computed once per guard and
        ``FACTS_FOR``: a walk of a tree judges thousands of files)."""
        now = time.monotonic()
        if self._known is None or now - self._known_at > FACTS_FOR:
            self._known_at = now
            hidden = self.hidden()
            named = [p for p in hidden.paths if self._rule_of(p) is not None]
            known = identities(named)
            places: list[tuple[str, Rule | None]] = []
            for path in hidden.paths:
                if self._rule_of(path) is not None:
                    continue
                found = identity(path)
                linked = found is not None and found[1] > 1
                if linked and found is not None and (found[0] in known.names or not known.complete):
                    continue  # a hard link: judged by its identity
                places.append((str(path), self._aliasing_rule(path)))
            self._known = _Facts(tuple(places), known)
        return self._known

    def _aliasing_rule(self, path: Path) -> Rule | None:
        """The rule whose directory is a link leading above ``path`` (``private/**`` with
        ``private -> store``), if one is."""
        for rule in self.rules:
            if rule.pattern is None:
                continue
            root = rule.search_root(self.workspace)
            real = _resolved(root)
            if real != root and (path == real or real in path.parents):
                return rule
        return None

    def hidden(self) -> Hidden:
        """The files and directories on disk these rules protect (``walk``), and the other
        names (hard links) of those files that the walk meets."""
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
        return find_protected(roots, protected, key=(rules, workspace), hard_links=True)


LINKED = "it is where a link that such a rule names leads (the same file under another name)"


@dataclass(frozen=True)
class _Facts:
    places: tuple[tuple[str, Rule | None], ...]
    """Real paths the walk hides that no pattern names (a named link's target), with the
    rule when it is known."""
    identities: Identities
    """The identities of the protected files with other names."""


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
        return self.inner.withheld(path) if self.inner is not None else None

    def hidden(self) -> Hidden:
        return self.inner.hidden() if self.inner is not None else Hidden()
