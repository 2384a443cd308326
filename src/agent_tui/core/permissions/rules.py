"""Permission rules: ``tool``, ``tool(pattern)``, ``mcp__server``, ``mcp__server__tool``,
``mcp__server__*``, and ``*`` for every tool.

For ``run_shell`` the pattern is a command prefix (``git status:*`` matches ``git status`` with
any further arguments; without ``:*`` the whole command must match). For file tools it is a
gitignore glob on the path resolved against the workspace (``src/**``, ``*.py``; a leading
``/`` anchors at the workspace root, ``//`` starts an absolute path, ``~/`` the home
directory). The glob syntax is git's (``core.workspace.globs``: ``[!a]``, ``\\*``, ``**`` only as a
whole segment), matched by regexes that cannot backtrack badly; unlike a ``.gitignore`` line, a
leading ``!`` or ``#`` is an ordinary character here. For ``web_fetch`` it names a host:
``domain:example.com`` or ``domain:*.example.com`` (``core.permissions.domains``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from agent_tui.core.permissions.mcp_names import covers as mcp_covers
from agent_tui.core.permissions.mcp_names import rule_problem as mcp_rule_problem
from agent_tui.core.tools.hosts import pattern_problem
from agent_tui.core.workspace.globs import translate

SHELL_TOOLS = frozenset({"run_shell"})
"""Tools whose rule patterns are shell commands (checked for balanced quotes when parsed)."""
WEB_TOOLS = frozenset({"web_fetch"})
"""Tools whose rule patterns name a domain (``domain:example.com``; ``permissions.domains``)."""
_RULE = re.compile(r"^\s*([A-Za-z0-9_.*-]+)\s*(?:\((.*)\))?\s*$", re.S)


class RuleError(ValueError):
    """A rule string that cannot be parsed."""


@dataclass
class RuleSet:
    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)

    def extend(self, other: RuleSet) -> None:
        self.allow.extend(other.allow)
        self.ask.extend(other.ask)
        self.deny.extend(other.deny)


@dataclass(frozen=True)
class Rule:
    tool: str
    pattern: str | None = None
    source: str = ""

    @classmethod
    def parse(cls, text: str, source: str = "") -> Rule:
        match = _RULE.match(text)
        if not match:
            raise RuleError(
                f"{text!r} is not a rule: use TOOL or TOOL(PATTERN), e.g. "
                "run_shell(git status:*), edit_file(src/**), mcp__server__*"
            )
        tool, pattern = match.group(1), match.group(2)
        if pattern is not None:
            pattern = pattern.strip()
            if not pattern:
                raise RuleError(f"{text!r} has an empty pattern: drop the parentheses")
        if tool == "*" and pattern is not None:
            raise RuleError(f"{text!r}: '*' (every tool) takes no pattern")
        if "*" in tool and tool != "*" and not (tool.startswith("mcp__") and tool.endswith("__*")):
            raise RuleError(f"{text!r}: '*' in a tool name only works as * or mcp__server__*")
        if (never := mcp_rule_problem(tool)) is not None:
            raise RuleError(f"{text!r}: {never}")
        rule = cls(tool, pattern, source)
        if tool in WEB_TOOLS and pattern is not None:
            problem = pattern_problem(pattern)
            if problem is not None:
                raise RuleError(f"{text!r}: {problem}")
        if tool in SHELL_TOOLS and pattern is not None:
            words, _ = rule.shell_words()  # raises on unbalanced quotes
            if not words:
                raise RuleError(f"{text!r} has no command in its pattern")
        return rule

    # -- tool names -------------------------------------------------------------------------

    def names_tool(self, name: str) -> bool:
        """Does this rule's tool part cover the tool ``name``?"""
        if self.tool in (name, "*"):
            return True
        # mcp__server, mcp__server__*, mcp__server__tool: the server part ignoring case
        return mcp_covers(self.tool, name)

    # -- shell ------------------------------------------------------------------------------

    def shell_words(self) -> tuple[list[str], bool]:
        """A shell pattern as (words, prefix): ``git status:*`` → (["git", "status"], True).

        Words are split like the shell would (quotes kept together, so ``python3 -c "print(1,
        2)"`` is three words). A pattern whose quotes do not close raises ``RuleError``.
        """
        return _shell_words(self.pattern or "")

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    # -- paths ------------------------------------------------------------------------------

    @cached_property
    def _path_regex(self) -> tuple[re.Pattern[str], str]:
        return _glob_regex(self.pattern or "")

    def matches_path(self, path: Path, workspace: Path) -> bool:
        """``path`` must already be resolved (``..`` and symlinks) by the caller."""
        regex, anchor = self._path_regex
        if anchor == "absolute":
            return bool(regex.fullmatch(path.as_posix()))
        if anchor == "home":
            try:
                rel = path.relative_to(Path.home().resolve())
            except ValueError:
                return False
            return bool(regex.fullmatch(rel.as_posix()))
        try:
            rel = path.relative_to(workspace)
        except ValueError:
            return False
        return bool(regex.fullmatch(rel.as_posix()))

    def path_matcher(self, workspace: Path) -> Callable[[str], bool]:
        """``matches_path`` for many paths: takes a real absolute path as a string (no
        ``Path`` made per call). A rule without a pattern matches everything."""
        if self.pattern is None:
            return lambda path: True
        regex, anchor = self._path_regex
        if anchor == "absolute":
            return lambda path: bool(regex.fullmatch(path))
        base = str(Path.home().resolve() if anchor == "home" else workspace)
        prefix = base.rstrip("/") + "/"

        def match(path: str) -> bool:
            if path == base:
                return bool(regex.fullmatch("."))
            return path.startswith(prefix) and bool(regex.fullmatch(path[len(prefix) :]))

        return match

    def search_root(self, workspace: Path) -> Path:
        """The deepest directory every path this pattern matches lies in: where to look for
        them on disk (``//etc/app/*.conf`` → ``/etc/app``; ``~/.aws/**`` → the home's
        ``.aws``; ``secrets/*.key`` → the workspace's ``secrets``; ``/.env`` → the workspace's
        ``.env``; ``*.pem`` and ``.env`` → the workspace)."""
        pattern = self.pattern or ""
        if pattern.startswith("//"):
            base, rest = Path("/"), pattern[2:]
        elif pattern.startswith("~/"):
            base, rest = Path.home().resolve(), pattern[2:]
        else:
            base, rest = workspace, pattern.lstrip("/")
            if "/" not in pattern.rstrip("/"):  # a bare name matches at any depth (not /name)
                return workspace
        parts = rest.rstrip("/").split("/")
        literal = []
        for part in parts[:-1] if parts else []:
            if _MAGIC.search(part):
                break
            literal.append(part)
        else:
            if parts and not _MAGIC.search(parts[-1]):
                literal.append(parts[-1])  # no magic at all: the path itself
        return base.joinpath(*literal) if literal else base


