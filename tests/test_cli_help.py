"""``agent-tui --help`` lists every subcommand, and each one's ``--help`` reads as plain text
(a real process, as a user types it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.cli.main import SUBCOMMANDS
from tests.test_cli_headless import run_cli


def test_the_main_help_lists_every_subcommand(tmp_path: Path) -> None:
    done = run_cli("--help", cwd=tmp_path)
    assert done.returncode == 0
    listed = done.stdout.split("commands (agent-tui COMMAND --help for each):")[1]
    names = [line.split()[0] for line in listed.strip().splitlines()]
    assert names == ["mcp", "permissions", "trust", "init", "sandbox", "export", "acp"]
    assert "--debug" in done.stdout


@pytest.mark.parametrize("name", [name for name, _ in SUBCOMMANDS])
def test_each_subcommand_has_a_plain_help(tmp_path: Path, name: str) -> None:
    done = run_cli(name, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: agent-tui {name}")
    assert "``" not in done.stdout  # a docstring's markup is not help
