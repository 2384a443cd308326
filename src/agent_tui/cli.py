"""The ``agent-tui`` command: the TUI by default, ``-p`` for headless runs."""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from agent_tui import __version__
from agent_tui.core.agent import DEFAULT_MAX_TURNS, Agent
from agent_tui.core.disclosure import Disclosure
from agent_tui.core.events import SessionStart
from agent_tui.core.mcp.elicitation import ElicitationNotice
from agent_tui.core.mcp.manager import McpManager
from agent_tui.core.permissions import Mode
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.base import Frontend, Provider, ProviderError
from agent_tui.core.providers.spec import make_provider
from agent_tui.core.session import SessionLog, SessionStore
from agent_tui.core.settings import Settings, load_settings
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.trust import ProjectTrust, untrusted_warning

BYPASS_WARNING = (
    "warning: the permission mode is bypass: every call runs without asking, except what deny "
    "rules refuse and what asks in every mode (protected paths, commands it cannot see through)"
)
"""Printed on stderr at start (and shown in the TUI) whenever a session starts in bypass mode,
from --permission-mode or from a settings file."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-tui",
        description="A terminal coding agent. With no model configured it runs the offline "
        "demo model.",
    )
    parser.add_argument("prompt", nargs="?", help="a first message to send when the TUI opens")
    parser.add_argument(
        "-p",
        "--print",
        dest="headless",
        metavar="PROMPT",
        help="run PROMPT headless (no UI) and print the result; piped stdin is appended to it "
        "(PROMPT - : stdin is the prompt); /name runs a custom command or MCP prompt",
    )
    parser.add_argument(
        "--model",
        "-m",
        metavar="SPEC",
        help="demo | openai:MODEL | anthropic:MODEL | script:PATH "
        "(default: from AGENT_API_KEY / ANTHROPIC_API_KEY, else demo)",
    )
    parser.add_argument(
        "--output-format",
        choices=["text", "json", "stream-json"],
        default="text",
        help="headless output (default: text)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="RULE",
        help="allow calls matching RULE without asking, e.g. write_file, "
        "'run_shell(git status:*)', 'edit_file(src/**)', '*' (repeatable, comma-separated)",
    )
    parser.add_argument(
        "--deny",
        action="append",
        default=[],
        metavar="RULE",
        help="deny calls matching RULE, in every mode (repeatable)",
    )
    parser.add_argument(
        "--permission-mode",
        choices=[m.value for m in Mode],
        help="default | accept-edits | plan (read-only) | bypass (no prompts; deny rules "
        "still apply). Default: from settings, else default",
    )
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument(
        "--continue",
        "-c",
        dest="continue_",
        action="store_true",
        help="continue the latest session of this directory",
    )
    resume.add_argument("--resume", "-r", metavar="ID", help="resume the session ID")
    parser.add_argument(
        "--fork-session",
        action="store_true",
        help="with --continue or --resume: continue in a new session (new id) that starts as "
        "a copy of that one; the original stays as it was",
    )
    parser.add_argument("--cwd", type=Path, help="work in this directory (default: current)")
    parser.add_argument(
        "--max-turns",
        type=int,
        default=DEFAULT_MAX_TURNS,
        help=f"model requests per prompt before stopping ({DEFAULT_MAX_TURNS})",
    )
    parser.add_argument("--version", action="version", version=f"agent-tui {__version__}")
    return parser


BROKEN_PIPE_EXIT = 141
"""The exit code when the reader of stdout went away (``agent-tui … | head``): 128 + SIGPIPE,
what a shell reports for a program SIGPIPE ended, as git does."""


def _quiet_broken_pipe(run: Callable[[Sequence[str] | None], int]) -> Callable[..., int]:
    """Whoever reads the output closed the pipe: stop quietly, as a Unix tool does, rather
    than with a traceback. Python flushes stdout once more at exit; pointing it at /dev/null
    first keeps that flush from raising again."""

    @functools.wraps(run)
    def wrapped(argv: Sequence[str] | None = None) -> int:
        try:
            return run(argv)
        except BrokenPipeError:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            return BROKEN_PIPE_EXIT

    return wrapped


def _fail(message: str, code: int = 2) -> int:
    print(f"agent-tui: {message}", file=sys.stderr)
    return code


def _open_session(
    args: argparse.Namespace, cwd: Path, model: str, store: SessionStore
) -> SessionLog | tuple[str, int]:
    """The session to run in, or (what to say, exit code) when the one asked for is not there:
    ``--continue`` with no session of ``cwd`` stops (exit 1, as Claude Code does) rather than
    starting a new session the user did not ask for. ``--fork-session`` forks the one found."""
    found = _found_session(args, cwd, store)
    if found is None:
        return store.new(cwd, model)
    if isinstance(found, tuple) or not args.fork_session:
        return found
    try:
        return store.fork(found)
    except OSError as exc:
        return f"cannot fork session {found.id}: {exc.strerror or exc}", 1


def _found_session(
    args: argparse.Namespace, cwd: Path, store: SessionStore
) -> SessionLog | tuple[str, int] | None:
    """The session ``--continue`` / ``--resume`` ask for (None: neither was given)."""
    if args.continue_:
        latest = store.latest(cwd)
        if latest is None:
            return (
                f"No conversation found to continue: no saved session was started in {cwd} "
                f"(sessions are kept in {store.root}). Run without --continue to start a new "
                "one.",
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
    disclosure: Disclosure | None = None,
) -> McpManager | None:
    """The MCP servers of ``.mcp.json`` files, their tools going into ``registry``. The SDK is
    imported only when a server starts. Headless runs without a configuration get none; the
    TUI always gets one, so a configuration created while it runs is picked up. ``disclosure``
    tells which lazy servers may stay unstarted (all their tools deferred)."""
    manager = McpManager(
        cwd,
        registry,
        media_dir=Path(settings.budget.spill_dir) / "mcp-media",
        watch=tui,
        trust=trust,
        disclosure=disclosure,
    )
    return manager if tui or manager.configured or manager.problems else None


def _report_elicitation(notice: ElicitationNotice) -> None:
    print(f"agent-tui: mcp: {notice.reason}", file=sys.stderr, flush=True)


@_quiet_broken_pipe
def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["mcp"]:  # agent-tui mcp list|call|add|remove|serve
        from agent_tui.mcp_cli import main as mcp_main

        return mcp_main(argv[1:])
    if argv[:1] == ["permissions"]:  # agent-tui permissions check RULE... -- SUBJECT
        from agent_tui.permissions_cli import main as permissions_main

        return permissions_main(argv[1:])
    if argv[:1] == ["trust"]:  # agent-tui trust [--yes | --revoke]
        from agent_tui.trust_cli import main as trust_main

        return trust_main(argv[1:])
    if argv[:1] == ["init"]:  # agent-tui init [--force] [--model SPEC]
        from agent_tui.init_cli import main as init_main

        return init_main(argv[1:])
    if argv[:1] == ["sandbox"]:  # agent-tui sandbox status
        from agent_tui.sandbox_cli import main as sandbox_main

        return sandbox_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.fork_session and not (args.continue_ or args.resume):
        parser.error("--fork-session needs --continue or --resume (the session to fork)")
    cwd = (args.cwd or Path.cwd()).resolve()
    if not cwd.is_dir():
        return _fail(f"--cwd {cwd} is not a directory")
    try:
        frontend: Frontend = "tui" if args.headless is None else "headless"
        provider: Provider = make_provider(args.model, cwd=cwd, frontend=frontend)
    except ProviderError as exc:
        return _fail(str(exc))
    sessions = SessionStore()
    session = _open_session(args, cwd, provider.name, sessions)
    if isinstance(session, tuple):
        return _fail(*session)
    loaded = load_settings(cwd)
    trust = ProjectTrust(cwd)  # what of the project's own files may widen anything
    try:
        permissions = build_pipeline(
            cwd,
            mode=args.permission_mode,
            allow=args.allow,
            deny=args.deny,
            persist_always=args.headless is None,
            trust=trust,
        )
    except ValueError as exc:
        return _fail(str(exc))
    registry = default_registry()
    from agent_tui.core.hooks import load_hooks

    hooks = load_hooks(cwd, trust)  # a project file's hooks wait for the user's trust
    disclosure = Disclosure(registry, loaded.settings.disclosure)
    mcp = _mcp_manager(
        cwd,
        registry,
        loaded.settings,
        tui=args.headless is None,
        trust=trust,
        disclosure=disclosure,
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
    )
    from agent_tui.core.subagents import install, load_agents

    agents = load_agents(cwd)  # named subagents (``task``): the project's and the user's
    install(agent, agents)
    if mcp is not None:  # @server:uri mentions attach the servers' resources
        from agent_tui.core.mcp.resource_mentions import McpMentionResources

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
            *([BYPASS_WARNING] if permissions.pipeline.mode is Mode.BYPASS else []),
            *loaded.messages(),
            *(f"permissions: {p}" for p in permissions.problems),
            *(f"mcp: {p}" for p in (mcp.problems if mcp is not None else [])),
            *(
                [untrusted_warning(trust.pending)]
                if trust.pending and args.headless is not None
                else []
            ),
            *(f"hooks: {p}" for p in hooks.problems),
            *(hooks.skipped_warnings() if args.headless is not None else []),
            *(f"session: {p}" for p in session.problems()),
            *(str(p) for p in agent.memory.problems),
            *agents.problems,
        ],
    )
    if args.headless is not None:
        from agent_tui.headless import run_headless

        if mcp is not None:  # no one to ask: each elicitation is declined, and said so
            mcp.elicitation.add_listener(_report_elicitation)
        from agent_tui.headless_commands import StdinTooLarge, read_stdin, stdin_is_piped

        piped = ""
        if args.headless == "-" or stdin_is_piped(sys.stdin.buffer):
            try:
                piped = read_stdin(sys.stdin.buffer)
            except StdinTooLarge as exc:
                return _fail(str(exc))
        return asyncio.run(
            run_headless(agent, args.headless, args.output_format, session_start=start, piped=piped)
        )
    if not sys.stdin.isatty() and not os.environ.get("AGENT_TUI_FORCE_TUI"):
        return _fail("the TUI needs a terminal; use -p PROMPT for headless runs")
    from agent_tui.ui.app import AgentApp

    for warning in start.warnings:  # still on screen when the app exits; the app gets them too
        print(f"agent-tui: {warning}", file=sys.stderr)
    app = AgentApp(agent=agent, demo=start.demo, initial_prompt=args.prompt, session=start)
    try:
        app.run()
    finally:
        if not agent.closed:  # the app did not close the agent: at least clean the spills
            try:
                agent.collect_spills_now()
            except Exception as exc:
                print(f"agent-tui: spill cleanup failed: {exc}", file=sys.stderr)
    return app.return_code or 0