_MAGIC = re.compile(r"[*?\[{\\]")


@lru_cache(maxsize=1024)
def _shell_words(pattern: str) -> tuple[list[str], bool]:
    prefix = pattern.endswith(":*")
    text = pattern[:-2] if prefix else pattern
    if text.endswith(" *"):  # "git status *" reads like a prefix too
        text, prefix = text[:-2], True
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise RuleError(
            f"the shell pattern {pattern!r} has unbalanced quotes ({exc}): quote it the way "
            "the command is written"
        ) from None
    return words, prefix


def _glob_regex(pattern: str) -> tuple[re.Pattern[str], str]:
    """Translate a gitignore-style glob into a regex and its anchor (workspace/absolute/home).

    The segments are translated by ``core.workspace.globs.translate`` (no pattern can make the regex
    backtrack badly: a settings file is something a repository can ship). A pattern without a
    ``/`` in the middle matches a name at any depth, like gitignore; a match also covers
    everything below it (a directory's content); a trailing ``/`` matches only below.
    """
    anchor = "workspace"
    if pattern.startswith("//"):
        anchor, pattern = "absolute", pattern[1:]
    elif pattern.startswith("~/"):
        anchor, pattern = "home", pattern[2:]
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    pattern = pattern.lstrip("/") if anchor != "absolute" else pattern
    directory = pattern.endswith("/")
    pattern = pattern.rstrip("/")
    out = "/" + translate(pattern.lstrip("/")) if anchor == "absolute" else translate(pattern)
    if not anchored and anchor == "workspace":
        out = "(?:.*/)?" + out  # like gitignore: a bare name matches at any depth
    out += "(?:/.*)?" if not directory else "/.*"
    return re.compile(out, re.S), anchor


def split_rule_list(text: str) -> list[str]:
    """``"read_file, run_shell(git log:*)"`` -> two rules. A comma splits only outside the
    parentheses of a rule and outside quotes, so ``run_shell(python3 -c "print(1, 2)")`` and
    ``run_shell(echo ")", x)`` stay whole."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    quote = ""
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif depth and ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]
