"""The ``agent-tui`` command: the TUI by default, ``-p`` for headless runs."""

from __future__ import annotations

import argparse
import functools
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui import __version__
from agent_tui.cli.options import add_max_turns_option, add_model_option, add_rule_options
from agent_tui.cli.parser import StrictParser

if TYPE_CHECKING:
    from agent_tui.cli.assemble import Core
    from agent_tui.ui.shell.boot import Booted

log = logging.getLogger(__name__)

SUBCOMMANDS = (
    ("mcp", "list, add, remove, call and sign in to MCP servers; serve our tools over MCP"),
    ("permissions", "check what a rule allows: the decision for a command or path, part by part"),
    ("trust", "review what this project's files ask to turn on; accept a doubted session"),
    ("init", "write a starter AGENTS.md for this project"),
    ("sandbox", "status: whether shell commands run sandboxed here, and why not"),
    ("export", "write a saved session as Markdown or JSON, for people (bug reports, sharing)"),
    ("acp", "run as an ACP agent on stdio, for editors (Zed, JetBrains, Neovim, Emacs, Toad)"),
)
"""The subcommands ``main`` dispatches before parsing, as ``--help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = StrictParser(
        prog="agent-tui",
        description="A terminal coding agent. With no model configured it runs the offline "
        "demo model.",
        epilog="commands (agent-tui COMMAND --help for each):\n"
        + "\n".join(f"  {name:<12} {what}" for name, what in SUBCOMMANDS),
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    add_model_option(parser)
    parser.add_argument(
        "--output-format",
        choices=["text", "json", "stream-json"],
        default="text",
        help="headless output (default: text)",
    )
    add_rule_options(parser)
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
    add_max_turns_option(parser)
    parser.add_argument(
        "--debug",
        action="store_true",
        help="write more to the log file (DEBUG instead of INFO); /help says where it is",
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


@_quiet_broken_pipe
def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in {name for name, _ in SUBCOMMANDS}:
        return _subcommand(argv[0], argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.fork_session and not (args.continue_ or args.resume):
        parser.error("--fork-session needs --continue or --resume (the session to fork)")
    cwd = (args.cwd or Path.cwd()).resolve()
    if not cwd.is_dir():
        return _fail(f"--cwd {cwd} is not a directory")
    try:
        return _run(args, cwd)
    finally:
        if "agent_tui.core.state.logfile" in sys.modules:
            sys.modules["agent_tui.core.state.logfile"].stop()


def _subcommand(name: str, argv: list[str]) -> int:
    """``agent-tui mcp|permissions|trust|init|sandbox|export|acp ...``, its warnings (a server that
    failed to list its tools, a settings file that could not be read) in the log file, not on
    stderr."""
    from agent_tui.core.state import logfile

    logfile.start()
    try:
        if name == "mcp":  # agent-tui mcp list|call|add|remove|login|serve
            from agent_tui.cli.mcp import main as run
        elif name == "permissions":  # agent-tui permissions check RULE... -- SUBJECT
            from agent_tui.cli.permissions import main as run
        elif name == "trust":  # agent-tui trust [--yes | --revoke]
            from agent_tui.cli.trust import main as run
        elif name == "init":  # agent-tui init [--force] [--model SPEC]
            from agent_tui.cli.init import main as run
        elif name == "export":  # agent-tui export [SESSION] [-o FILE] [--format F]
            from agent_tui.cli.export import main as run
        elif name == "acp":  # agent-tui acp [--model SPEC] [--allow R] [--deny R]
            from agent_tui.cli.acp import main as run
        else:  # agent-tui sandbox status
            from agent_tui.cli.sandbox import main as run
        return run(argv)
    finally:
        logfile.stop()


def _start_log(args: argparse.Namespace) -> None:
    """The log file (``core.state.logfile``); with ``--debug``, on stderr when it cannot be."""
    from agent_tui.core.state import logfile

    log = logfile.start(debug=args.debug)
    if args.debug and log.problem is not None:
        print(f"agent-tui: {log.problem}", file=sys.stderr)


def _run(args: argparse.Namespace, cwd: Path) -> int:
    if args.headless is not None:
        return _headless(args, cwd)
    if not sys.stdin.isatty() and not os.environ.get("AGENT_TUI_FORCE_TUI"):
        core = _build(args, cwd)  # what is wrong with the command line is said first
        if isinstance(core, int):
            return core
        return _fail("the TUI needs a terminal; use -p PROMPT for headless runs")
    return _tui(args, cwd)


def _build(args: argparse.Namespace, cwd: Path) -> Core | int:
    """The core (``assemble``), or the exit code after saying why it cannot be built."""
    from agent_tui.cli.assemble import SetupFailed, assemble

    try:
        return assemble(args, cwd)
    except SetupFailed as exc:
        return _fail(exc.message, exc.code)


def _headless(args: argparse.Namespace, cwd: Path) -> int:
    from agent_tui.cli import collector

    collector.skip_final_collection()
    try:
        with collector.paused():  # the start makes much and frees little (issue 45)
            _start_log(args)
            core = _build(args, cwd)
            if isinstance(core, int):
                return core
            from agent_tui.cli.assemble import report_elicitation
            from agent_tui.headless.commands import StdinTooLarge, read_stdin, stdin_is_piped
            from agent_tui.headless.run import run_headless

            if core.mcp is not None:  # no one to ask: each elicitation is declined, and said so
                core.mcp.elicitation.add_listener(report_elicitation)
            import asyncio  # here, with the rest of the start, not before the collector pauses
        piped = ""
        if args.headless == "-" or stdin_is_piped(sys.stdin.buffer):
            try:
                piped = read_stdin(sys.stdin.buffer)
            except StdinTooLarge as exc:
                return _fail(str(exc))
        return asyncio.run(
            run_headless(
                core.agent, args.headless, args.output_format, session_start=core.start, piped=piped
            )
        )
    finally:
        collector.release()


def _tui(args: argparse.Namespace, cwd: Path) -> int:
    """The TUI: its shell paints first (``ui.app`` imports no core), the core is built in a
    worker right after (``boot``); a failure to build it ends the app with the message and the
    exit code the headless run gives."""
    from agent_tui.cli.start_keys import keep_enter

    restore_enter = keep_enter(0)  # before the imports: Enter stays Enter
    try:
        return _run_app(args, cwd)
    finally:
        restore_enter()


def _run_app(args: argparse.Namespace, cwd: Path) -> int:
    from agent_tui.cli.start_keys import typed_ahead
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.shell.boot import Booted, BootFailed, first_look

    def boot() -> Booted:
        from agent_tui.cli.assemble import SetupFailed, assemble

        _start_log(args)  # here, in the boot thread: its imports do not delay the first frame
        try:
            core = assemble(args, cwd)
        except SetupFailed as exc:
            raise BootFailed(exc.message, exc.code) from None
        return Booted(core.agent, core.start)

    look = first_look(args.model, args.permission_mode, cwd)
    app = AgentApp(boot=boot, initial_prompt=args.prompt, first=look)
    app.keys_before_start = lambda: typed_ahead(0)  # typed before the driver reads: first
    try:
        app.run()
    finally:
        _after(app.booted)
    if app.boot_failure is not None:
        return _fail(app.boot_failure.message, app.boot_failure.code)
    unsaved = app.booted.agent.unsaved if app.booted is not None else None
    if unsaved is not None:
        from agent_tui.headless.run import EXIT_UNSAVED

        print(f"agent-tui: {unsaved}", file=sys.stderr)
        return app.return_code or EXIT_UNSAVED
    return app.return_code or 0


def _after(booted: Booted | None) -> None:
    """Once the app is gone: the start-up warnings again (the chat showed them; the terminal
    keeps them), and the spills cleaned if the app did not close the agent."""
    if booted is None:
        return
    for warning in booted.start.warnings:
        print(f"agent-tui: {warning}", file=sys.stderr)
    agent = booted.agent
    if not agent.closed:  # the app did not close the agent: at least clean the spills
        try:
            agent.collect_spills_now()
        except Exception as exc:
            log.exception("spill cleanup after the app failed")
            print(f"agent-tui: spill cleanup failed: {exc}", file=sys.stderr)
