"""Build the core a run needs (provider, session, settings, permissions, tools, hooks, MCP,
the agent and its subagents) from the command line: the heavy half of ``cli.main``.

``cli.main`` imports this module only once it knows what to run: headless, it builds the core
before running; the TUI builds it in a worker right after its first frame (``AgentApp(boot=…)``),
so nothing here weighs on the first paint.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.agent.agent import Agent
from agent_tui.core.claude.permissions import command_line_texts, permission_config
from agent_tui.core.conversation.session import SessionDoubted, SessionLog
from agent_tui.core.conversation.session_store import SessionStore, in_use_note
from agent_tui.core.disclosure import Disclosure
from agent_tui.core.events import SessionStart
from agent_tui.core.mcp.config.files import config_paths, project_config_path, user_config_path
from agent_tui.core.permissions import Mode
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.base import Frontend, Provider, ProviderError
from agent_tui.core.providers.spec import make_provider
from agent_tui.core.sandbox.own_environ import hide_provider_keys
from agent_tui.core.settings import Settings, load_settings, read_json_object, settings_paths
from agent_tui.core.state.paths import ensure_data_dir
from agent_tui.core.state.trust import ProjectTrust, untrusted_warning
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent_tui.core.mcp.client.elicitation import ElicitationNotice
    from agent_tui.core.mcp.client.manager import McpManager

BYPASS_WARNING = (
    "warning: the permission mode is bypass: every call runs without asking, except what deny "
    "rules refuse and what asks in every mode (protected paths, commands it cannot see through)"
)
"""Printed on stderr (by a headless run at start, by the TUI when it exits; the TUI's chat shows
it at once) whenever a session starts in bypass mode, from --permission-mode or a settings file."""


class SetupFailed(Exception):
    """The run cannot start: ``message`` says why (``cli.main`` prints it as ``agent-tui: …``) and
    ``code`` is the exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class ModelUnusable(SetupFailed):
    """The model asked for cannot be used (a bad spec, a key missing): ``acp`` answers it as
    ``auth_required``."""


@dataclass
class Core:
    """What a run works with: the agent, the session it starts (for the UI or the stream),
    and the MCP manager (None for a headless run without a configuration)."""

    agent: Agent
    start: SessionStart
    mcp: McpManager | None


def _open_session(
    args: argparse.Namespace, cwd: Path, model: str, store: SessionStore
) -> SessionLog | tuple[str, int]:
    """The session to run in, or (what to say, exit code) when the one asked for is not there:
    ``--continue`` with no session of ``cwd`` stops (exit 1, as Claude Code does) rather than
    starting a new session the user did not ask for. ``--fork-session`` forks the one found."""
    found = _found_session(args, cwd, store)
    if found is None:
        return store.new(cwd, model)
    if isinstance(found, tuple):
        return found
    holder = None if args.fork_session else found.claim()
    if not args.fork_session and holder is None:
        return found
    try:
        fork = store.fork(found)
    except OSError as exc:
        return f"cannot fork session {found.id}: {exc.strerror or exc}", 1
    if holder is not None:  # one writer per session: the other process keeps it
        fork.notes.append(in_use_note(found, fork, holder))
    return fork


def _found_session(
    args: argparse.Namespace, cwd: Path, store: SessionStore
) -> SessionLog | tuple[str, int] | None:
    """The session ``--continue`` / ``--resume`` ask for (None: neither was given)."""
    try:
        return _found(args, cwd, store)
    except SessionDoubted as doubted:  # not as agent-tui wrote it: never loaded by itself
        return str(doubted), 1 if args.continue_ else 2


def _found(
    args: argparse.Namespace, cwd: Path, store: SessionStore
) -> SessionLog | tuple[str, int] | None:
    if args.continue_:
        latest = store.latest(cwd)
        if latest is None:
            unread = "".join(f"\n  {note}" for note in store.passed_over_notes())
            return (
                f"No conversation found to continue: no saved session was started in {cwd} "
                f"(sessions are kept in {store.root}). Run without --continue to start a new "
                f"one.{unread}",
                1,
            )
        return latest
    if args.resume:
        found = store.find(args.resume)
        if found is None:
            return (
                f"no session {args.resume!r} in {store.root} (ids are shown at start and "
                "in the file names there; --continue picks the latest of this directory)",
                2,
            )
        return found
    return None


def _mcp_manager(
    cwd: Path,
    registry: ToolRegistry,
    settings: Settings,
    *,
    tui: bool,
    trust: ProjectTrust,
    wait_uncached: bool,
    disclosure: Disclosure | None = None,
    paths: list[Path] | None = None,
) -> McpManager | None:
    """The MCP servers of ``.mcp.json`` files, their tools going into ``registry``. The SDK is
    imported only when a server starts. Headless runs without a configuration get none; the
    TUI always gets one, so a configuration created while it runs is picked up. ``disclosure``
    tells which lazy servers may stay unstarted (all their tools deferred). ``paths``: the
    configuration files, when not the user's and the project's. ``wait_uncached``: requests
    wait for the lazy servers whose tools are not cached yet (headless and ACP runs; the
    TUI's never wait for a lazy server)."""
    if not tui and paths is None and not _may_configure_mcp(cwd):
        return None  # what the manager would find: nothing, without importing it
    from agent_tui.core.mcp.client.manager import McpManager

    manager = McpManager(
        cwd,
        registry,
        paths=paths,
        media_dir=Path(settings.budget.spill_dir) / "mcp-media",
        watch=tui,
        trust=trust,
        disclosure=disclosure,
        wait_uncached=wait_uncached,
    )
    return manager if tui or manager.configured or manager.problems else None


