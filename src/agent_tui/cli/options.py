"""The options the TUI's command line and ``agent-tui acp`` share: the model, the allow and
deny rules, the permission mode and the turn limit, defined once so the two cannot drift.

Nothing here imports the core: the TUI parses its command line before its first frame, which
must not wait for the core. What the options need of it is written out instead
(``tests/ui/test_boot.py`` checks that it matches the core's).
"""

from __future__ import annotations

import argparse

PERMISSION_MODES = ("default", "accept-edits", "plan", "bypass")
"""``core.permissions.Mode``'s values, in its order."""
DEFAULT_MAX_TURNS = 50
"""``core.agent.DEFAULT_MAX_TURNS``."""


def add_model_option(parser: argparse.ArgumentParser) -> None:
    """``--model`` / ``-m``."""
    parser.add_argument(
        "--model",
        "-m",
        metavar="SPEC",
        help="demo | openai:MODEL | anthropic:MODEL | script:PATH "
        "(default: from AGENT_API_KEY / ANTHROPIC_API_KEY, else demo)",
    )


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    """``--allow``, ``--deny`` and ``--permission-mode``."""
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
        choices=PERMISSION_MODES,
        help="default | accept-edits | plan (read-only) | bypass (no prompts; deny rules "
        "still apply). Default: from settings, else default",
    )


def add_max_turns_option(parser: argparse.ArgumentParser) -> None:
    """``--max-turns``."""
    parser.add_argument(
        "--max-turns",
        type=int,
        default=DEFAULT_MAX_TURNS,
        help=f"model requests per prompt before stopping ({DEFAULT_MAX_TURNS})",
    )
