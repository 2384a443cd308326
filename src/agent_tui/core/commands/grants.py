"""What a custom command's front matter gives the turn it starts: ``allowed-tools`` as allow
rules and ``model`` as the model the turn runs on (a ``CommandRun``), as Claude Code applies
them while that command's prompt runs.

``allowed-tools`` (``Bash(git add:*)``, ``Read``, ``mcp__github__*``, or our own
``run_shell(git status)``) goes through Claude Code's rule translation (``core.claude.rules``);
an allow that cannot be translated exactly is not granted, and said. The rules are carried by
the command's shell lines and by the calls of its turn (``ApprovalRequest.grant``), never put
in the session's rules: after the turn (ended, interrupted, failed) nothing of them is left.
They are allow rules and nothing more: a deny rule anywhere, the every-mode checks, plan mode,
the sandbox win over them, and they never name a protected path or a place outside the
workspace (``PermissionPipeline.standing_allow_rules``). The calls of a subagent the turn
starts are the session's rules' alone.

A project's command file (``.agent-tui/commands/``, ``.claude/commands/``) is the
repository's text: its grant loosens permissions, so it applies only once the user trusted
it (a ``TrustItem`` of kind ``command_grant``: the file and its ``allowed-tools`` as they are
now; ``gate_commands`` puts the untrusted ones before the trust dialog and ``agent-tui
trust``). The user's own command files grant what they say.

``model`` is a provider spec (``openai:gpt-4.1``) or a name the ``model.aliases`` setting maps
(Claude Code's ``sonnet``, ``opus``, ``haiku``, any case); a full Claude model id
(``claude-3-5-haiku-20241022``) is looked up as written, then by its family word (``haiku``).
Unmapped, the turn runs on the session's model and says so. A project's file never names a
``script:`` model (``custom`` skips such a file).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.claude.permissions import claude_named
from agent_tui.core.claude.rules import translate
from agent_tui.core.commands.custom import PROJECT_SOURCES, CustomCommand, load, locations
from agent_tui.core.permissions.rules import Rule, RuleError
from agent_tui.core.state.trust import ItemKind, ProjectTrust, TrustItem, canonical

CLAUDE_FAMILIES = ("haiku", "sonnet", "opus")
CLAUDE_NAMES = frozenset({*CLAUDE_FAMILIES, "opusplan", "default"})
"""Claude Code's model aliases (without a ``model.aliases`` entry: the session's model)."""
KIND: ItemKind = "command_grant"


@dataclass(frozen=True)
class CommandRun:
    """The turn a custom command starts: the rules it grants, the model it runs on."""

    name: str
    """The command, as typed after ``/``."""
    rules: tuple[Rule, ...] = ()
    """Allow rules for this turn only (its shell lines and its model's calls)."""
    model: str = ""
    """The provider spec the turn runs on (empty: the session's model)."""
    notes: tuple[str, ...] = ()
    """What of the front matter is not applied, and why, for the user (said once a turn)."""

    @property
    def granted(self) -> list[str]:
        return [str(rule) for rule in self.rules]


def command_run(
    command: CustomCommand,
    *,
    root: Path,
    trust: ProjectTrust | None,
    aliases: Mapping[str, str] | None = None,
) -> CommandRun | None:
    """What ``command`` gives its turn (None: no ``allowed-tools``, no ``model``). A
    project's grant applies only when ``trust`` allows it (no trust store: never)."""
    if not command.allowed_tools and not command.model:
        return None
    notes: list[str] = []
    rules = granted_rules(command.allowed_tools, root, f"allowed-tools of /{command.name}", notes)
    if rules and command.source in PROJECT_SOURCES:
        item = trust_item(command)
        if trust is None or item is None or not trust.allows(item):
            notes.append(
                f"allowed-tools ({', '.join(command.allowed_tools)}) is not applied: "
                f"{command.path} is the project's and its grant is not trusted (agent-tui "
                "trust reviews it); the permission rules and the mode decide, as for any prompt"
            )
            rules = []
    spec, said = model_spec(command.model, aliases or {})
    if said is not None:
        notes.append(said)
    return CommandRun(command.name, tuple(rules), spec, tuple(notes))


def granted_rules(items: Iterable[str], root: Path, source: str, notes: list[str]) -> list[Rule]:
    """Our allow rules for ``allowed-tools`` entries (Claude Code's names or ours); each that
    cannot be translated exactly is left out and said in ``notes``."""
    rules: list[Rule] = []
    for text in items:
        try:
            rule: Rule | None = Rule.parse(text, source=source)
        except RuleError:
            rule = None
        if rule is not None and not claude_named(rule):
            rules.append(rule)
            continue
        done = translate(text, "allow", root=root, source=source)
        rules.extend(done.rules)
        if done.note is not None:
            notes.append(f"allowed-tools: {done.note}")
    return rules


def model_spec(model: str, aliases: Mapping[str, str]) -> tuple[str, str | None]:
    """The provider spec of a command's ``model`` (empty: the session's), and what to say
    when it names none."""
    written = model.strip()
    key = written.lower()
    if not key or key == "inherit":
        return "", None
    if key in aliases:
        return aliases[key], None
    if ":" in key or key == "demo":
        return written, None
    family = next((f for f in CLAUDE_FAMILIES if re.search(rf"(^|-){f}(-|$)", key)), None)
    if key.startswith("claude-") and family is not None and family in aliases:
        return aliases[family], None
    if key in CLAUDE_NAMES or (key.startswith("claude-") and family is not None):
        name = family or key
        return "", (
            f"model: {written} is a Claude Code model and no model.aliases setting maps "
            f"{name!r} to a model here; the turn runs on the session's model (to choose one: "
            f'"model": {{"aliases": {{"{name}": "anthropic:MODEL"}}}} in settings)'
        )
    return "", (
        f"model: {written} is not a provider spec (openai:MODEL, anthropic:MODEL) nor a "
        "model.aliases name; the turn runs on the session's model"
    )


def trust_item(command: CustomCommand) -> TrustItem | None:
    """The trust a project command's ``allowed-tools`` waits for (None: it grants nothing)."""
    if not command.allowed_tools:
        return None
    tools = list(command.allowed_tools)
    return TrustItem(
        KIND,
        command.path,
        f"/{command.name}",
        ", ".join(tools),
        canonical({"path": str(command.path), "allowed-tools": tools}),
    )


def gate_commands(cwd: Path, trust: ProjectTrust) -> Sequence[TrustItem]:
    """The grants of the project's command files that are not trusted yet (now in
    ``trust.pending``: the trust dialog and ``agent-tui trust`` list them)."""
    project = [place for place in locations(cwd, cwd, None) if place.source in PROJECT_SOURCES]
    waiting: list[TrustItem] = []
    for command in load(project).commands:
        item = trust_item(command)
        if item is not None and not trust.allows(item):
            waiting.append(item)
    return waiting