def _may_configure_mcp(cwd: Path) -> bool:
    """Whether a manager of ``cwd`` could find a server or a problem: an MCP configuration file
    is there, or a settings file has an ``mcp`` section (roots, start mode, servers turned off)
    or cannot be read. When not, a headless run has no manager, and need not import it."""
    if any(path.exists() for path in config_paths(cwd)):
        return True
    for path in settings_paths(cwd):
        data, _, problem = read_json_object(path)
        if problem is not None or (data is not None and "mcp" in data):
            return True
    return False


def report_elicitation(notice: ElicitationNotice) -> None:
    print(f"agent-tui: mcp: {notice.reason}", file=sys.stderr, flush=True)


def assemble(args: argparse.Namespace, cwd: Path) -> Core:
    """The core for the parsed command line ``args`` in ``cwd`` (a directory); raises
    ``SetupFailed`` for a bad model spec, a session not found, bad permission rules."""
    headless = args.headless is not None
    hide_provider_keys()  # before any command can run: not in /proc/<agent>/environ
    try:
        frontend: Frontend = "headless" if headless else "tui"
        provider: Provider = make_provider(args.model, cwd=cwd, frontend=frontend)
    except ProviderError as exc:
        raise ModelUnusable(str(exc)) from None
    data_warning = ensure_data_dir()
    sessions = SessionStore()
    try:
        session = _open_session(args, cwd, provider.name, sessions)
    except OSError as exc:  # nowhere to write it: the run goes on, and says what is lost
        session = SessionLog.unsaved_session(sessions.root, cwd, provider.name, exc)
    if isinstance(session, tuple):
        raise SetupFailed(*session)
    loaded = load_settings(cwd)
    trust = ProjectTrust(cwd)  # what of the project's own files may widen anything
    try:
        allow, allow_said = command_line_texts(args.allow, "allow", cwd, "--allow")
        deny, deny_said = command_line_texts(args.deny, "deny", cwd, "--deny")
        permissions = build_pipeline(
            cwd,
            mode=args.permission_mode,
            allow=allow,
            deny=deny,
            persist_always=not headless,
            trust=trust,
            config=permission_config(cwd, file_problems=False, trust=trust),  # ours + .claude/
        )
    except ValueError as exc:
        raise SetupFailed(str(exc)) from None
    permissions.problems.extend([*allow_said, *deny_said])
    registry = default_registry()
    from agent_tui.core.hooks import load_hooks

    hooks = load_hooks(cwd, trust)  # a project file's hooks wait for the user's trust
    from agent_tui.core.claude.env import load_env

    env, env_notes = load_env(cwd, trust, passed=loaded.settings.shell.env)  # .claude/ "env"
    from agent_tui.core.skills import SkillSet
    from agent_tui.core.skills import install as install_skills

    skills = SkillSet.for_workspace(cwd, trust)  # a project's skills wait for trust too
    from agent_tui.core.commands.grants import gate_commands

    gate_commands(cwd, trust)  # a project command's allowed-tools waits for trust too
    install_skills(registry, skills)
    disclosure = Disclosure(registry, loaded.settings.disclosure)
    passed = getattr(args, "mcp_config", None)  # an ACP client's servers: the user's own
    mcp = _mcp_manager(
        cwd,
        registry,
        loaded.settings,
        tui=not headless,
        trust=trust,
        wait_uncached=headless or getattr(args, "acp", False),  # the TUI's first reply: never
        disclosure=disclosure,
        paths=None if passed is None else [user_config_path(), passed, project_config_path(cwd)],
    )
    agent = Agent(
        provider,
        registry,
        cwd,
        policy=permissions.pipeline,
        session=session,
        max_turns=args.max_turns,
        settings=loaded.settings,
        sessions=sessions,
        tool_sources=[mcp] if mcp is not None else [],
        disclosure=disclosure,
        trust=trust,
        hooks=hooks,
        skills=skills,
    )
    agent.executor.sandbox.env = env  # the commands' and hooks' (subagents share it)
    from agent_tui.core.subagents import install, load_agents

    # named subagents (``task``): the project's and the user's
    agents = load_agents(cwd, models=loaded.settings.model.aliases)
    install(agent, agents)
    if mcp is not None:  # @server:uri mentions attach the servers' resources
        from agent_tui.core.mcp.client.resource_mentions import McpMentionResources
        from agent_tui.core.permissions.mcp_rules import server_gate

        mcp.hub.gate = server_gate(permissions.pipeline)  # each server's rules, not only calls
        agent.mention_resources = McpMentionResources(mcp.hub)
    start = SessionStart(
        session_id=session.id,
        model=provider.name,
        cwd=str(cwd),
        demo=provider.kind == "demo",
        resumed=bool(session.messages),
        forked_from=session.forked_from,
        permission_mode=permissions.pipeline.mode.value,
        memory=agent.memory_info(),
        context_window=agent.limits.context_window,
        warnings=[
            *([data_warning] if data_warning else []),
            *([BYPASS_WARNING] if permissions.pipeline.mode is Mode.BYPASS else []),
            *loaded.messages(),
            *(f"permissions: {p}" for p in permissions.problems),
            *(f"mcp: {p}" for p in (mcp.problems if mcp is not None else [])),
            *([f"trust: {trust.problem}"] if trust.problem else []),
            *([untrusted_warning(trust.pending)] if trust.pending and headless else []),
            *(f"hooks: {p}" for p in hooks.problems),
            *(hooks.skipped_warnings() if headless else []),
            *(f"env: {n}" for n in env_notes),
            *(f"session: {p}" for p in session.problems()),
            *(str(p) for p in agent.memory.problems),
            *agents.problems,
            *(f"skills: {p}" for p in skills.problems),
        ],
    )
    return Core(agent, start, mcp)
