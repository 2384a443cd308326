"""``agent-tui permissions …``: test rules before trusting them.

    agent-tui permissions check [RULE...] [--deny RULE] [--ask RULE] [--mode MODE]
                                [--tool TOOL] [--no-settings] [--json] -- SUBJECT

prints the decision for SUBJECT (a shell command for ``run_shell``, the default; a path for a
file tool; nothing for an MCP tool) with the reason, the deciding step, each part of the
command and how it is judged. RULEs are allow rules; the settings files of ``--cwd`` apply too
unless ``--no-settings``. A RULE may be written as Claude Code writes it (``Bash(git * main)``,
``Read(./.env)``): it is translated (``core.claude.rules``) and the translation shown. Exit
code: 0 allow, 1 ask, 3 deny, 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from agent_tui.cli.parser import StrictParser

EXIT = {"allow": 0, "ask": 1, "deny": 3}


def build_parser() -> argparse.ArgumentParser:
    parser = StrictParser(prog="agent-tui permissions", description="Test permission rules.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = sub.add_parser(
        "check",
        help="the decision for a command or path, part by part",
        description="Print the decision for SUBJECT (after --) with its reason. RULEs are "
        "allow rules, e.g. 'run_shell(git status:*)'.",
    )
    check.add_argument("rules", nargs="*", metavar="RULE", help="allow rules to test")
    check.add_argument("--deny", action="append", default=[], metavar="RULE")
    check.add_argument("--ask", action="append", default=[], metavar="RULE")
    check.add_argument(
        "--mode",
        default="default",
        help="default | accept-edits | plan | bypass (default: default)",
    )
    check.add_argument(
        "--tool",
        default="run_shell",
        help="the tool judged (default run_shell; read_file, write_file…)",
    )
    check.add_argument(
        "--no-settings",
        action="store_true",
        help="only the rules given here, not the settings files",
    )
    check.add_argument("--cwd", type=Path, help="the project directory (default: current)")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _fail(message: str) -> int:
    print(f"agent-tui permissions: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str]) -> int:
    argv = list(argv)
    subject: str | None = None
    if "--" in argv:
        index = argv.index("--")
        argv, rest = argv[:index], argv[index + 1 :]
        subject = " ".join(rest) if rest else None
    args = build_parser().parse_args(argv)
    cwd = (args.cwd or Path.cwd()).resolve()
    if not cwd.is_dir():
        return _fail(f"--cwd {cwd} is not a directory")
    from agent_tui.core.claude.permissions import command_line_rule, permission_config
    from agent_tui.core.claude.rules import Kind
    from agent_tui.core.permissions.modes import parse_mode
    from agent_tui.core.permissions.pipeline import PermissionPipeline
    from agent_tui.core.permissions.report import report
    from agent_tui.core.permissions.rules import RuleError, RuleSet, split_rule_list
    from agent_tui.core.tools.builtin import default_registry

    try:
        mode = parse_mode(args.mode)
        ruleset = RuleSet()
        problems: list[str] = []
        if not args.no_settings:
            config = permission_config(cwd)
            ruleset.extend(config.rules)
            problems = config.problems
        translated: list[str] = []
        given: list[tuple[Kind, list[str]]] = [
            ("allow", args.rules),
            ("deny", args.deny),
            ("ask", args.ask),
        ]
        for kind, values in given:
            for value in values:
                for text in split_rule_list(value):
                    rules, shown = command_line_rule(text, kind, cwd, "command line")
                    getattr(ruleset, kind).extend(rules)
                    translated.extend([shown] if shown else [])
    except (ValueError, RuleError) as exc:
        return _fail(str(exc))
    tool = default_registry().get(args.tool)
    if tool is None:
        return _fail(f"no built-in tool named {args.tool!r}")
    field = tool.meta.rule_subject
    if field and subject is None:
        return _fail(f"give the {field} to judge after --, e.g. -- 'git status; rm x'")
    arguments = {field: subject} if field and subject is not None else {}
    result = report(PermissionPipeline(cwd, ruleset, mode), tool, arguments)
    if args.json:
        print(
            json.dumps(
                {**result.as_json(), "problems": problems, "claude_code": translated}, indent=1
            )
        )
    else:
        for problem in problems:
            print(f"agent-tui permissions: settings: {problem}", file=sys.stderr)
        for line in translated:
            print(f"agent-tui permissions: {line}", file=sys.stderr)
        print("\n".join(result.lines()))
    return EXIT[result.decision.kind]
